import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { drain, memory } from '../../src/testing/index.js';

describe('chokaq/testing drain', () => {
  it('waits until every due job has settled and leaves delayed ones alone', async () => {
    const done: number[] = [];
    const job = defineJob<{ n: number }>({
      type: 'kit.v1',
      async handle(payload) {
        await new Promise((resolve) => setTimeout(resolve, 5));
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
    expect((await chokaq.listJobs()).map((j) => j.state)).toEqual(['pending']);
    await chokaq.stop();
  });

  it('rejects when jobs stay busy past the timeout', async () => {
    const job = defineJob({
      type: 'kit.hang.v1',
      handle: () => new Promise<void>(() => undefined),
    });
    const chokaq = new ChokaQ({
      storage: memory(),
      jobs: [job],
      logger: silentLogger,
      pollInterval: 20,
      shutdownGracePeriod: 10,
    });
    await chokaq.start();
    await chokaq.enqueue(job, {});
    await expect(drain(chokaq, { timeoutMs: 200 })).rejects.toThrow(/1 jobs still busy/);
    // stop() gives up on a handler that ignores its abort signal instead of hanging.
    const stopping = Date.now();
    await chokaq.stop();
    expect(Date.now() - stopping).toBeLessThan(8000);
  }, 15_000);
});
