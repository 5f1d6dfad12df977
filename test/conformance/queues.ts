/**
 * Conformance of the `QueueStore`: queue controls upserted keeping absent fields, every known
 * queue listed, per-queue counts by state (`queueStats`), the lifetime counters and metric
 * buckets that settles move in the same transaction (exact under concurrency, never decremented,
 * one bucket per outcome), and the queue gauges (due, scheduled, fetched, processing and dead jobs,
 * the oldest due job, the pause). Registered by `describeStoreConformance` (suite.ts).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { MetricBucket } from '../../src/storage/queue-store.js';
import type { Store } from '../../src/storage/store.js';
import type { ConformanceContext } from './context.js';
import { ids, leaseOf, newJob, stackOf } from './helpers.js';

/** Registers the queue-store conformance tests; call inside the provider's `describe`. */
export function describeQueueStore(ctx: ConformanceContext): void {
  const {
    enqueueOne,
    enqueueMany,
    hot,
    processing,
    toDead,
    failToDead,
    statsOf,
    bucketsOf,
    storeTimePasses,
  } = ctx;

  /** The current test's store: the suite opens a new one before each test. */
  let store: Store;
  beforeEach(() => {
    store = ctx.store();
  });

  describe('queues', () => {
    it('upserts queue controls and keeps absent fields', async () => {
      const created = await store.queues.updateQueue('uq', { maxWorkers: 3 });
      expect(created).toMatchObject({
        name: 'uq',
        paused: false,
        active: true,
        maxWorkers: 3,
        zombieTimeoutSeconds: null,
      });
      expect(created.updatedAt).toBeInstanceOf(Date);
      expect(await store.queues.updateQueue('uq', { paused: true })).toMatchObject({
        paused: true,
        maxWorkers: 3,
      });
      expect(
        await store.queues.updateQueue('uq', { zombieTimeoutSeconds: 30, maxWorkers: null }),
      ).toMatchObject({
        paused: true,
        active: true,
        maxWorkers: null,
        zombieTimeoutSeconds: 30,
      });
      const last = await store.queues.updateQueue('uq', { active: false });
      expect(last).toMatchObject({
        paused: true,
        active: false,
        maxWorkers: null,
        zombieTimeoutSeconds: 30,
      });
      expect(await store.queues.updateQueue('uq', {})).toMatchObject({
        name: 'uq',
        paused: true,
        active: false,
        maxWorkers: null,
        zombieTimeoutSeconds: 30,
      });
      const listed = (await store.queues.listQueues()).find((q) => q.name === 'uq');
      expect(listed).toMatchObject({
        paused: true,
        active: false,
        maxWorkers: null,
        zombieTimeoutSeconds: 30,
      });

      // Enqueueing into a configured queue keeps its controls.
      await enqueueOne({ queue: 'uq' });
      expect((await store.queues.listQueues()).find((q) => q.name === 'uq')).toMatchObject({
        paused: true,
        active: false,
        zombieTimeoutSeconds: 30,
      });
    });

    it('lists every known queue by name, including default', async () => {
      await store.queues.updateQueue('mango', { paused: true });
      await store.queues.updateQueue('banana', {});
      await enqueueOne({ queue: 'zebra' });
      await enqueueOne({ queue: 'apple' });
      const names = (await store.queues.listQueues()).map((q) => q.name);
      expect(names).toEqual(['apple', 'banana', 'default', 'mango', 'zebra']);
    });

    it('counts jobs per queue and state', async () => {
      await store.queues.updateQueue('idle', {});
      await enqueueMany('st', 6);
      const claimedRows = await store.jobs.claim({ workerId: 'w', limit: 5, queues: ['st'] });
      expect(claimedRows).toHaveLength(5);
      const started = await store.jobs.start(claimedRows.slice(0, 4).map(leaseOf));
      const [a, b, c] = started;
      if (!a || !b || !c) throw new Error('unreachable');
      await store.jobs.settle([
        { kind: 'archive', lease: leaseOf(a), durationMs: 1 },
        { kind: 'dead', lease: leaseOf(b), reason: 'Fatal', error: 'x' },
        { kind: 'retry', lease: leaseOf(c), from: 'processing', delayMs: 60_000, error: 'later' },
      ]);
      await enqueueOne({ queue: 'other' });

      const stats = await store.queues.queueStats();
      expect(stats.map((s) => s.queue)).toEqual(
        (await store.queues.listQueues()).map((q) => q.name),
      );
      expect(stats.map((s) => s.queue)).toEqual(['default', 'idle', 'other', 'st']);
      expect(await statsOf('st')).toMatchObject({
        pending: 1,
        scheduled: 1,
        fetched: 1,
        processing: 1,
        archived: 1,
        dead: 1,
        succeededTotal: 1,
        failedTotal: 1,
        retriedTotal: 1,
      });
      expect((await statsOf('st')).lastActivityAt).toBeInstanceOf(Date);
      expect(await statsOf('other')).toMatchObject({ pending: 1, fetched: 0, processing: 0 });
      expect(await statsOf('idle')).toMatchObject({
        pending: 0,
        fetched: 0,
        processing: 0,
        archived: 0,
        dead: 0,
        succeededTotal: 0,
        failedTotal: 0,
        retriedTotal: 0,
      });
    });
  });

  describe('counters and metric buckets', () => {
    it('keeps exact lifetime counters under concurrent settles, never decremented', async () => {
      const jobs = await processing('cnt', 27);
      const archives = jobs.slice(0, 20);
      const deaths = jobs.slice(20, 24);
      const retries = jobs.slice(24);
      const results = await Promise.all([
        ...archives.map((job) =>
          store.jobs.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 3 }]),
        ),
        ...deaths.map((job) =>
          store.jobs.settle([
            { kind: 'dead', lease: leaseOf(job), reason: 'Transient', error: 'e' },
          ]),
        ),
        ...retries.map((job) =>
          store.jobs.settle([
            { kind: 'retry', lease: leaseOf(job), from: 'processing', delayMs: 0, error: 'r' },
          ]),
        ),
      ]);
      expect(results.flat()).toEqual(Array.from({ length: 27 }, () => true));
      expect(await statsOf('cnt')).toMatchObject({
        queue: 'cnt',
        pending: 3,
        fetched: 0,
        processing: 0,
        archived: 20,
        dead: 4,
        succeededTotal: 20,
        failedTotal: 4,
        retriedTotal: 3,
      });
      expect((await statsOf('cnt')).lastActivityAt).toBeInstanceOf(Date);

      const deadIds = ids(deaths);
      expect(await store.operator.purgeDead(deadIds.slice(0, 2))).toBe(2);
      expect(await store.operator.resurrect([deadIds[2] ?? ''], { actor: 'ops' })).toEqual([
        deadIds[2],
      ]);
      expect(await statsOf('cnt')).toMatchObject({
        pending: 4,
        archived: 20,
        dead: 1,
        succeededTotal: 20,
        failedTotal: 4,
        retriedTotal: 3,
      });
    });

    it('records one bucket per outcome with durations for successes', async () => {
      const [a, b, c, d] = await processing('mb', 4);
      if (!a || !b || !c || !d) throw new Error('unreachable');
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease: leaseOf(a), durationMs: 120 },
          { kind: 'archive', lease: leaseOf(b), durationMs: 80 },
          { kind: 'dead', lease: leaseOf(c), reason: 'Timeout', error: 'slow' },
          { kind: 'retry', lease: leaseOf(d), from: 'processing', delayMs: 0, error: 'again' },
        ]),
      ).toEqual([true, true, true, true]);

      const check = async (): Promise<void> => {
        const buckets = await bucketsOf('mb');
        for (const bucket of buckets) {
          expect(bucket.bucketStart).toBeInstanceOf(Date);
          expect(bucket.bucketStart.getTime() % 1000).toBe(0);
        }
        const times = buckets.map((bucket) => bucket.bucketStart.getTime());
        expect(times).toEqual([...times].sort((x, y) => y - x));
        const successes = buckets.filter((bucket) => bucket.outcome === 'succeeded');
        const failures = buckets.filter((bucket) => bucket.outcome === 'failed');
        expect(successes.length + failures.length).toBe(buckets.length);
        const sum = (rows: MetricBucket[], pick: (row: MetricBucket) => number): number =>
          rows.reduce((total, row) => total + pick(row), 0);
        expect(successes.every((bucket) => bucket.reason === null)).toBe(true);
        expect(sum(successes, (r) => r.count)).toBe(2);
        expect(sum(successes, (r) => r.durationCount)).toBe(2);
        expect(sum(successes, (r) => r.totalDurationMs)).toBe(200);
        expect(Math.max(...successes.map((r) => r.maxDurationMs ?? 0))).toBe(120);
        expect(failures.every((bucket) => bucket.reason === 'Timeout')).toBe(true);
        expect(sum(failures, (r) => r.count)).toBe(1);
        expect(sum(failures, (r) => r.durationCount)).toBe(0);
        expect(failures.every((bucket) => bucket.maxDurationMs === null)).toBe(true);
      };
      await check();

      // Resurrect and purge leave buckets alone.
      expect(await store.operator.resurrect([c.id], { actor: 'ops' })).toEqual([c.id]);
      const other = await toDead('mb-other', 'Fatal');
      expect(await store.operator.purgeDead([other])).toBe(1);
      await check();
      const otherBuckets = await bucketsOf('mb-other');
      expect(otherBuckets.map((bucket) => [bucket.outcome, bucket.reason, bucket.count])).toEqual([
        ['failed', 'Fatal', 1],
      ]);

      const future = new Date((await store.cluster.now()).getTime() + 60_000);
      expect(await store.queues.metricBuckets(future)).toEqual([]);
    });
  });

  describe('queue gauges', () => {
    it('count due, scheduled, fetched, processing and dead jobs per queue and find the oldest due job', async () => {
      const store = ctx.store();
      // Oldest first, but at a low priority: the claim order would not show it first.
      const low = newJob({ queue: 'gauge', priority: -5 });
      await store.jobs.enqueue([low]);
      await storeTimePasses((await hot(low.id)).runAt);
      await store.jobs.enqueue([
        newJob({ queue: 'gauge', priority: 50 }),
        newJob({ queue: 'gauge', priority: 10 }),
        newJob({ queue: 'gauge', delayMs: 3_600_000 }),
      ]);
      await ctx.fetched('gauge-busy', 2);
      await processing('gauge-busy', 1);
      await failToDead('gauge-busy', stackOf('boom'));
      const gauges = await store.queues.queueGauges();
      const byQueue = new Map(gauges.map((g) => [g.queue, g]));
      expect(gauges.map((g) => g.queue)).toEqual([...gauges.map((g) => g.queue)].sort());
      expect(byQueue.get('gauge')).toMatchObject({
        paused: false,
        active: true,
        due: 3,
        scheduled: 1,
        fetched: 0,
        processing: 0,
        dead: 0,
        oldestDueAt: (await hot(low.id)).runAt,
      });
      expect(byQueue.get('gauge-busy')).toMatchObject({
        due: 0,
        scheduled: 0,
        fetched: 2,
        processing: 1,
        dead: 1,
        oldestDueAt: null,
      });
      const read = byQueue.get('gauge')!.readAt;
      expect(read.getTime()).toBeGreaterThanOrEqual((await hot(low.id)).runAt.getTime());
    });

    it('reads nothing due for a queue whose only pending job is scheduled later, and its pause', async () => {
      const store = ctx.store();
      await store.jobs.enqueue([newJob({ queue: 'gauge-later', delayMs: 3_600_000 })]);
      await store.queues.updateQueue('gauge-later', { paused: true });
      const gauge = (await store.queues.queueGauges()).find((g) => g.queue === 'gauge-later');
      expect(gauge).toMatchObject({ paused: true, due: 0, scheduled: 1, oldestDueAt: null });
    });
  });
}
