/**
 * Conformance tests of keyed claims over many waiting keys: claims of a few jobs each take keys
 * in turns however many keys wait, past a long line, keys at their limit and heads not yet due at
 * the front (the SQL stores decide such claims from the front of the keyed jobs in claim order
 * when they can, and from every key's line head when they cannot; the memory store reads every
 * line: the results must be the same). And a key's room follows its jobs through every path that
 * moves them — claim, release, retry, archive, dead, rescue of stale and zombie jobs, cancel,
 * resurrect — as the operator's key usage shows.
 * Registered by `describeStoreConformance` in suite.ts for every provider.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimedJob } from '../../../src/storage/model.js';
import type { Store } from '../../../src/storage/store.js';
import type { ConformanceContext } from '../context.js';
import { ids, leaseOf, newJob } from '../helpers.js';

/** Claims up to `limit` jobs of `queue` and returns their ids in claim order. */
async function claimIds(store: Store, queue: string, limit: number): Promise<string[]> {
  return ids(await store.jobs.claim({ workerId: 'w', limit, queues: [queue] }));
}

/** `count` ids `prefix-00`, `prefix-01`, … (sorted as numbered). */
function numbered(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
}

/** Registers the keyed-claim conformance tests; call inside the provider's `describe`. */
export function describeKeyedClaims(ctx: ConformanceContext): void {
  describe('keyed claims over many keys', () => {
    it('takes every key in turn across small claims, a late key’s head before second jobs', async () => {
      const store = ctx.store();
      // Job i of key k(i % 5), enqueued together: one run_at, so ids give the order.
      const jobs = numbered('t', 15).map((id, i) =>
        newJob({ id, queue: 'turns', concurrencyKey: `k${i % 5}`, concurrencyLimit: 3 }),
      );
      await store.jobs.enqueue(jobs);
      await ctx.storeTimePasses(await store.cluster.now());
      // Behind every other job in run-at order, but its turn is 1.
      await store.jobs.enqueue([newJob({ id: 'late-0', queue: 'turns', concurrencyKey: 'late' })]);
      const rounds: string[][] = [];
      for (let round = 0; round < 6; round++) rounds.push(await claimIds(store, 'turns', 2));
      expect(rounds).toEqual([
        ['t-00', 't-01'],
        ['t-02', 't-03'],
        ['t-04', 'late-0'],
        ['t-05', 't-06'],
        ['t-07', 't-08'],
        ['t-09', 't-10'],
      ]);
    });

    it('takes the next keys’ heads before a long line’s second job when the line fills the front', async () => {
      const store = ctx.store();
      await store.jobs.enqueue(
        numbered('hog', 10).map((id) => newJob({ id, queue: 'front', concurrencyKey: 'hog' })),
      );
      await ctx.storeTimePasses(await store.cluster.now());
      await store.jobs.enqueue(
        ['a', 'b', 'c'].map((key) =>
          newJob({ id: `${key}-1`, queue: 'front', concurrencyKey: key }),
        ),
      );
      const order: string[] = [];
      for (let round = 0; round < 6; round++) order.push(...(await claimIds(store, 'front', 1)));
      expect(order).toEqual(['hog-00', 'a-1', 'b-1', 'c-1', 'hog-01', 'hog-02']);
    });

    it('steps over keys at their limit and heads not yet due at the front', async () => {
      const store = ctx.store();
      await store.jobs.enqueue(
        numbered('full', 6).map((id) =>
          newJob({ id, queue: 'blocked', concurrencyKey: 'full', concurrencyLimit: 1 }),
        ),
      );
      expect(await claimIds(store, 'blocked', 1)).toEqual(['full-00']);
      await ctx.storeTimePasses(await store.cluster.now());
      await store.jobs.enqueue(
        numbered('later', 6).map((id) =>
          newJob({
            id,
            queue: 'blocked',
            concurrencyKey: 'later',
            priority: 50,
            delayMs: 3_600_000,
          }),
        ),
      );
      await store.jobs.enqueue(
        ['x', 'y', 'z'].map((key) =>
          newJob({ id: `${key}-1`, queue: 'blocked', concurrencyKey: key }),
        ),
      );
      expect(await claimIds(store, 'blocked', 2)).toEqual(['x-1', 'y-1']);
      expect(await claimIds(store, 'blocked', 5)).toEqual(['z-1']);
    });

    it('keeps priority first across the front: a higher-priority job of a busy key goes first', async () => {
      const store = ctx.store();
      await store.jobs.enqueue(
        numbered('n', 8).map((id, i) =>
          newJob({ id, queue: 'prio-front', concurrencyKey: `k${i % 4}` }),
        ),
      );
      expect(await claimIds(store, 'prio-front', 1)).toEqual(['n-00']);
      await store.jobs.enqueue([
        newJob({ id: 'urgent', queue: 'prio-front', concurrencyKey: 'k0', priority: 50 }),
      ]);
      expect(await claimIds(store, 'prio-front', 2)).toEqual(['urgent', 'n-01']);
    });

    it('frees and holds a key’s room exactly through every path that moves its jobs', async () => {
      const store = ctx.store();
      const queue = 'paths';
      await store.jobs.enqueue(
        numbered('p', 8).map((id) =>
          newJob({ id, queue, concurrencyKey: 'K', concurrencyLimit: 1 }),
        ),
      );
      const usage = async (): Promise<{ running: number; pending: number } | undefined> => {
        const row = (await store.queues.keyUsage({ queue, limit: 10 })).find((u) => u.key === 'K');
        return row && { running: row.running, pending: row.pending };
      };
      /** Claims the key's one job (never two), checks the usage, returns it. */
      const claimOne = async (pending: number): Promise<ClaimedJob> => {
        const claimed = await store.jobs.claim({ workerId: 'w', limit: 5, queues: [queue] });
        expect(claimed).toHaveLength(1);
        expect(await store.jobs.claim({ workerId: 'w2', limit: 5, queues: [queue] })).toEqual([]);
        expect(await usage()).toEqual({ running: 1, pending });
        const [job] = claimed;
        if (!job) throw new Error('unreachable');
        return job;
      };
      const startOne = async (job: ClaimedJob): Promise<ClaimedJob> => {
        const [started] = await store.jobs.start([leaseOf(job)]);
        if (!started) throw new Error(`job ${job.id} did not start`);
        return started;
      };

      // Release (fetched → pending) and retry (processing → pending) give the room back.
      let job = await claimOne(7);
      expect(await store.jobs.settle([{ kind: 'release', lease: leaseOf(job) }])).toEqual([true]);
      job = await startOne(await claimOne(7));
      const retry = {
        kind: 'retry',
        from: 'processing',
        delayMs: 0,
        error: 'Error: again',
      } as const;
      expect(await store.jobs.settle([{ ...retry, lease: leaseOf(job) }])).toEqual([true]);
      // Archive and dead end the run: the next job takes the room.
      job = await startOne(await claimOne(7));
      expect(
        await store.jobs.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 1 }]),
      ).toEqual([true]);
      job = await startOne(await claimOne(6));
      const dead = { kind: 'dead', reason: 'Fatal', error: 'Error: no' } as const;
      expect(await store.jobs.settle([{ ...dead, lease: leaseOf(job) }])).toEqual([true]);
      const deadId = job.id;

      // Rescue: a stale fetched job goes back to pending, a zombie to the DLQ.
      const later = async (): Promise<void> =>
        ctx.storeTimePasses((await store.cluster.now()).getTime() + 60);
      const patient = {
        fetchedTimeoutMs: 60_000,
        processingTimeoutMs: 60_000,
        retryZombieTypes: {},
      };
      await claimOne(5);
      await later();
      expect((await store.jobs.rescue({ ...patient, fetchedTimeoutMs: 50 })).released).toBe(1);
      job = await startOne(await claimOne(5));
      await later();
      const zombies = await store.jobs.rescue({ ...patient, processingTimeoutMs: 50 });
      expect(ids(zombies.dead)).toEqual([job.id]);

      // Cancel: a fetched job goes to the DLQ at once; a processing one carries the request, and
      // once its owner sends it back to pending, rescue cancels it.
      job = await claimOne(4);
      expect(await store.jobs.cancel([job.id], 'tester')).toEqual({
        cancelled: [job.id],
        requested: [],
      });
      job = await startOne(await claimOne(3));
      expect((await store.jobs.cancel([job.id], 'tester')).requested).toEqual([job.id]);
      expect(await usage()).toEqual({ running: 1, pending: 3 });
      expect(await store.jobs.settle([{ ...retry, lease: leaseOf(job) }])).toEqual([true]);
      expect(ids((await store.jobs.rescue(patient)).cancelled)).toEqual([job.id]);
      expect(await usage()).toEqual({ running: 0, pending: 3 });

      // Resurrect brings a dead job back as pending; the key still runs one at a time.
      expect(await store.operator.resurrect([deadId], { actor: 'tester' })).toEqual([deadId]);
      expect(await usage()).toEqual({ running: 0, pending: 4 });
      for (const pending of [3, 2, 1, 0]) {
        job = await startOne(await claimOne(pending));
        expect(
          await store.jobs.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 1 }]),
        ).toEqual([true]);
      }
      expect(await usage()).toBeUndefined();
    });
  });
}
