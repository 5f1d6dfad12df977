import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { drain, FakeClock, memory } from '../../src/testing/index.js';
import { waitFor } from '../helpers/wait.js';

describe('chokaq/testing drain', () => {
  it('waits until every due job has settled and leaves delayed ones alone', async () => {
    const done: number[] = [];
    const job = defineJob<{ n: number }>({
      type: 'kit.v1',
      async handle(payload) {
        await new Promise((resolve) => setTimeout(resolve, 5)); // the run takes a while
        done.push(payload.n);
      },
    });
    const chokaq = new ChokaQ({
      storage: memory(),
      jobs: [job],
      logger: silentLogger,
      pollInterval: 20,
    });
    await chokaq.start();
    await chokaq.enqueueMany(
      job,
      [1, 2, 3, 4, 5].map((n) => ({ payload: { n } })),
    );
    await chokaq.enqueue(job, { n: 99 }, { delay: '1h' });
    await drain(chokaq, { timeoutMs: 5000 });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5]);
    expect((await chokaq.listJobs()).map((j) => j.state)).toEqual(['scheduled']);
    await chokaq.stop();
  });

  it('rejects when jobs stay busy past the timeout', async () => {
    const job = defineJob({
      type: 'kit.hang.v1',
      handle: () => new Promise<void>(() => undefined),
    });
    // The engine waits on a fake clock, so stop()'s grace periods pass when the test says so.
    const clock = new FakeClock(Date.now());
    const chokaq = new ChokaQ({
      storage: memory(),
      jobs: [job],
      logger: silentLogger,
      clock,
      shutdownGracePeriod: 10,
    });
    await chokaq.start();
    await chokaq.enqueue(job, {}); // the store's wake-up starts it, no poll needed
    await waitFor(() => chokaq.running === 1);
    await expect(drain(chokaq, { timeoutMs: 200 })).rejects.toThrow(/1 jobs still busy/);
    // stop() gives up on a handler that ignores its abort signal instead of hanging: within the
    // grace period and the few seconds it waits for aborted handlers.
    let stopped = false;
    const stopping = chokaq.stop().then(() => (stopped = true));
    for (let second = 0; second < 10 && !stopped; second += 1) await clock.advanceAsync(1000);
    expect(stopped).toBe(true);
    await stopping;
  });
});
