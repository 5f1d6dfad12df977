/**
 * Conformance tests of the edges where providers used to differ or a provider broke the
 * contract: claim order across capped and uncapped queues, claims limited to the worker's job
 * types, a lease given twice in one settle call, what a resurrected job keeps of its failure,
 * expired idempotency claims purged by the rescue pass, and the wake-up a freed capped slot
 * sends. Registered by `describeStoreConformance` in suite.ts for every provider.
 */
import { describe, expect, it } from 'vitest';
import type { ClusterStore } from '../../src/storage/cluster-store.js';
import type { JobStore } from '../../src/storage/job-store.js';
import type { Store } from '../../src/storage/store.js';
import type { ConformanceContext } from './context.js';
import { claimAndStart, ids, leaseOf, newJob } from './helpers.js';

/** Registers the edge-case conformance tests; call inside the provider's `describe`. */
export function describeEdgeCases(ctx: ConformanceContext): void {
  const { hot, archived, processing, statsOf } = ctx;

  describe('claim order across capped and uncapped queues', () => {
    it('takes a priority-100 job of a capped queue before a priority-1 job of an uncapped one', async () => {
      const store = ctx.store();
      await store.queues.updateQueue('capped', { maxWorkers: 5 });
      const [low] = await store.jobs.enqueue([newJob({ queue: 'open', priority: 1 })]);
      const [high] = await store.jobs.enqueue([newJob({ queue: 'capped', priority: 100 })]);
      const first = await store.jobs.claim({ workerId: 'w', limit: 1, queues: null });
      expect(ids(first)).toEqual([high?.id]);
      const both = await store.jobs.claim({ workerId: 'w', limit: 5, queues: ['open', 'capped'] });
      expect(ids(both)).toEqual([low?.id]);
    });

    it('merges capped and uncapped candidates in one order: priority, run-at, id', async () => {
      const store = ctx.store();
      await store.queues.updateQueue('capped', { maxWorkers: 2 });
      const made = await store.jobs.enqueue([
        newJob({ id: 'a-open-5', queue: 'open', priority: 5 }),
        newJob({ id: 'b-capped-9', queue: 'capped', priority: 9 }),
        newJob({ id: 'c-capped-7', queue: 'capped', priority: 7 }),
        newJob({ id: 'd-capped-6', queue: 'capped', priority: 6 }), // beyond the cap of 2
        newJob({ id: 'e-open-8', queue: 'open', priority: 8 }),
      ]);
      expect(made).toHaveLength(5);
      const claimed = await store.jobs.claim({ workerId: 'w', limit: 10, queues: null });
      expect(ids(claimed)).toEqual(['b-capped-9', 'e-open-8', 'c-capped-7', 'a-open-5']);
    });
  });

  describe('claims limited to job types', () => {
    it('claims only the given types, matched without regard to case, and leaves the rest pending', async () => {
      const store = ctx.store();
      await store.jobs.enqueue([
        newJob({ id: 'unknown-1', type: 'other.v2', priority: 50 }),
        newJob({ id: 'known-1', type: 'Mail.Send.V1' }),
        newJob({ id: 'known-2', type: 'report.v1' }),
      ]);
      const claimed = await store.jobs.claim({
        workerId: 'w',
        limit: 10,
        queues: null,
        types: ['mail.send.v1', 'REPORT.V1'],
      });
      expect(ids(claimed).sort()).toEqual(['known-1', 'known-2']);
      expect(await hot('unknown-1')).toMatchObject({ state: 'pending', workerId: null });
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null, types: [] })).toEqual(
        [],
      );
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([
        'unknown-1',
      ]);
    });
  });

  describe('settle', () => {
    it('counts a lease given twice in one call once, by its first occurrence', async () => {
      const store = ctx.store();
      const [job] = await processing('twice', 1);
      if (!job) throw new Error('nothing claimed');
      const lease = leaseOf(job);
      // The first occurrence does not apply (the job is not fetched); the second would, alone.
      expect(
        await store.jobs.settle([
          { kind: 'release', lease },
          { kind: 'archive', lease, durationMs: 5 },
        ]),
      ).toEqual([false, false]);
      expect(await hot(job.id)).toMatchObject({ state: 'processing' });
      // And when the first applies, the second is not applied on top of it.
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease, durationMs: 5 },
          { kind: 'retry', lease, from: 'processing', delayMs: 0, error: 'again' },
        ]),
      ).toEqual([true, false]);
      expect((await store.operator.getJob(job.id))?.where).toBe('archive');
    });

    it('archives a job whose id an archived job had, replacing that row, beside others, counted once', async () => {
      const store = ctx.store();
      const runToArchive = async (jobs: Parameters<JobStore['enqueue']>[0]): Promise<boolean[]> => {
        await store.jobs.enqueue(jobs);
        const started = await claimAndStart(store, { workerId: 'w', limit: 10, queues: ['reuse'] });
        return store.jobs.settle(
          started.map((job) => ({ kind: 'archive' as const, lease: leaseOf(job), durationMs: 1 })),
        );
      };
      const again = newJob({ id: 'reused', queue: 'reuse', payload: '{"run":2}' });
      expect(
        await runToArchive([newJob({ id: 'reused', queue: 'reuse', payload: '{"run":1}' })]),
      ).toEqual([true]);
      expect(await runToArchive([newJob({ id: 'fresh', queue: 'reuse' }), again])).toEqual([
        true,
        true,
      ]);
      expect(await archived('reused')).toMatchObject({ payload: '{"run":2}', attempts: 1 });
      expect(await archived('fresh')).toMatchObject({ queue: 'reuse' });
      expect(await statsOf('reuse')).toMatchObject({ succeededTotal: 3, archived: 2 });
    });
  });

  describe('resurrect', () => {
    it("keeps the failure's error text as the resurrected job's lastError", async () => {
      const store = ctx.store();
      const [job] = await processing('res', 1);
      if (!job) throw new Error('nothing claimed');
      await store.jobs.settle([
        { kind: 'dead', lease: leaseOf(job), reason: 'Fatal', error: 'bad VAT id' },
      ]);
      expect(await store.operator.resurrect([job.id], { actor: 'ops' })).toEqual([job.id]);
      expect(await hot(job.id)).toMatchObject({
        state: 'pending',
        attempts: 0,
        lastError: 'bad VAT id',
        lastModifiedBy: 'ops',
      });
    });
  });

  describe('rescue and idempotency claims', () => {
    it('deletes expired idempotency claims and reports how many', async () => {
      const store = ctx.store();
      const claims = store.idempotencyClaims();
      expect(await claims.begin('order-1', 'job-1', 1)).toEqual({ status: 'claimed' });
      expect(await claims.begin('order-2', 'job-2', 60_000)).toEqual({ status: 'claimed' });
      await ctx.storeTimePasses((await store.cluster.now()).getTime() + 1); // order-1 has expired
      const result = await store.jobs.rescue({
        fetchedTimeoutMs: 60_000,
        processingTimeoutMs: 60_000,
        retryZombieTypes: {},
      });
      expect(result.idempotencyClaimsPurged).toBe(1);
      expect(await claims.purgeExpired()).toBe(0);
      // The live claim is still held.
      expect(await claims.begin('order-2', 'job-3', 60_000)).toEqual({
        status: 'in-progress',
        jobId: 'job-2',
      });
    });
  });

  describe('wake-ups', () => {
    it('wakes listeners of a capped queue when a settle frees one of its slots', async (context) => {
      const store = ctx.store();
      const listen = listenOf(store);
      if (!listen) return context.skip('this provider has no listen()');
      await store.queues.updateQueue('narrow', { maxWorkers: 1 });
      const [job] = await processing('narrow', 1);
      if (!job) throw new Error('nothing claimed');
      const woken: string[] = [];
      const unlisten = await listen((queue) => woken.push(queue));
      try {
        await store.jobs.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 1 }]);
        // The settling store's own listeners are told before settle returns (no NOTIFY trip).
        expect(woken).toContain('narrow');
      } finally {
        await unlisten();
      }
    });
  });
}

/** The store's `listen`, bound, if it has one. */
function listenOf(store: Store): ClusterStore['listen'] {
  return store.cluster.listen?.bind(store);
}
