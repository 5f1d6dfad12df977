import { describe, expect, it } from 'vitest';
import { defineJob, FatalError, type Logger } from '../../src/index.js';
import { waitFor } from '../helpers/wait.js';
import { useEngines } from './engines.js';
import type { EngineStoreFactory } from './suite.js';

const good = defineJob({ type: 'status.good.v1', queue: 'status', handle: () => undefined });
const bad = defineJob({
  type: 'status.bad.v1',
  queue: 'status',
  handle: () => {
    throw new FatalError('no');
  },
});

/** Fails at once; its first failure opens its circuit for an hour. */
const breaker = defineJob({
  type: 'status.breaker.v1',
  queue: 'status',
  retry: { maxAttempts: 1 },
  circuit: { failureThreshold: 1, breakDuration: '1h' },
  handle: () => {
    throw new Error('downstream is down');
  },
});

/** `chokaq.status()` and the workers' presence rows, on every provider. */
export function describeStatus(name: string, factory: EngineStoreFactory): void {
  describe(`status on ${name}`, () => {
    const { engineOn } = useEngines(name, factory);

    it('reports each queue, its throughput and failure rate, the error groups and the workers alive', async () => {
      const storage = await factory.make();
      const worker = engineOn(storage, {
        jobs: [good, bad],
        workerId: 'status-worker',
        concurrency: 7,
      });
      await worker.start();
      // Listed as soon as its start resolves, not at the first timer pass.
      expect((await worker.status()).workers.map((w) => w.id)).toEqual(['status-worker']);
      await worker.enqueueMany(good, [
        { payload: undefined },
        { payload: undefined },
        { payload: undefined },
      ]);
      await worker.enqueue(bad, undefined);
      await worker.enqueue(good, undefined, { delay: '1h' });
      await waitFor(
        async () => (await worker.jobs.count({ state: ['succeeded', 'dead'] })).count === 4,
        {
          message: 'the jobs to finish',
        },
      );
      const report = await waitFor(
        async () => {
          const r = await worker.status();
          const q = r.queues.find((x) => x.queue === 'status');
          return q && q.lastMinute.succeeded + q.lastMinute.failed === 4 ? r : undefined;
        },
        { message: 'the finished jobs in the metric buckets' },
      );
      const queue = report.queues.find((q) => q.queue === 'status');
      expect(queue).toMatchObject({
        paused: false,
        due: 0,
        scheduled: 1,
        running: 0,
        lagMs: 0,
        dead: 1,
        lastMinute: { succeeded: 3, failed: 1, failureRate: 0.25 },
        lastFiveMinutes: { succeeded: 3, failed: 1, failureRate: 0.25 },
      });
      expect(queue?.lastMinute.jobsPerSecond).toBeCloseTo(4 / 60);
      expect(report.errorGroups).toMatchObject([{ count: 1, errorClass: 'FatalError' }]);
      expect(report.workers).toMatchObject([
        { id: 'status-worker', concurrency: 7, running: 0, pid: process.pid, circuits: [] },
      ]);

      // A stopped worker deletes its row: others no longer list it.
      const watcher = engineOn(await factory.reopen(storage), { worker: false });
      await worker.stop();
      expect((await watcher.status()).workers).toEqual([]);
    });

    it('ends a start that a stop() overtook while its row was being written', async () => {
      const storage = await factory.make();
      // Holds the first row write, so stop() lands inside start(), as a shutdown signal could.
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      let reached = (): void => undefined;
      const writing = new Promise<void>((resolve) => (reached = resolve));
      const recordWorker = storage.cluster.recordWorker.bind(storage.cluster);
      storage.cluster.recordWorker = async (row) => {
        reached();
        await held;
        return recordWorker(row);
      };
      const messages: string[] = [];
      const note = (message: string): void => void messages.push(message);
      const logger: Logger = {
        debug: note,
        info: note,
        warn: note,
        error: note,
        child: () => logger,
      };
      const worker = engineOn(storage, { jobs: [good], workerId: 'status-raced', logger });
      const starting = worker.start();
      await writing;
      const stopping = worker.stop();
      release();
      await stopping;
      await starting;
      expect(messages).not.toContain('worker started');
      const watcher = engineOn(await factory.reopen(storage), { worker: false });
      expect((await watcher.status()).workers).toEqual([]);
    });

    it('lists an open circuit with its worker as soon as it opens', async () => {
      const worker = engineOn(await factory.make(), {
        jobs: [breaker],
        workerId: 'status-breaker',
      });
      await worker.start();
      const report = await worker.status();
      expect(report.circuits).toEqual([]);
      await worker.enqueue(breaker, undefined);
      // Well within the 10 s between regular writes of the workers row: it is rewritten on opening.
      const open = await waitFor(
        async () => {
          const r = await worker.status();
          return r.circuits.length > 0 ? r : undefined;
        },
        { timeoutMs: 5000, message: 'the open circuit in the status' },
      );
      expect(open.circuits).toEqual([
        { type: 'status.breaker.v1', state: 'open', workers: ['status-breaker'] },
      ]);
      expect(open.workers).toMatchObject([
        { id: 'status-breaker', circuits: [{ type: 'status.breaker.v1', state: 'open' }] },
      ]);
    });
  });
}
