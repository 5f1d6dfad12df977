/**
 * The circuit breaker hears a run's outcome only once its settlement is written (SPEC G30): a
 * success whose archive has not committed yet — or never commits — must not reset the failure
 * count. Real memory store; only its settle calls are held back (or made to conflict).
 */
import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, memory, silentLogger } from '../../src/index.js';
import type { Settlement } from '../../src/storage/job-store.js';
import { waitFor } from '../helpers/wait.js';
import { waitForJob } from '../../src/testing/index.js';

/** A memory store whose archive settlements wait for `gate()` to open; `conflict` makes them miss. */
function gatedStore(): {
  storage: ReturnType<typeof memory>;
  open: () => void;
  conflictArchives: () => void;
} {
  const storage = memory();
  const settle = storage.jobs.settle.bind(storage.jobs);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let conflict = false;
  storage.jobs.settle = async (items: readonly Settlement[]) => {
    if (!items.some((item) => item.kind === 'archive')) return settle(items);
    await gate;
    if (conflict) return items.map(() => false);
    return settle(items);
  };
  // A settle that may hand a freed capped slot on is the same write.
  storage.jobs.settleAndClaim = async (items: readonly Settlement[]) => ({
    applied: await storage.jobs.settle(items),
    started: [],
  });
  return { storage, open, conflictArchives: () => (conflict = true) };
}

const flaky = defineJob<{ fail: boolean }>({
  type: 'circuit.flaky.v1',
  retry: { maxAttempts: 1 },
  circuit: { failureThreshold: 3 },
  handle({ fail }) {
    if (fail) throw new Error('dependency down');
  },
});

async function twoFailures(storage: ReturnType<typeof memory>): Promise<ChokaQ> {
  const chokaq = new ChokaQ({ storage, jobs: [flaky], logger: silentLogger, pollInterval: 20 });
  await chokaq.start();
  await chokaq.enqueueMany(flaky, [{ payload: { fail: true } }, { payload: { fail: true } }]);
  await waitFor(async () => (await chokaq.dlq.list()).length === 2);
  await waitFor(() => chokaq.circuitStats()[0]?.failureCount === 2);
  return chokaq;
}

describe('circuit breaker and the settle write', () => {
  it('counts a success only after its archive is written', async () => {
    const { storage, open } = gatedStore();
    const chokaq = await twoFailures(storage);
    let ran = false;
    chokaq.on('job:started', () => (ran = true));
    const { id } = await chokaq.enqueue(flaky, { fail: false });
    await waitFor(() => ran);
    await waitFor(() => chokaq.running === 0); // the handler is done; its archive is held back
    expect(chokaq.circuitStats()[0]?.failureCount).toBe(2);
    open();
    await waitForJob(chokaq, id, 'succeeded');
    await waitFor(() => chokaq.circuitStats()[0]?.failureCount === 0);
    await chokaq.stop();
  });

  it('counts nothing for a success whose archive conflicts', async () => {
    const { storage, open, conflictArchives } = gatedStore();
    const chokaq = await twoFailures(storage);
    const conflicts: string[] = [];
    chokaq.on('job:conflict', (event) => conflicts.push(event.step));
    conflictArchives();
    open();
    await chokaq.enqueue(flaky, { fail: false });
    await waitFor(() => conflicts.length === 1);
    expect(conflicts).toEqual(['archive']);
    expect(chokaq.circuitStats()[0]).toMatchObject({ state: 'closed', failureCount: 2 });
    await chokaq.stop();
  });
});
