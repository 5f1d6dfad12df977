import { describe, expect, it } from 'vitest';
import { defineJob, FatalError, type ClusterActivity, type QueueInfo } from '../../src/index.js';
import type {} from '../../src/storage/store.js';
import { waitFor } from '../helpers/wait.js';
import { useEngines } from './engines.js';
import type { EngineStoreFactory } from './suite.js';

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
  });
}
