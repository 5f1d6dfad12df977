/**
 * What a crash can re-run is bounded: a finished run frees its slot while its settlement is still
 * being written, but only while at most 4 × concurrency settlements are unwritten. With every
 * settle held back, the worker runs exactly 5 × concurrency handlers (the slots' worth plus four
 * slots' worth of unwritten settlements) and then waits; once the writes go through, the rest
 * of the jobs run.
 */
import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import type { Settlement } from '../../src/storage/job-store.js';
import { drain, memory } from '../../src/testing/index.js';

const CONCURRENCY = 4;
const JOBS = 40;

/** Resolves once `read()` returned the same value for `quietMs`, or rejects after `limitMs`. */
async function settledValue(read: () => number, quietMs = 150, limitMs = 3000): Promise<number> {
  const deadline = Date.now() + limitMs;
  let last = read();
  let since = Date.now();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = read();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      return now;
    }
  }
  throw new Error(`value still changing after ${limitMs} ms (last ${last})`);
}

describe('settle back-pressure', () => {
  it('runs at most 5 × concurrency handlers while no settlement can be written', async () => {
    const store = memory();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const settle = store.jobs.settle.bind(store.jobs);
    store.jobs.settle = async (items: readonly Settlement[]) => {
      await gate;
      return settle(items);
    };
    store.jobs.settleAndClaim = async (items: readonly Settlement[]) => ({
      applied: await store.jobs.settle(items),
      started: [],
    });
    let runs = 0;
    const job = defineJob<{ n: number }>({ type: 'pressure.v1', handle: () => void runs++ });
    const chokaq = new ChokaQ({
      storage: store,
      jobs: [job],
      concurrency: CONCURRENCY,
      pollInterval: 20,
      logger: silentLogger,
    });
    await chokaq.start();
    await chokaq.enqueueMany(
      job,
      Array.from({ length: JOBS }, (_, n) => ({ payload: { n } })),
    );
    expect(await settledValue(() => runs)).toBe(5 * CONCURRENCY);
    expect(chokaq.running).toBe(0); // the held slots belong to finished runs
    release();
    await drain(chokaq, { timeoutMs: 5000 });
    expect(runs).toBe(JOBS);
    await chokaq.stop();
  });
});
