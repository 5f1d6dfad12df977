/**
 * Conformance: the scheduled state. Jobs due later wait as `scheduled`, out of every claim, until
 * a promoter pass (`JobStore.promote`) moves the due ones to pending; every write that sets a due
 * time (enqueue, retry, circuit reschedule, edit) picks the state from it; operators see, count,
 * cancel and edit scheduled jobs as the waiting jobs they are.
 */
import { describe, expect, it } from 'vitest';
import { countJobs, queryJobs } from '../../../src/operator/jobs.js';
import { checkJobQuery } from '../../../src/operator/query-input.js';
import type { ConformanceContext } from '../context.js';
import { ids, leaseOf, newJob } from '../helpers.js';

/** Registers the scheduled-state tests. */
export function describeScheduledJobs(ctx: ConformanceContext): void {
  const { enqueueOne, hot, dead, statsOf, storeTimePasses } = ctx;

  describe('scheduled jobs', () => {
    it('are never claimed, at any priority, until promoted after their due time', async () => {
      const store = ctx.store();
      const low = await enqueueOne({ queue: 's-claim', priority: 1 });
      const later = await enqueueOne({ queue: 's-claim', priority: 5, delayMs: 400 });
      const high = await enqueueOne({ queue: 's-claim', priority: 9 });
      const farther = await enqueueOne({ queue: 's-claim', priority: 5, delayMs: 60_000 });
      expect((await hot(later)).state).toBe('scheduled');
      expect((await hot(low)).state).toBe('pending');
      expect(
        ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['s-claim'] })),
      ).toEqual([high, low]);
      const early = await store.jobs.promote(100);
      expect(early.promoted).toEqual([]);
      expect(early.nextDueInMs).toBeGreaterThanOrEqual(0);
      expect(early.nextDueInMs).toBeLessThanOrEqual(400);
      await storeTimePasses((await hot(later)).runAt);
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['s-claim'] })).toEqual([]);
      const due = await store.jobs.promote(100);
      expect(due.promoted).toEqual([{ queue: 's-claim', count: 1 }]);
      expect(due.nextDueInMs).toBeGreaterThan(50_000);
      const row = await hot(later);
      expect(row.state).toBe('pending');
      expect(
        ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['s-claim'] })),
      ).toEqual([later]);
      expect((await hot(farther)).state).toBe('scheduled');
    });

    it('are promoted oldest due first, at most the limit per pass', async () => {
      const store = ctx.store();
      const made: string[] = [];
      for (let n = 0; n < 3; n += 1) {
        made.push(await enqueueOne({ queue: n === 1 ? 's-b' : 's-a', delayMs: 50 + n * 10 }));
        await storeTimePasses((await hot(made[n] ?? '')).createdAt);
      }
      await storeTimePasses((await hot(made[2] ?? '')).runAt);
      const first = await store.jobs.promote(2);
      expect(first).toEqual({
        promoted: [
          { queue: 's-a', count: 1 },
          { queue: 's-b', count: 1 },
        ],
        nextDueInMs: 0,
      });
      expect((await hot(made[2] ?? '')).state).toBe('scheduled');
      expect(await store.jobs.promote(2)).toEqual({
        promoted: [{ queue: 's-a', count: 1 }],
        nextDueInMs: null,
      });
      expect(await store.jobs.promote(2)).toEqual({ promoted: [], nextDueInMs: null });
    });

    it('keep their due time and version when promoted, so claim order and bulk snapshots hold', async () => {
      const store = ctx.store();
      const id = await enqueueOne({ queue: 's-keep', delayMs: 30 });
      const versionOf = async (): Promise<number | undefined> => {
        const page = await store.operator.queryTable('hot', {
          ...checkJobQuery({ queue: 's-keep' }).base,
          limit: 10,
        });
        return page.rows.find((row) => row.job.id === id)?.version;
      };
      const before = await hot(id);
      const version = await versionOf();
      await storeTimePasses(before.runAt);
      await store.jobs.promote(10);
      const after = await hot(id);
      expect(after.state).toBe('pending');
      expect(after.runAt.getTime()).toBe(before.runAt.getTime());
      expect(after.updatedAt.getTime()).toBe(before.updatedAt.getTime());
      expect(await versionOf()).toBe(version);
    });

    it('come back from a delayed retry or circuit reschedule; without a delay the job is pending', async () => {
      const store = ctx.store();
      const [a, b] = await ctx.processing('s-retry', 2);
      if (!a || !b) throw new Error('unreachable');
      expect(
        await store.jobs.settle([
          { kind: 'retry', lease: leaseOf(a), from: 'processing', delayMs: 60_000, error: 'x' },
          { kind: 'retry', lease: leaseOf(b), from: 'processing', delayMs: 0, error: 'y' },
        ]),
      ).toEqual([true, true]);
      expect((await hot(a.id)).state).toBe('scheduled');
      expect((await hot(b.id)).state).toBe('pending');
      const [c] = await ctx.fetched('s-circuit', 1);
      if (!c) throw new Error('unreachable');
      expect(
        await store.jobs.settle([
          { kind: 'retry', lease: leaseOf(c), from: 'fetched', delayMs: 5_000, error: 'open' },
        ]),
      ).toEqual([true]);
      expect((await hot(c.id)).state).toBe('scheduled');
    });

    it('are cancelled at once, counted as failed', async () => {
      const store = ctx.store();
      const id = await enqueueOne({ queue: 's-cancel', delayMs: 60_000 });
      expect(await store.jobs.cancel([id], 'alice')).toEqual({ cancelled: [id], requested: [] });
      expect(await dead(id)).toMatchObject({ reason: 'Cancelled' });
      expect(await statsOf('s-cancel')).toMatchObject({ scheduled: 0, dead: 1, failedTotal: 1 });
      expect(await store.jobs.promote(10)).toEqual({ promoted: [], nextDueInMs: null });
    });

    it('that carry a cancel request are cancelled by rescue, not run', async () => {
      const store = ctx.store();
      const [job] = await ctx.processing('s-req', 1);
      if (!job) throw new Error('unreachable');
      expect(await store.jobs.cancel([job.id], 'bob')).toEqual({
        cancelled: [],
        requested: [job.id],
      });
      await store.jobs.settle([
        { kind: 'retry', lease: leaseOf(job), from: 'processing', delayMs: 60_000, error: 'e' },
      ]);
      expect((await hot(job.id)).state).toBe('scheduled');
      const rescued = await store.jobs.rescue({
        fetchedTimeoutMs: 600_000,
        processingTimeoutMs: 600_000,
        retryZombieTypes: {},
      });
      expect(ids(rescued.cancelled)).toEqual([job.id]);
      expect(await dead(job.id)).toMatchObject({ reason: 'Cancelled' });
    });

    it('are edited in place; a new due time picks the state', async () => {
      const store = ctx.store();
      const id = await enqueueOne({ queue: 's-edit', delayMs: 60_000 });
      expect(await store.operator.editPending(id, { actor: 'carol', payload: '{"n":2}' })).toBe(
        true,
      );
      expect(await hot(id)).toMatchObject({ state: 'scheduled', payload: '{"n":2}' });
      expect(await store.operator.editPending(id, { actor: 'carol', delayMs: 0 })).toBe(true);
      expect((await hot(id)).state).toBe('pending');
      expect(await store.operator.editPending(id, { actor: 'carol', delayMs: 60_000 })).toBe(true);
      expect((await hot(id)).state).toBe('scheduled');
      expect(await store.jobs.claim({ workerId: 'w', limit: 5, queues: ['s-edit'] })).toEqual([]);
      expect(await store.operator.editPending(id, { actor: 'carol', delayMs: 0 })).toBe(true);
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 5, queues: ['s-edit'] }))).toEqual([
        id,
      ]);
      expect(await store.operator.editPending(id, { actor: 'carol', priority: 3 })).toBe(false);
    });

    it('go back to pending, due now, when resurrected', async () => {
      const store = ctx.store();
      const id = await enqueueOne({ queue: 's-res', delayMs: 60_000 });
      await store.jobs.cancel([id], 'dave');
      expect(await store.operator.resurrect([id], { actor: 'dave' })).toEqual([id]);
      expect((await hot(id)).state).toBe('pending');
    });

    it('are counted apart from pending jobs; due ones not yet promoted count as due', async () => {
      const store = ctx.store();
      await enqueueOne({ queue: 's-count' });
      const soon = await enqueueOne({ queue: 's-count', delayMs: 30 });
      await enqueueOne({ queue: 's-count', delayMs: 60_000 });
      await enqueueOne({ queue: 's-count', delayMs: 60_000 });
      expect(await statsOf('s-count')).toMatchObject({ pending: 1, scheduled: 3 });
      await storeTimePasses((await hot(soon)).runAt);
      const gauges = (await store.queues.queueGauges()).find((g) => g.queue === 's-count');
      expect(gauges).toMatchObject({ due: 2, scheduled: 2 });
      expect(gauges?.oldestDueAt).not.toBeNull();
      await store.jobs.promote(10);
      expect(await statsOf('s-count')).toMatchObject({ pending: 2, scheduled: 2 });
      expect((await store.queues.queueGauges()).find((g) => g.queue === 's-count')).toMatchObject({
        due: 2,
        scheduled: 2,
      });
    });

    it('are listed, queried and counted by state', async () => {
      const store = ctx.store();
      const now = await enqueueOne({ queue: 's-query' });
      const later = await enqueueOne({ queue: 's-query', delayMs: 60_000 });
      expect(
        ids(await store.operator.listHot({ queue: 's-query', state: 'scheduled', limit: 10 })),
      ).toEqual([later]);
      const page = async (state: 'scheduled' | 'pending') =>
        ids((await queryJobs(store, checkJobQuery({ queue: 's-query', state }))).jobs);
      expect(await page('scheduled')).toEqual([later]);
      expect(await page('pending')).toEqual([now]);
      const all = await queryJobs(store, checkJobQuery({ queue: 's-query' }));
      expect(all.jobs.map((j) => [j.id, j.state])).toEqual([
        [later, 'scheduled'],
        [now, 'pending'],
      ]);
      expect(await countJobs(store, checkJobQuery({ state: 'scheduled' }))).toEqual({
        count: 1,
        exact: true,
      });
    });

    it('hold no place in a concurrency key line until promoted', async () => {
      const store = ctx.store();
      const key = { queue: 's-key', concurrencyKey: 'k', concurrencyLimit: 1 };
      const later = await enqueueOne({ ...key, delayMs: 60_000 });
      const now = await enqueueOne(key);
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 5, queues: ['s-key'] }))).toEqual([
        now,
      ]);
      expect(await store.queues.keyUsage({ queue: 's-key', limit: 10 })).toMatchObject([
        { key: 'k', running: 1, pending: 1 },
      ]);
      expect((await hot(later)).state).toBe('scheduled');
      await store.jobs.enqueue([newJob({ ...key, id: 's-key-3' })]);
      expect(await store.jobs.claim({ workerId: 'w', limit: 5, queues: ['s-key'] })).toEqual([]);
    });
  });
}
