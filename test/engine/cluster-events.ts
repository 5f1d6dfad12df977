import { describe, expect, it } from 'vitest';
import { defineJob, FatalError, type ClusterActivity, type QueueInfo } from '../../src/index.js';
import { waitFor } from '../helpers/wait.js';
import { useEngines } from './engines.js';
import type { EngineStoreFactory } from './suite.js';
import { waitForJob } from '../../src/testing/index.js';

const work = defineJob({ type: 'cluster.work.v1', queue: 'cluster', handle: () => undefined });
const doomed = defineJob({
  type: 'cluster.doomed.v1',
  queue: 'cluster',
  handle: () => {
    throw new FatalError('never');
  },
});

/**
 * Events across processes on every provider: a second ChokaQ on its own store object over the
 * same data stands in for another process (for the memory store, the same store object).
 */
export function describeClusterEvents(name: string, factory: EngineStoreFactory): void {
  describe(`cluster events on ${name}`, () => {
    const { started } = useEngines(name, factory);

    it("delivers one process's completions, deaths, pauses and operator actions to another, coalesced", async () => {
      const storage = await factory.make();
      const worker = await started(storage, {
        jobs: [work, doomed],
        workerId: 'cluster-worker',
        concurrency: 16,
      });
      const watcher = await started(await factory.reopen(storage), {
        worker: false,
        workerId: 'cluster-watcher',
      });
      const seen: ClusterActivity[] = [];
      const updated: QueueInfo[] = [];
      const actions: string[] = [];
      watcher.on('cluster:activity', (a) => seen.push(a));
      watcher.on('queue:updated', (info) => updated.push(info));
      watcher.on('operator:action', (entry) => actions.push(`${entry.actor}:${entry.action}`));

      await worker.enqueueMany(
        work,
        Array.from({ length: 200 }, () => ({ payload: undefined })),
      );
      await worker.enqueue(doomed, undefined);
      const sum = (key: 'succeeded' | 'dead' | 'enqueued') =>
        seen.filter((a) => a.queue === 'cluster').reduce((n, a) => n + a[key], 0);
      await waitFor(() => sum('succeeded') === 200 && sum('dead') === 1, {
        timeoutMs: 20_000,
        message: 'the other process to hear of 200 completions and a death',
      });
      expect(sum('enqueued')).toBe(201);
      expect(seen.every((a) => a.origin === 'cluster-worker' && !a.local)).toBe(true);
      // 201 jobs ran within a few intervals: a handful of messages, not one per job.
      expect(seen.length).toBeLessThan(40);
      const [deadId] = seen.flatMap((a) => a.deadIds);
      expect((await watcher.jobs.get(deadId ?? ''))?.state).toBe('dead');

      await worker.queues.pause('cluster', { actor: 'alice', reason: 'maintenance' });
      await waitFor(() => updated.some((q) => q.name === 'cluster' && q.paused), {
        message: 'the pause, re-read from the store',
      });
      expect(actions).toContain('alice:queue-update');
    });

    it("tells a process of its own activity too, marked local, without another's", async () => {
      const storage = await factory.make();
      const chokaq = await started(storage, { jobs: [work], workerId: 'solo' });
      const seen: ClusterActivity[] = [];
      chokaq.on('cluster:activity', (a) => seen.push(a));
      await chokaq.enqueue(work, undefined);
      await waitFor(() => seen.some((a) => a.succeeded === 1), { message: 'own completion' });
      expect(seen.every((a) => a.local && a.origin === 'solo')).toBe(true);
    });

    it('sends nothing with clusterEvents: false', async () => {
      const storage = await factory.make();
      const quiet = await started(storage, {
        jobs: [work],
        workerId: 'quiet',
        clusterEvents: false,
      });
      const watcher = await started(await factory.reopen(storage), {
        worker: false,
        workerId: 'listener',
      });
      const seen: ClusterActivity[] = [];
      watcher.on('cluster:activity', (a) => seen.push(a));
      quiet.on('cluster:activity', (a) => seen.push(a));
      await quiet.enqueue(work, undefined);
      await waitFor(async () => (await quiet.jobs.count({ state: 'succeeded' })).count === 1, {
        message: 'the job to finish',
      });
      // A process with events on speaks after it; once its message is in, quiet's would be too.
      const chatty = await started(await factory.reopen(storage), {
        worker: false,
        workerId: 'chatty',
      });
      await chatty.enqueue(work, undefined);
      await waitFor(() => seen.some((a) => a.origin === 'chatty'), { message: "chatty's message" });
      expect(seen.filter((a) => a.origin !== 'chatty')).toEqual([]);
    });
    it("changes a running worker's concurrency and a job type's retry settings from another process, audited", async () => {
      let failing = true;
      const flaky = defineJob({
        type: 'cluster.flaky.v1',
        queue: 'cluster',
        retry: { maxAttempts: 5, baseDelay: 10, jitter: 0 },
        handle: () => {
          if (failing) throw new Error('upstream down');
        },
      });
      const storage = await factory.make();
      const worker = await started(storage, {
        jobs: [flaky],
        workerId: 'live-worker',
        concurrency: 4,
      });
      const operator = await started(await factory.reopen(storage), {
        workerQueues: [],
        workerId: 'live-operator',
      });
      await waitFor(async () => (await operator.status()).workers.length === 2, {
        message: 'both workers rows',
      });

      await operator.workers.setConcurrency('live-worker', 9, { actor: 'olga', reason: 'backlog' });
      await waitFor(() => worker.configuration().concurrency === 9, {
        message: 'the worker to run 9 at once',
      });
      await waitFor(
        async () =>
          (await operator.status()).workers.find((w) => w.id === 'live-worker')?.concurrency === 9,
        { message: 'its row to say 9' },
      );
      expect((await operator.audit.list())[0]).toMatchObject({
        action: 'worker-concurrency',
        actor: 'olga',
        reason: 'backlog',
        target: { workerId: 'live-worker' },
        outcome: { concurrency: 9, before: 4 },
      });

      // One run in all: the next failure goes straight to the DLQ (SPEC F58).
      // The change's audit entry follows it on the same channel: once heard, the change is in.
      const heard = new Promise<void>((resolve) =>
        worker.on('operator:action', (e) => {
          if (e.action === 'retry-update') resolve();
        }),
      );
      await operator.workers.setRetry('cluster.flaky.v1', { maxAttempts: 1 }, { actor: 'olga' });
      await heard;
      const { id } = await worker.enqueue(flaky, undefined);
      const dead = await waitForJob(operator, id, 'dead', { timeoutMs: 15_000 });
      expect(dead.attempts).toBe(1);
      expect((await operator.audit.list())[0]).toMatchObject({
        action: 'retry-update',
        target: { type: 'cluster.flaky.v1' },
        outcome: { retry: { maxAttempts: 1 } },
      });
      failing = false;

      await expect(operator.workers.setConcurrency('nobody', 2)).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
        field: 'workerId',
      });
      await expect(operator.workers.setConcurrency('live-worker', 0)).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
        field: 'concurrency',
      });
      await expect(
        operator.workers.setRetry('nobody.runs.v1', { maxAttempts: 2 }),
      ).rejects.toMatchObject({
        code: 'CHOKAQ_UNKNOWN_JOB_TYPE',
        field: 'type',
      });
      await expect(
        operator.workers.setRetry('cluster.flaky.v1', { maxAttempts: 0 }),
      ).rejects.toMatchObject({ field: 'retry.maxAttempts' });
      await expect(
        operator.workers.setRetry('cluster.flaky.v1', { tries: 2 } as never),
      ).rejects.toMatchObject({ code: 'CHOKAQ_UNKNOWN_OPTION' });
      // Without cluster events a change could not reach other processes: refused, not lost.
      const deaf = await started(await factory.reopen(storage), {
        workerQueues: [],
        workerId: 'live-deaf',
        clusterEvents: false,
      });
      await expect(deaf.workers.setConcurrency('live-worker', 3)).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_CONFIG',
        field: 'clusterEvents',
      });
      expect(worker.configuration().concurrency).toBe(9);
    });
  });
}
