/**
 * Conformance tests of concurrency keys: a key's limit holds within a batch, against jobs
 * already fetched or processing and across concurrent claimers; keys take turns within a
 * priority; queue caps, priorities, jobs without a key and the DLQ round trip keep working; the
 * archive keeps a job's key and the operator's job views show it in every table.
 * Registered by `describeStoreConformance` in suite.ts for every provider.
 */
import { describe, expect, it } from 'vitest';
import { queryJobs } from '../../../src/operator/jobs.js';
import { checkJobQuery } from '../../../src/operator/query-input.js';
import type { ClaimedJob } from '../../../src/storage/model.js';
import type { ConformanceContext } from '../context.js';
import { ids, leaseOf, newJob } from '../helpers.js';

/** Jobs of `jobs` per concurrency key, as `key:count` sorted (keys looked up by id). */
function perKey(jobs: readonly ClaimedJob[], keyOf: Map<string, string | null>): string[] {
  const counts = new Map<string, number>();
  for (const job of jobs) {
    const key = keyOf.get(job.id) ?? '-';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${key}:${n}`).sort();
}

/** Registers the concurrency-key conformance tests; call inside the provider's `describe`. */
export function describeConcurrencyKeys(ctx: ConformanceContext): void {
  describe('concurrency keys', () => {
    it('claims at most the limit per key in one batch, and jobs without a key freely', async () => {
      const store = ctx.store();
      const jobs = [
        ...Array.from({ length: 5 }, (_, i) =>
          newJob({ id: `a${i}`, queue: 'k', concurrencyKey: 'A', concurrencyLimit: 2 }),
        ),
        ...Array.from({ length: 5 }, (_, i) =>
          newJob({ id: `b${i}`, queue: 'k', concurrencyKey: 'B', concurrencyLimit: 1 }),
        ),
        ...Array.from({ length: 3 }, (_, i) => newJob({ id: `n${i}`, queue: 'k' })),
      ];
      await store.jobs.enqueue(jobs);
      const keyOf = new Map(jobs.map((job) => [job.id, job.concurrencyKey ?? null]));
      const claimed = await store.jobs.claim({ workerId: 'w', limit: 50, queues: null });
      expect(perKey(claimed, keyOf)).toEqual(['-:3', 'A:2', 'B:1']);
      expect(await store.jobs.claim({ workerId: 'w', limit: 50, queues: null })).toEqual([]);

      // Processing jobs count too; finishing one of A frees one slot of A, and only that.
      const started = await store.jobs.start(claimed.map(leaseOf));
      const a = started.find((job) => keyOf.get(job.id) === 'A');
      if (!a) throw new Error('no job of key A started');
      expect(await store.jobs.claim({ workerId: 'w', limit: 50, queues: null })).toEqual([]);
      expect(
        await store.jobs.settle([{ kind: 'archive', lease: leaseOf(a), durationMs: 1 }]),
      ).toEqual([true]);
      expect(
        perKey(await store.jobs.claim({ workerId: 'w', limit: 50, queues: null }), keyOf),
      ).toEqual(['A:1']);
    });

    it('keeps a key limit exact across concurrent claimers', async () => {
      const store = ctx.store();
      const keys = ['k1', 'k2', 'k3'];
      const jobs = keys.flatMap((key) =>
        Array.from({ length: 10 }, () =>
          newJob({ queue: 'race', concurrencyKey: key, concurrencyLimit: 2 }),
        ),
      );
      await store.jobs.enqueue(jobs);
      const keyOf = new Map(jobs.map((job) => [job.id, job.concurrencyKey ?? null]));
      const round = (
        await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            store.jobs.claim({ workerId: `w${i}`, limit: 3, queues: null }),
          ),
        )
      ).flat();
      expect(new Set(ids(round)).size).toBe(round.length);
      const top = await store.jobs.claim({ workerId: 'wz', limit: 50, queues: null });
      expect(perKey([...round, ...top], keyOf)).toEqual(['k1:2', 'k2:2', 'k3:2']);
    });

    it('takes keys in turns within a priority, so a long line does not hold back a short one', async () => {
      const store = ctx.store();
      await store.jobs.enqueue(
        Array.from({ length: 20 }, (_, i) =>
          newJob({ id: `big-${String(i).padStart(2, '0')}`, queue: 'fair', concurrencyKey: 'big' }),
        ),
      );
      await store.jobs.enqueue([
        newJob({ id: 'small-1', queue: 'fair', concurrencyKey: 'small' }),
        newJob({ id: 'small-2', queue: 'fair', concurrencyKey: 'small' }),
        newJob({ id: 'plain-1', queue: 'fair' }),
      ]);
      const first = ids(await store.jobs.claim({ workerId: 'w', limit: 3, queues: null }));
      expect(first.sort()).toEqual(['big-00', 'plain-1', 'small-1']);
      const second = ids(await store.jobs.claim({ workerId: 'w', limit: 3, queues: null }));
      // Turns count the key's jobs already claimed: small's and big's second jobs come next.
      expect(second.sort()).toEqual(['big-01', 'big-02', 'small-2']);
    });

    it('returns a claim in turn order, so a worker running it in order lets keys take turns', async () => {
      const store = ctx.store();
      await store.jobs.enqueue(
        ['big-1', 'big-2', 'big-3'].map((id) =>
          newJob({ id, queue: 'order', concurrencyKey: 'big' }),
        ),
      );
      await store.jobs.enqueue([
        newJob({ id: 'small-1', queue: 'order', concurrencyKey: 'small' }),
        newJob({ id: 'small-2', queue: 'order', concurrencyKey: 'small' }),
      ]);
      const claimed = ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null }));
      expect(claimed).toEqual(['big-1', 'small-1', 'big-2', 'small-2', 'big-3']);
    });

    it('keeps priority first: a higher-priority job of a busy key goes before other keys', async () => {
      const store = ctx.store();
      await store.jobs.enqueue([
        newJob({ id: 'a-1', queue: 'prio', concurrencyKey: 'a', priority: 10 }),
        newJob({ id: 'a-2', queue: 'prio', concurrencyKey: 'a', priority: 50 }),
        newJob({ id: 'b-1', queue: 'prio', concurrencyKey: 'b', priority: 10 }),
      ]);
      const claimed = ids(await store.jobs.claim({ workerId: 'w', limit: 2, queues: null }));
      expect(claimed[0]).toBe('a-2');
      expect(claimed[1]).toBe('b-1');
    });

    it("reads a key's later jobs when its head is not due, or when they come before other heads", async () => {
      const store = ctx.store();
      await store.jobs.enqueue([
        newJob({
          id: 'late-1',
          queue: 'heads',
          concurrencyKey: 'late',
          priority: 50,
          delayMs: 3_600_000,
        }),
        newJob({ id: 'late-2', queue: 'heads', concurrencyKey: 'late' }),
        newJob({ id: 'b-1', queue: 'heads', concurrencyKey: 'b' }),
        newJob({ id: 'b-2', queue: 'heads', concurrencyKey: 'b' }),
      ]);
      const first = ids(await store.jobs.claim({ workerId: 'w', limit: 3, queues: ['heads'] }));
      expect(first.sort()).toEqual(['b-1', 'b-2', 'late-2']);

      // a's second job (priority 10, turn 2) comes before c's head (priority 5, turn 1).
      await store.jobs.enqueue([
        newJob({ id: 'a-1', queue: 'bars', concurrencyKey: 'a' }),
        newJob({ id: 'a-2', queue: 'bars', concurrencyKey: 'a' }),
        newJob({ id: 'c-1', queue: 'bars', concurrencyKey: 'c', priority: 5 }),
      ]);
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 2, queues: ['bars'] }))).toEqual([
        'a-1',
        'a-2',
      ]);
    });

    it('honours the queue cap and the key limit together', async () => {
      const store = ctx.store();
      await store.queues.updateQueue('both', { maxWorkers: 3 });
      await store.jobs.enqueue(
        ['x', 'y'].flatMap((key) =>
          Array.from({ length: 4 }, () =>
            newJob({ queue: 'both', concurrencyKey: key, concurrencyLimit: 2 }),
          ),
        ),
      );
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null })).toHaveLength(3);
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null })).toEqual([]);
    });

    it('stores the key and limit, keeps them through the DLQ and a resurrect', async () => {
      const store = ctx.store();
      const id = await ctx.enqueueOne({
        queue: 'kept',
        concurrencyKey: 'tenant-7',
        concurrencyLimit: 3,
      });
      expect(await ctx.hot(id)).toMatchObject({ concurrencyKey: 'tenant-7', concurrencyLimit: 3 });
      const plain = await ctx.enqueueOne({ queue: 'kept' });
      expect(await ctx.hot(plain)).toMatchObject({ concurrencyKey: null, concurrencyLimit: null });
      await store.jobs.cancel([id], 'tester');
      expect(await ctx.dead(id)).toMatchObject({ concurrencyKey: 'tenant-7', concurrencyLimit: 3 });
      expect(await store.operator.resurrect([id], { actor: 'tester' })).toEqual([id]);
      expect(await ctx.hot(id)).toMatchObject({ concurrencyKey: 'tenant-7', concurrencyLimit: 3 });
    });

    it('counts keyed jobs in the queue gauges, due and scheduled, and their oldest due time', async () => {
      const store = ctx.store();
      await store.jobs.enqueue([
        newJob({ id: 'g-keyed', queue: 'gauged', concurrencyKey: 't1' }),
        newJob({ id: 'g-later', queue: 'gauged', concurrencyKey: 't2', delayMs: 3_600_000 }),
      ]);
      const keyedOnly = (await store.queues.queueGauges()).find((g) => g.queue === 'gauged');
      expect(keyedOnly).toMatchObject({ due: 1, scheduled: 1 });
      const keyedSince = keyedOnly?.oldestDueAt?.getTime() ?? Number.NaN;
      expect(keyedSince).toBe((await ctx.hot('g-keyed')).runAt.getTime());
      await store.jobs.enqueue([newJob({ id: 'g-plain', queue: 'gauged' })]);
      const mixed = (await store.queues.queueGauges()).find((g) => g.queue === 'gauged');
      expect(mixed).toMatchObject({ due: 2, scheduled: 1 });
      expect(mixed?.oldestDueAt?.getTime()).toBe(keyedSince);
    });

    it('keeps the key in the archive, and the job views show it in every table', async () => {
      const store = ctx.store();
      await store.jobs.enqueue([
        newJob({ id: 'kv-done', queue: 'views', concurrencyKey: 'tenant-1', concurrencyLimit: 2 }),
        newJob({ id: 'kv-plain', queue: 'views' }),
        newJob({ id: 'kv-dead', queue: 'views', concurrencyKey: 'tenant-2' }),
        newJob({ id: 'kv-hot', queue: 'views', concurrencyKey: 'tenant-3', delayMs: 3_600_000 }),
      ]);
      const claimed = await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['views'] });
      expect(ids(claimed).sort()).toEqual(['kv-dead', 'kv-done', 'kv-plain']);
      const started = await store.jobs.start(claimed.map(leaseOf));
      const lease = (id: string) => {
        const job = started.find((s) => s.id === id);
        if (!job) throw new Error(`job ${id} did not start`);
        return leaseOf(job);
      };
      await store.jobs.settle([
        { kind: 'archive', lease: lease('kv-done'), durationMs: 1 },
        { kind: 'archive', lease: lease('kv-plain'), durationMs: 1 },
        { kind: 'dead', lease: lease('kv-dead'), reason: 'Fatal', error: 'Error: no' },
      ]);
      expect(await ctx.archived('kv-done')).toMatchObject({ concurrencyKey: 'tenant-1' });
      expect(await ctx.archived('kv-plain')).toMatchObject({ concurrencyKey: null });
      const detail = await store.operator.getJob('kv-done');
      expect(detail?.where === 'archive' && detail.job.concurrencyKey).toBe('tenant-1');

      const page = await queryJobs(store, checkJobQuery({ queue: 'views', limit: 10 }));
      const keys = Object.fromEntries(page.jobs.map((job) => [job.id, job.concurrencyKey]));
      expect(keys).toMatchObject({
        'kv-done': 'tenant-1',
        'kv-plain': null,
        'kv-dead': 'tenant-2',
        'kv-hot': 'tenant-3',
      });
    });
  });
}
