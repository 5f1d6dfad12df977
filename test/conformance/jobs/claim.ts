/**
 * Conformance of `JobStore.claim` and `JobStore.start`: which due jobs a claim takes (order by
 * priority, due time and id, across capped and uncapped queues alike; only listed queues and job
 * types; never a paused, inactive or not yet due queue or job), `maxWorkers` exact within a batch
 * and across concurrent claimers, one claimer per job, one lease token per batch, and the start
 * that moves a fetched job to processing under its lease and counts the attempt. Concurrency keys
 * are concurrency-keys.ts and keyed-claims.ts. Registered by `describeJobStore` (index.ts).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/storage/store.js';
import type { ConformanceContext } from '../context.js';
import { ids, leaseOf, newJob, sorted } from '../helpers.js';

/** Registers the claim and start conformance tests; call inside the provider's `describe`. */
export function describeClaims(ctx: ConformanceContext): void {
  const { enqueueOne, enqueueMany, hot, fetched, storeTimePasses } = ctx;

  /** The current test's store: the suite opens a new one before each test. */
  let store: Store;
  beforeEach(() => {
    store = ctx.store();
  });

  describe('claim', () => {
    it('claims due pending jobs as fetched, with one lease token per batch', async () => {
      const enqueued = await enqueueMany('c', 3);
      const rows = await store.jobs.claim({ workerId: 'worker-a', limit: 10, queues: null });
      expect(sorted(ids(rows))).toEqual(sorted(enqueued));
      const token = rows[0]?.leaseToken;
      expect(typeof token).toBe('string');
      for (const row of rows) {
        expect(row).toMatchObject({
          state: 'fetched',
          workerId: 'worker-a',
          leaseToken: token,
          attempts: 0,
        });
        expect(await hot(row.id)).toMatchObject({
          state: 'fetched',
          workerId: 'worker-a',
          leaseToken: token,
          attempts: 0,
        });
      }
      expect(await store.jobs.claim({ workerId: 'worker-a', limit: 10, queues: null })).toEqual([]);

      await enqueueOne({ queue: 'c' });
      const [next] = await store.jobs.claim({ workerId: 'worker-a', limit: 10, queues: null });
      expect(next?.leaseToken).toEqual(expect.any(String));
      expect(next?.leaseToken).not.toBe(token);
    });

    it('claims every job fetched, in claim order, for the worker to start', async () => {
      await enqueueOne({ id: 'low', queue: 's', priority: 1 });
      await enqueueOne({ id: 'high', queue: 's', priority: 50 });
      const rows = await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['s'] });
      expect(rows.map((r) => [r.id, r.state, r.attempts])).toEqual([
        ['high', 'fetched', 0],
        ['low', 'fetched', 0],
      ]);
      expect((await hot('high'))?.startedAt).toBeNull();
    });

    it('returns nothing from an empty store and respects the limit', async () => {
      expect(await store.jobs.claim({ workerId: 'w', limit: 5, queues: null })).toEqual([]);
      await enqueueMany('lim', 5);
      expect(await store.jobs.claim({ workerId: 'w', limit: 2, queues: null })).toHaveLength(2);
      expect(await store.jobs.claim({ workerId: 'w', limit: 1, queues: null })).toHaveLength(1);
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null })).toHaveLength(2);
    });

    it('does not claim a delayed job before it is due', async () => {
      const before = await store.cluster.now();
      const due = await enqueueOne({ queue: 'd' });
      const later = await enqueueOne({ queue: 'd', delayMs: 300 });
      const row = await hot(later);
      const delay = row.runAt.getTime() - row.createdAt.getTime();
      expect(delay).toBeGreaterThanOrEqual(299);
      expect(delay).toBeLessThanOrEqual(400);
      expect(row.runAt.getTime()).toBeGreaterThanOrEqual(before.getTime() + 299);

      expect(row.state).toBe('scheduled');
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([
        due,
      ]);
      expect(await store.jobs.promote(100)).toMatchObject({ promoted: [] });
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null })).toEqual([]);
      await storeTimePasses(row.runAt);
      // Due, but still scheduled: only the promoter makes it claimable.
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null })).toEqual([]);
      expect(await store.jobs.promote(100)).toEqual({
        promoted: [{ queue: 'd', count: 1 }],
        nextDueInMs: null,
      });
      expect((await hot(later)).state).toBe('pending');
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([
        later,
      ]);
    });

    it('orders by priority, then runAt, then id', async () => {
      await store.jobs.enqueue([
        newJob({ id: 'ord-3', priority: 5 }),
        newJob({ id: 'ord-1', priority: 5 }),
        newJob({ id: 'ord-neg', priority: -3 }),
      ]);
      await storeTimePasses((await hot('ord-3')).runAt); // each batch is due later than the last
      await store.jobs.enqueue([
        newJob({ id: 'ord-2', priority: 5 }),
        newJob({ id: 'ord-hi', priority: 9 }),
      ]);
      await storeTimePasses((await hot('ord-2')).runAt);
      await store.jobs.enqueue([newJob({ id: 'ord-0', priority: 5 })]);

      const rows = await Promise.all(
        ['ord-3', 'ord-1', 'ord-neg', 'ord-2', 'ord-hi', 'ord-0'].map((id) => hot(id)),
      );
      const expected = [...rows]
        .sort(
          (x, y) =>
            y.priority - x.priority ||
            x.runAt.getTime() - y.runAt.getTime() ||
            (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
        )
        .map((row) => row.id);
      expect(expected[0]).toBe('ord-hi');
      expect(expected.at(-1)).toBe('ord-neg');
      // The later batches are due later, so runAt decides before the id does.
      expect(expected.indexOf('ord-2')).toBeGreaterThan(expected.indexOf('ord-3'));
      expect(expected.indexOf('ord-0')).toBeGreaterThan(expected.indexOf('ord-2'));

      const claimedOrder: string[] = [];
      for (let i = 0; i < 6; i += 1) {
        const batch = await store.jobs.claim({ workerId: 'w', limit: 1, queues: null });
        expect(batch).toHaveLength(1);
        claimedOrder.push(...ids(batch));
      }
      expect(claimedOrder).toEqual(expected);
    });

    it('puts a delayed job that became due earlier before a newer immediate job', async () => {
      const delayed = await enqueueOne({ delayMs: 100 });
      await storeTimePasses((await hot(delayed)).runAt);
      const immediate = await enqueueOne();
      const notDue = await enqueueOne({ delayMs: 5_000, priority: 100 });
      const promoted = await store.jobs.promote(100);
      expect(promoted.promoted).toEqual([{ queue: 'default', count: 1 }]);
      expect(promoted.nextDueInMs).toBeGreaterThan(4_000);
      expect(promoted.nextDueInMs).toBeLessThanOrEqual(5_000);
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 1, queues: null }))).toEqual([
        delayed,
      ]);
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 1, queues: null }))).toEqual([
        immediate,
      ]);
      expect(await store.jobs.claim({ workerId: 'w', limit: 1, queues: null })).toEqual([]);
      expect((await hot(notDue)).state).toBe('scheduled');
    });

    it('skips a paused queue until it is resumed', async () => {
      await store.queues.updateQueue('p', { paused: true });
      const job = await enqueueOne({ queue: 'p' });
      const other = await enqueueOne({ queue: 'open' });
      expect((await store.queues.listQueues()).find((q) => q.name === 'p')?.paused).toBe(true);
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([
        other,
      ]);
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['p'] })).toEqual([]);

      // Pausing a queue that already has jobs works the same.
      await store.queues.updateQueue('p', { paused: false });
      await store.queues.updateQueue('open', { paused: true });
      const blocked = await enqueueOne({ queue: 'open' });
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([
        job,
      ]);
      expect((await hot(blocked)).state).toBe('pending');
      await store.queues.updateQueue('open', { paused: false });
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([
        blocked,
      ]);
    });

    it('never claims from an inactive queue', async () => {
      await store.queues.updateQueue('hidden', { active: false });
      const job = await enqueueOne({ queue: 'hidden' });
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null })).toEqual([]);
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['hidden'] })).toEqual([]);
      await store.queues.updateQueue('hidden', { active: true });
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['hidden'] }))).toEqual(
        [job],
      );
    });

    it('claims only from the listed queues', async () => {
      const a = await enqueueOne({ queue: 'qa' });
      const b = await enqueueOne({ queue: 'qb' });
      const c = await enqueueOne({ queue: 'qc' });
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: [] })).toEqual([]);
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['nope'] })).toEqual([]);
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['qb'] }))).toEqual([
        b,
      ]);
      expect(
        sorted(ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['qa', 'qc'] }))),
      ).toEqual(sorted([a, c]));
    });

    it('caps a queue at maxWorkers within one batch', async () => {
      await store.queues.updateQueue('L', { maxWorkers: 2 });
      await enqueueMany('L', 10);
      const q = await enqueueOne({ queue: 'Q' });
      const rows = await store.jobs.claim({ workerId: 'w', limit: 10, queues: null });
      expect(rows.filter((r) => r.queue === 'L')).toHaveLength(2);
      expect(ids(rows.filter((r) => r.queue === 'Q'))).toEqual([q]);
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null })).toEqual([]);

      // Processing rows count against the cap too; finishing one frees one slot.
      const started = await store.jobs.start(rows.filter((r) => r.queue === 'L').map(leaseOf));
      expect(started).toHaveLength(2);
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null })).toEqual([]);
      const [first] = started;
      if (!first) throw new Error('unreachable');
      expect(
        await store.jobs.settle([{ kind: 'archive', lease: leaseOf(first), durationMs: 1 }]),
      ).toEqual([true]);
      const next = await store.jobs.claim({ workerId: 'w', limit: 10, queues: null });
      expect(next.map((r) => r.queue)).toEqual(['L']);
    });

    it('keeps maxWorkers exact across concurrent claimers', async () => {
      await store.queues.updateQueue('bulk', { maxWorkers: 5 });
      await enqueueMany('bulk', 50);
      const active = async (): Promise<number> =>
        (await store.operator.listHot({ queue: 'bulk', state: 'fetched', limit: 100 })).length +
        (await store.operator.listHot({ queue: 'bulk', state: 'processing', limit: 100 })).length;

      const round = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.jobs.claim({ workerId: `w${i}`, limit: 3, queues: null }),
        ),
      );
      const first = round.flat();
      expect(first.length).toBeGreaterThan(0);
      expect(first.length).toBeLessThanOrEqual(5);
      expect(new Set(ids(first)).size).toBe(first.length);
      expect(await active()).toBe(first.length);
      const topUp = await store.jobs.claim({ workerId: 'wz', limit: 10, queues: null });
      expect(first.length + topUp.length).toBe(5);
      expect(await active()).toBe(5);

      // Start everything, finish two: exactly two slots open, even under concurrency.
      const leases = [...round, topUp].filter((batch) => batch.length > 0);
      const started = (
        await Promise.all(leases.map((batch) => store.jobs.start(batch.map(leaseOf))))
      ).flat();
      expect(started).toHaveLength(5);
      const finished = started.slice(0, 2);
      expect(
        await store.jobs.settle(
          finished.map((job) => ({ kind: 'archive', lease: leaseOf(job), durationMs: 1 })),
        ),
      ).toEqual([true, true]);
      const second = (
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.jobs.claim({ workerId: `v${i}`, limit: 3, queues: null }),
          ),
        )
      ).flat();
      expect(second.length).toBeLessThanOrEqual(2);
      expect(await active()).toBeLessThanOrEqual(5);
      const topUp2 = await store.jobs.claim({ workerId: 'vz', limit: 10, queues: null });
      expect(second.length + topUp2.length).toBe(2);
      expect(await active()).toBe(5);
    });

    it('never hands one job to two concurrent claimers', async () => {
      const enqueued = await enqueueMany('many', 50);
      const batches = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.jobs.claim({ workerId: `w${i}`, limit: 5, queues: null }),
        ),
      );
      const firstRound = batches.flat();
      expect(new Set(ids(firstRound)).size).toBe(firstRound.length);
      for (const batch of batches) {
        for (const row of batch) {
          expect(row.leaseToken).toBe(batch[0]?.leaseToken);
          expect(row.workerId).toBe(batch[0]?.workerId);
        }
      }
      const all = [...batches];
      for (let i = 0; i < 60; i += 1) {
        const batch = await store.jobs.claim({ workerId: `drain${i}`, limit: 5, queues: null });
        if (batch.length === 0) break;
        all.push(batch);
      }
      const claimedIds = all.flat().map((row) => row.id);
      expect(claimedIds).toHaveLength(50);
      expect(sorted(claimedIds)).toEqual(sorted(enqueued));
      const started = (
        await Promise.all(all.map((batch) => store.jobs.start(batch.map(leaseOf))))
      ).flat();
      expect(started).toHaveLength(50);
    });

    it('does not change attempts when claiming or releasing', async () => {
      const id = await enqueueOne();
      const [row] = await store.jobs.claim({ workerId: 'w', limit: 1, queues: null });
      if (!row) throw new Error('not claimed');
      expect(row.attempts).toBe(0);
      expect(await store.jobs.settle([{ kind: 'release', lease: leaseOf(row) }])).toEqual([true]);
      const [again] = await store.jobs.claim({ workerId: 'w', limit: 1, queues: null });
      expect(again?.id).toBe(id);
      expect(again?.attempts).toBe(0);
      expect((await hot(id)).attempts).toBe(0);
    });
  });

  describe('start', () => {
    it('moves fetched jobs to processing and counts the attempt', async () => {
      const rows = await fetched('s', 2);
      const started = await store.jobs.start(rows.map(leaseOf));
      expect(sorted(ids(started))).toEqual(sorted(ids(rows)));
      for (const job of started) {
        expect(job).toMatchObject({ state: 'processing', attempts: 1, workerId: 'worker-1' });
        expect(job.leaseToken).toBe(rows[0]?.leaseToken);
        const stored = await hot(job.id);
        expect(stored).toMatchObject({ state: 'processing', attempts: 1 });
        expect(stored.startedAt).toBeInstanceOf(Date);
        expect(stored.heartbeatAt).toBeInstanceOf(Date);
        expect(stored.startedAt?.getTime()).toBeGreaterThanOrEqual(job.createdAt.getTime());
      }
    });

    it('refuses a wrong token, a wrong worker or a job that is not fetched', async () => {
      const [row, other] = await fetched('s', 2);
      if (!row || !other) throw new Error('unreachable');
      const lease = leaseOf(row);
      expect(await store.jobs.start([{ ...lease, leaseToken: 'not-the-token' }])).toEqual([]);
      expect(await store.jobs.start([{ ...lease, workerId: 'someone-else' }])).toEqual([]);
      expect(await store.jobs.start([{ ...lease, id: 'missing' }])).toEqual([]);
      expect(await hot(row.id)).toMatchObject({ state: 'fetched', attempts: 0, startedAt: null });

      // A mixed call starts only the leases still held.
      const started = await store.jobs.start([{ ...leaseOf(other), leaseToken: 'bad' }, lease]);
      expect(ids(started)).toEqual([row.id]);
      expect((await hot(other.id)).state).toBe('fetched');

      // Already processing: a second start is refused and does not count again.
      expect(await store.jobs.start([lease])).toEqual([]);
      expect((await hot(row.id)).attempts).toBe(1);

      // A pending job cannot be started with an invented lease.
      const pending = await enqueueOne({ queue: 'idle' });
      expect(
        await store.jobs.start([
          { id: pending, workerId: 'worker-1', leaseToken: lease.leaseToken },
        ]),
      ).toEqual([]);
      expect(await hot(pending)).toMatchObject({ state: 'pending', attempts: 0 });
    });

    it('does not start a job whose lease was lost', async () => {
      const [row] = await fetched('lost', 1);
      if (!row) throw new Error('unreachable');
      const oldLease = leaseOf(row);
      expect(await store.jobs.settle([{ kind: 'release', lease: oldLease }])).toEqual([true]);
      expect(await store.jobs.start([oldLease])).toEqual([]);
      expect(await hot(row.id)).toMatchObject({ state: 'pending', attempts: 0, workerId: null });

      // Reclaimed by the same worker: the earlier token is still dead.
      const [again] = await store.jobs.claim({
        workerId: oldLease.workerId,
        limit: 1,
        queues: null,
      });
      if (!again) throw new Error('not reclaimed');
      expect(again.leaseToken).not.toBe(oldLease.leaseToken);
      expect(await store.jobs.start([oldLease])).toEqual([]);
      expect((await hot(row.id)).state).toBe('fetched');

      // Reclaimed by another worker and started there: the old lease cannot settle it.
      expect(await store.jobs.settle([{ kind: 'release', lease: leaseOf(again) }])).toEqual([true]);
      const [third] = await store.jobs.claim({ workerId: 'worker-2', limit: 1, queues: null });
      if (!third) throw new Error('not reclaimed');
      expect(ids(await store.jobs.start([leaseOf(third)]))).toEqual([row.id]);
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease: oldLease, durationMs: 1 },
          { kind: 'archive', lease: leaseOf(again), durationMs: 1 },
        ]),
      ).toEqual([false, false]);
      expect(await hot(row.id)).toMatchObject({
        state: 'processing',
        workerId: 'worker-2',
        attempts: 1,
      });
    });
  });

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
}
