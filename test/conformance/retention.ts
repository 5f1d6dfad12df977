/**
 * Conformance of the retention verbs: `purgeBatch` deletes the expired rows of one table (only
 * those, oldest first, at most `limit`), honours a rule's queue, takes DLQ rows out of their error
 * groups and leaves the lifetime counters alone; `countPurgeable` agrees. The lease that lets one
 * process run the purge is the cluster store's (cluster.ts). Registered by
 * `describeStoreConformance` in suite.ts.
 */
import { describe, expect, it } from 'vitest';
import type { HotJob } from '../../src/storage/model.js';
import { leaseOf } from './helpers.js';
import type { ConformanceContext } from './context.js';

/** Registers the retention conformance tests; call inside the provider's `describe`. */
export function describeRetention(ctx: ConformanceContext): void {
  const { archived, processing, storeTimePasses } = ctx;

  async function archive(jobs: HotJob[]): Promise<void> {
    const store = ctx.store();
    await store.jobs.settle(
      jobs.map((job) => ({ kind: 'archive', lease: leaseOf(job), durationMs: 1 })),
    );
  }

  describe('retention', () => {
    it('purges expired archive rows in batches, oldest first, and only expired ones', async () => {
      const store = ctx.store();
      const old = await processing('r-arch', 5);
      await archive(old);
      const lastOld = await archived(old.at(-1)!.id);
      await storeTimePasses(lastOld.finishedAt.getTime() + 400);
      const fresh = await processing('r-arch', 2);
      await archive(fresh);
      // The fresh rows are younger than a minute: nothing of theirs goes.
      expect(await store.retention.countPurgeable({ table: 'archive', olderThanMs: 60_000 })).toBe(
        0,
      );
      expect(await store.retention.purgeBatch({ table: 'archive', olderThanMs: 60_000 }, 10)).toBe(
        0,
      );
      // Rows older than the fresh ones' age go: the five old ones, two per batch.
      const freshRow = await archived(fresh[0]!.id);
      const now = await store.cluster.now();
      // Half-way between the two ages, so the few milliseconds the batches take change nothing.
      const cut = now.getTime() - freshRow.finishedAt.getTime() + 200;
      expect(await store.retention.countPurgeable({ table: 'archive', olderThanMs: cut })).toBe(5);
      const batches = [];
      for (let i = 0; i < 4; i++)
        batches.push(await store.retention.purgeBatch({ table: 'archive', olderThanMs: cut }, 2));
      expect(batches).toEqual([2, 2, 1, 0]);
      const left = await store.operator.queryTable('archive', {
        queues: ['r-arch'],
        sort: 'createdAt',
        order: 'asc',
        limit: 100,
        scanLimit: 100,
      });
      expect(left.rows.map((r) => r.job.id).sort()).toEqual(fresh.map((j) => j.id).sort());
      // Lifetime counters count the purged jobs still.
      expect((await ctx.statsOf('r-arch')).succeededTotal).toBe(7);
    });

    it("honours a rule's queue, or its excepted queues", async () => {
      const store = ctx.store();
      const a = await processing('r-qa', 2);
      const b = await processing('r-qb', 3);
      await archive([...a, ...b]);
      await storeTimePasses((await archived(b.at(-1)!.id)).finishedAt.getTime() + 5);
      const rule = { table: 'archive' as const, olderThanMs: 1 };
      expect(await store.retention.countPurgeable({ ...rule, queue: 'r-qa' })).toBe(2);
      expect(
        await store.retention.purgeBatch({ ...rule, exceptQueues: ['r-qa'] }, 100),
      ).toBeGreaterThanOrEqual(3);
      expect(await store.retention.countPurgeable({ ...rule, queue: 'r-qb' })).toBe(0);
      expect(await store.retention.purgeBatch({ ...rule, queue: 'r-qa' }, 100)).toBe(2);
    });

    it('takes purged DLQ rows out of their error groups', async () => {
      const store = ctx.store();
      const jobs = await processing('r-dlq', 3);
      await store.jobs.settle(
        jobs.map((job) => ({
          kind: 'dead',
          lease: leaseOf(job),
          reason: 'Fatal',
          error: 'TypeError: card 42 declined\n    at pay (/srv/app/pay.js:1:1)',
        })),
      );
      expect(await store.operator.errorGroups({ queues: ['r-dlq'], limit: 10 })).toMatchObject([
        { count: 3 },
      ]);
      const last = await ctx.dead(jobs.at(-1)!.id);
      await storeTimePasses(last.failedAt.getTime() + 5);
      expect(
        await store.retention.purgeBatch({ table: 'dlq', olderThanMs: 1, queue: 'r-dlq' }, 2),
      ).toBe(2);
      expect(await store.operator.errorGroups({ queues: ['r-dlq'], limit: 10 })).toMatchObject([
        { count: 1 },
      ]);
      expect(
        await store.retention.purgeBatch({ table: 'dlq', olderThanMs: 1, queue: 'r-dlq' }, 2),
      ).toBe(1);
      expect(await store.operator.errorGroups({ queues: ['r-dlq'], limit: 10 })).toEqual([]);
      expect((await ctx.statsOf('r-dlq')).failedTotal).toBe(3);
    });

    it('drops an emptied error group once its last failure is older than the age', async () => {
      const store = ctx.store();
      const error = 'RangeError: quota 7 exceeded\n    at send (/srv/app/mail.js:1:1)';
      const kill = async (): Promise<Date> => {
        const [job] = await processing('r-prune', 1);
        await store.jobs.settle([{ kind: 'dead', lease: leaseOf(job!), reason: 'Fatal', error }]);
        return (await ctx.dead(job!.id)).failedAt;
      };
      const firstSeen = async (): Promise<Date | undefined> =>
        (await store.operator.errorGroups({ queues: ['r-prune'], limit: 10 }))[0]?.firstSeen;
      const purgeAll = async (olderThanMs: number): Promise<number> =>
        store.retention.purgeBatch({ table: 'dlq', olderThanMs, queue: 'r-prune' }, 10);

      const first = await kill();
      await storeTimePasses(first.getTime() + 5);
      expect(await purgeAll(1)).toBe(1);
      // Emptied, but its last failure is younger than a minute: the group stays, and a new failure
      // of it keeps the first one's time.
      expect(await purgeAll(60_000)).toBe(0);
      const second = await kill();
      expect(second.getTime()).toBeGreaterThan(first.getTime());
      expect(await firstSeen()).toEqual(first);
      await storeTimePasses(second.getTime() + 5);
      expect(await purgeAll(1)).toBe(1);
      // The batch that empties a group leaves it; the next one drops it (its last failure is
      // older than 1 ms), so a new failure starts the group afresh.
      expect(await purgeAll(1)).toBe(0);
      const third = await kill();
      expect(await firstSeen()).toEqual(third);
      expect((await ctx.statsOf('r-prune')).failedTotal).toBe(3);
    });

    it('purges metric buckets and audit entries by age', async () => {
      const store = ctx.store();
      const jobs = await processing('r-met', 1);
      await archive(jobs);
      await store.bulk.recordAction({
        id: `audit-${Math.random()}`,
        actor: 'op',
        action: 'edit',
        reason: null,
        target: {},
        outcome: {},
      });
      await storeTimePasses((await store.cluster.now()).getTime() + 1100);
      expect(
        await store.retention.countPurgeable({ table: 'metricBuckets', olderThanMs: 1000 }),
      ).toBeGreaterThan(0);
      expect(
        await store.retention.purgeBatch({ table: 'metricBuckets', olderThanMs: 1000 }, 1000),
      ).toBeGreaterThan(0);
      expect(await store.queues.metricBuckets(new Date(0))).toEqual([]);
      expect(await store.retention.purgeBatch({ table: 'audit', olderThanMs: 1000 }, 1000)).toBe(1);
      expect(await store.bulk.listActions(10)).toEqual([]);
    });
  });
}
