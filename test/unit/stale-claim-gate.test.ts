/**
 * A claimed job starts on trust (its start recorded behind the run) only while its claim is
 * younger than half the stale-claim timeout; one that waited longer in the local queue may have
 * been rescued meanwhile, so it passes the lease gate before its handler is called.
 */
import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import type { Lease } from '../../src/storage/job-store.js';
import { drain, FakeClock, memory } from '../../src/testing/index.js';

describe('a claim that waited long in the local queue', () => {
  it('passes the lease gate before its handler runs; a fresh one starts on trust', async () => {
    const clock = new FakeClock();
    const store = memory({ clock });
    const events: string[] = [];
    const start = store.jobs.start.bind(store.jobs);
    store.jobs.start = (leases: readonly Lease[]) => {
      for (const lease of leases) events.push(`start ${lease.id}`);
      return start(leases);
    };
    let releaseFirst!: () => void;
    const firstDone = new Promise<void>((resolve) => (releaseFirst = resolve));
    const job = defineJob<{ name: string }>({
      type: 'gate.job.v1',
      async handle({ name }, ctx) {
        events.push(`run ${ctx.id}`);
        if (name === 'first') await firstDone;
      },
    });
    const chokaq = new ChokaQ({
      storage: store,
      clock,
      jobs: [job],
      concurrency: 1,
      prefetch: 5,
      fetchedTimeout: 1000,
      logger: silentLogger,
    });
    const [first, waiting] = await chokaq.enqueueMany(job, [
      { payload: { name: 'first' } },
      { payload: { name: 'waiting' }, priority: 1 },
    ]);
    await chokaq.start();
    await expect.poll(() => events).toContain(`run ${first?.id}`);
    // The second job waits in the local queue behind the first for longer than half the timeout.
    await clock.advanceAsync(600);
    releaseFirst();
    await drain(chokaq);
    const runFirst = events.indexOf(`run ${first?.id}`);
    const gate = events.indexOf(`start ${waiting?.id}`);
    const runWaiting = events.indexOf(`run ${waiting?.id}`);
    // The first started on trust: its start was recorded after its handler began.
    expect(events.indexOf(`start ${first?.id}`)).toBeGreaterThan(runFirst);
    expect(gate).toBeGreaterThan(-1);
    expect(gate).toBeLessThan(runWaiting);
    expect((await chokaq.jobs.get(waiting?.id ?? ''))?.state).toBe('succeeded');
    await chokaq.stop();
  });
});
