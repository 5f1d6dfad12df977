/**
 * The storage conformance suite: every provider (memory, embedded, postgres) runs these tests and
 * must pass all of them. The specification is the TSDoc of `src/storage/store.ts`; a test here
 * asserts only what the contract promises, never a quirk of one implementation.
 *
 * Time-dependent checks wait until the store's own clock has passed a time (the SQL stores
 * schedule with the database clock, so this is real time), never for a fixed delay. Every wait is
 * bounded.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import type { FailureReason } from '../../src/job/state.js';
import type { ArchivedJob, DeadJob, HotJob, QueueStats } from '../../src/storage/model.js';
import type { MetricBucket, Store } from '../../src/storage/store.js';
import type { NewJob } from '../../src/storage/model.js';
import { waitFor } from '../helpers/wait.js';
import { ids, leaseOf, newJob, sorted, waitUntil } from './helpers.js';
import { describeBroadcast } from './broadcast.js';
import { describeConcurrencyKeys } from './concurrency-keys.js';
import { describeEdgeCases } from './edge-cases.js';
import { describeHandoff } from './handoff.js';
import { describeKeyedClaims } from './keyed-claims.js';
import { describeRateLimits } from './rate-limits.js';
import { describeRetention } from './retention.js';
import { describeSchedules } from './schedules.js';
import { describeScheduledJobs } from './scheduled.js';
import { describeOperatorQueries } from './operator.js';
import { describeReliability } from './reliability.js';
import { checkTransitions } from './transition-check.js';

/** How the suite obtains stores of one provider. */
export interface StoreFactory {
  /** A new, independent store (the suite calls `open()` on it). */
  make(): Promise<Store>;
  /** Frees what `make` allocated (schema, files); called after the store was closed. */
  cleanup?(store: Store): Promise<void>;
  /** Runs once before the file's tests (e.g. starts a shared database). */
  setup?(): Promise<void>;
  /** Runs once after the file's tests. */
  teardown?(): Promise<void>;
  /** `false` skips every test (e.g. no PostgreSQL reachable). */
  available?(): Promise<boolean>;
}

/** Registers the conformance tests of one provider. */
export function describeStoreConformance(name: string, factory: StoreFactory): void {
  describe(`storage conformance: ${name}`, { timeout: 15_000 }, () => {
    let available = true;
    let store: Store;
    let current: Store | undefined;

    beforeAll(async () => {
      available = factory.available ? await factory.available() : true;
      if (available && factory.setup) await factory.setup();
    });

    afterAll(async () => {
      if (available && factory.teardown) await factory.teardown();
    });

    /** State changes the state machine does not list, seen during the current test. */
    const violations: string[] = [];

    beforeEach(async (context) => {
      if (!available) context.skip(`${name} storage is not available`);
      current = await factory.make();
      violations.length = 0;
      store = checkTransitions(current, violations);
      await store.open();
    });

    afterEach(async () => {
      const done = current;
      current = undefined;
      if (!done) return;
      try {
        expect(violations, 'transitions missing from TRANSITIONS (src/job/state.ts)').toEqual([]);
      } finally {
        try {
          await done.close();
        } finally {
          if (factory.cleanup) await factory.cleanup(done);
        }
      }
    });

    // ---------------------------------------------------------------- helpers bound to `store`

    async function enqueueOne(overrides: Partial<NewJob> = {}): Promise<string> {
      const [result] = await store.enqueue([newJob(overrides)]);
      if (!result) throw new Error('enqueue returned no result');
      expect(result.created).toBe(true);
      return result.id;
    }

    async function enqueueMany(queue: string, count: number): Promise<string[]> {
      const results = await store.enqueue(Array.from({ length: count }, () => newJob({ queue })));
      return ids(results);
    }

    async function hot(id: string): Promise<HotJob> {
      const found = await store.getJob(id);
      if (found?.where !== 'hot')
        throw new Error(`expected ${id} in hot, got ${found?.where ?? 'nothing'}`);
      return found.job;
    }

    async function archived(id: string): Promise<ArchivedJob> {
      const found = await store.getJob(id);
      if (found?.where !== 'archive') {
        throw new Error(`expected ${id} in archive, got ${found?.where ?? 'nothing'}`);
      }
      return found.job;
    }

    async function dead(id: string): Promise<DeadJob> {
      const found = await store.getJob(id);
      if (found?.where !== 'dlq')
        throw new Error(`expected ${id} in dlq, got ${found?.where ?? 'nothing'}`);
      return found.job;
    }

    /**
     * Enqueues `count` jobs into an otherwise idle `queue` and claims all of them; returns the
     * stored rows (a claim returns only what a worker needs), in claim order.
     */
    async function fetched(queue: string, count: number, workerId = 'worker-1'): Promise<HotJob[]> {
      await enqueueMany(queue, count);
      const rows = await store.claim({ workerId, limit: count, queues: [queue] });
      expect(rows).toHaveLength(count);
      return Promise.all(rows.map((row) => hot(row.id)));
    }

    /** Like {@link fetched}, then passes the lease gate for all of them. */
    async function processing(
      queue: string,
      count: number,
      workerId = 'worker-1',
    ): Promise<HotJob[]> {
      const rows = await fetched(queue, count, workerId);
      const started = await store.start(rows.map(leaseOf));
      expect(started).toHaveLength(count);
      return Promise.all(started.map((row) => hot(row.id)));
    }

    async function toDead(queue: string, reason: FailureReason = 'Fatal'): Promise<string> {
      const [job] = await processing(queue, 1);
      if (!job) throw new Error('unreachable');
      expect(
        await store.settle([{ kind: 'dead', lease: leaseOf(job), reason, error: 'x' }]),
      ).toEqual([true]);
      return job.id;
    }

    async function statsOf(queue: string): Promise<QueueStats> {
      const row = (await store.queueStats()).find((stats) => stats.queue === queue);
      if (!row) throw new Error(`no stats for queue ${queue}`);
      return row;
    }

    /**
     * Resolves once the store's clock reads a later millisecond than `after`: a row stamped at
     * `after` is then older than `now`, and rows written from now on are stamped later. Strictly
     * later, because timestamps read back as Dates are cut to the millisecond.
     */
    async function storeTimePasses(after: Date | number): Promise<void> {
      const target = typeof after === 'number' ? after : after.getTime();
      await waitFor(async () => (await store.now()).getTime() > target, {
        timeoutMs: 5_000,
        intervalMs: 5,
        message: `the store clock to pass ${new Date(target).toISOString()}`,
      });
    }

    async function bucketsOf(queue: string): Promise<MetricBucket[]> {
      const since = new Date((await store.now()).getTime() - 60_000);
      return (await store.metricBuckets(since)).filter((bucket) => bucket.queue === queue);
    }

    // ------------------------------------------------------------------------------- enqueue

    describe('enqueue', () => {
      it('returns one result per job, in input order', async () => {
        expect(await store.enqueue([])).toEqual([]);
        const jobs = [
          newJob({ id: 'zeta-1' }),
          newJob({ id: 'alpha-2', queue: 'other' }),
          newJob({ priority: 3 }),
          newJob({ id: 'mid-3' }),
        ];
        const results = await store.enqueue(jobs);
        expect(results.map((r) => ({ id: r.id, created: r.created }))).toEqual(
          jobs.map((job) => ({ id: job.id, created: true })),
        );
        for (const job of jobs) expect((await hot(job.id)).queue).toBe(job.queue);
      });

      it('stores a pending row with the given fields', async () => {
        const before = await store.now();
        const job = newJob({
          queue: 'reports',
          type: 'report.build',
          priority: 42,
          tags: 'monthly,finance',
          createdBy: 'tester',
          idempotencyKey: 'report-2026-01',
          payload: '{"month":"2026-01"}',
        });
        await store.enqueue([job]);
        const after = await store.now();
        const row = await hot(job.id);
        expect(row).toMatchObject({
          id: job.id,
          queue: 'reports',
          type: 'report.build',
          payload: '{"month":"2026-01"}',
          tags: 'monthly,finance',
          idempotencyKey: 'report-2026-01',
          priority: 42,
          state: 'pending',
          attempts: 0,
          workerId: null,
          leaseToken: null,
          startedAt: null,
          heartbeatAt: null,
          createdBy: 'tester',
          lastError: null,
        });
        expect(row.createdAt).toBeInstanceOf(Date);
        expect(row.createdAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
        expect(row.createdAt.getTime()).toBeLessThanOrEqual(after.getTime());
        expect(row.runAt.getTime()).toBe(row.createdAt.getTime());
        expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(row.createdAt.getTime());
      });

      it('stores every field of keyless batches, whether their jobs share fields or not', async () => {
        const shared = {
          queue: 'shared',
          type: 'report.build',
          priority: 7,
          tags: 'nightly',
          createdBy: 'cron',
          delayMs: 60_000,
        };
        const alike = [1, 2, 3].map((n) => newJob({ ...shared, payload: `{"n":${n}}` }));
        const mixed = [
          newJob({ ...shared, payload: '{"n":4}' }),
          newJob({ ...shared, queue: 'shared-2', payload: '{"n":5}' }),
          newJob({ ...shared, priority: 8, tags: null, createdBy: null, delayMs: 0 }),
        ];
        expect((await store.enqueue(alike)).every((r) => r.created)).toBe(true);
        expect((await store.enqueue(mixed)).every((r) => r.created)).toBe(true);
        for (const job of [...alike, ...mixed]) {
          const row = await hot(job.id);
          expect(row).toMatchObject({
            queue: job.queue,
            type: job.type,
            payload: job.payload,
            priority: job.priority,
            tags: job.tags,
            createdBy: job.createdBy,
            idempotencyKey: null,
            state: job.delayMs > 0 ? 'scheduled' : 'pending',
          });
          expect(row.runAt.getTime() - row.createdAt.getTime()).toBe(job.delayMs);
        }
        const queues = (await store.listQueues()).map((q) => q.name);
        expect(queues).toEqual(expect.arrayContaining(['shared', 'shared-2']));
      });

      it('stores ids with the characters an array literal quotes or escapes, as given', async () => {
        // One batch of ids that need quoting only, one whose ids need escaping too.
        const quoted = ['a,b', '{x}', ' sp ', 'NULL', 'ü 日本 🚀'];
        const escaped = ['q"uote', 'back\\slash', '\\"', 'plain'];
        for (const batch of [quoted, escaped]) {
          const results = await store.enqueue(batch.map((id) => newJob({ id, queue: 'ids' })));
          expect(results).toEqual(batch.map((id) => ({ id, created: true })));
          for (const id of batch) expect((await hot(id)).id).toBe(id);
        }
      });

      it('hands the payload back byte for byte', async () => {
        const payload =
          '{"z":1,  "a":"héllo wörld — 日本語 🚀 ∑","esc":"\\u00e9\\n\\"q\\"\\\\","num":1.50,' +
          '"big":12345678901234567890,"e":1E+2,"list":[1, 2 ,3],"n":null }';
        const other = '[ "π", {"k" : true} ]';
        const [first, second] = await store.enqueue([
          newJob({ queue: 'bytes', payload }),
          newJob({ queue: 'bytes', payload: other }),
        ]);
        if (!first || !second) throw new Error('unreachable');
        expect((await hot(first.id)).payload).toBe(payload);
        expect((await hot(second.id)).payload).toBe(other);
        expect(
          (await store.listHot({ queue: 'bytes', limit: 10 })).map((r) => r.payload).sort(),
        ).toEqual([payload, other].sort());

        const claimedRows = await store.claim({ workerId: 'w', limit: 10, queues: ['bytes'] });
        expect(claimedRows.map((r) => r.payload).sort()).toEqual([payload, other].sort());
        const started = await store.start(claimedRows.map(leaseOf));
        const byId = new Map(started.map((r) => [r.id, r]));
        const one = byId.get(first.id);
        const two = byId.get(second.id);
        if (!one || !two) throw new Error('jobs did not start');
        expect(one.payload).toBe(payload);
        expect(
          await store.settle([
            { kind: 'archive', lease: leaseOf(one), durationMs: 5 },
            { kind: 'dead', lease: leaseOf(two), reason: 'Fatal', error: 'boom' },
          ]),
        ).toEqual([true, true]);
        expect((await archived(first.id)).payload).toBe(payload);
        expect((await dead(second.id)).payload).toBe(other);
        expect(await store.resurrect([second.id], { actor: 'ops' })).toEqual([second.id]);
        expect((await hot(second.id)).payload).toBe(other);
      });

      it('rejects a duplicate hot id with CHOKAQ_DUPLICATE_JOB_ID and writes nothing', async () => {
        const original = newJob({ id: 'dup-1', payload: '{"v":"original"}' });
        await store.enqueue([original]);
        const fresh = newJob({ queue: 'never-created' });
        const error: unknown = await store
          .enqueue([fresh, newJob({ id: 'dup-1', payload: '{"v":"second"}' })])
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(error).toBeInstanceOf(ChokaQError);
        expect((error as ChokaQError).code).toBe('CHOKAQ_DUPLICATE_JOB_ID');
        expect(await store.getJob(fresh.id)).toBeNull();
        expect((await hot('dup-1')).payload).toBe('{"v":"original"}');
        expect((await store.listQueues()).map((q) => q.name)).not.toContain('never-created');
        expect(await store.listHot({ limit: 100 })).toHaveLength(1);
      });

      it('rejects an id held by a claimed job', async () => {
        const [row] = await fetched('dupq', 1);
        if (!row) throw new Error('unreachable');
        const error: unknown = await store.enqueue([newJob({ id: row.id })]).then(
          () => null,
          (e: unknown) => e,
        );
        expect((error as ChokaQError | null)?.code).toBe('CHOKAQ_DUPLICATE_JOB_ID');
        expect((await hot(row.id)).state).toBe('fetched');
      });

      it('rejects a batch that repeats one id and writes nothing', async () => {
        const other = newJob();
        const error: unknown = await store
          .enqueue([newJob({ id: 'twice' }), other, newJob({ id: 'twice' })])
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect((error as ChokaQError | null)?.code).toBe('CHOKAQ_DUPLICATE_JOB_ID');
        expect(await store.getJob('twice')).toBeNull();
        expect(await store.getJob(other.id)).toBeNull();
      });

      it('dedupes on an idempotency key held by an active job', async () => {
        const first = newJob({ queue: 'idem', idempotencyKey: 'k' });
        const second = newJob({ queue: 'idem', idempotencyKey: 'k' });
        expect(await store.enqueue([first])).toEqual([{ id: first.id, created: true }]);
        const [dupe] = await store.enqueue([second]);
        expect(dupe).toEqual({ id: first.id, created: false });
        expect(await store.getJob(second.id)).toBeNull();

        // A claimed holder is still active.
        const claimedRows = await store.claim({ workerId: 'w', limit: 1, queues: ['idem'] });
        expect(ids(claimedRows)).toEqual([first.id]);
        const third = newJob({ queue: 'idem', idempotencyKey: 'k' });
        expect(await store.enqueue([third])).toEqual([{ id: first.id, created: false }]);

        // Within one batch, the second job with a key sees the first.
        const a = newJob({ idempotencyKey: 'k2' });
        const b = newJob({ idempotencyKey: 'k2' });
        const c = newJob();
        const results = await store.enqueue([a, b, c]);
        expect(results.map((r) => ({ id: r.id, created: r.created }))).toEqual([
          { id: a.id, created: true },
          { id: a.id, created: false },
          { id: c.id, created: true },
        ]);
        expect(await store.getJob(b.id)).toBeNull();
        expect(await store.listHot({ limit: 100 })).toHaveLength(3);
      });

      it('lets a key create a new job once its holder left the hot table', async () => {
        const holderA = newJob({ queue: 'ka', idempotencyKey: 'key-archived' });
        const holderD = newJob({ queue: 'kd', idempotencyKey: 'key-dead' });
        await store.enqueue([holderA, holderD]);
        const rows = await store.claim({ workerId: 'w', limit: 2, queues: null });
        const started = new Map((await store.start(rows.map(leaseOf))).map((row) => [row.id, row]));
        const startedA = started.get(holderA.id);
        const startedD = started.get(holderD.id);
        if (!startedA || !startedD) throw new Error('holders did not start');
        expect(
          await store.settle([
            { kind: 'archive', lease: leaseOf(startedA), durationMs: 1 },
            { kind: 'dead', lease: leaseOf(startedD), reason: 'Fatal', error: 'x' },
          ]),
        ).toEqual([true, true]);

        const nextA = newJob({ idempotencyKey: 'key-archived' });
        const nextD = newJob({ idempotencyKey: 'key-dead' });
        expect(await store.enqueue([nextA, nextD])).toEqual([
          { id: nextA.id, created: true },
          { id: nextD.id, created: true },
        ]);
        expect((await hot(nextA.id)).idempotencyKey).toBe('key-archived');
        expect((await hot(nextD.id)).idempotencyKey).toBe('key-dead');
      });

      it('creates one job for concurrent enqueues of one key', async () => {
        const jobs = Array.from({ length: 5 }, () =>
          newJob({ queue: 'race', idempotencyKey: 'same' }),
        );
        const results = (await Promise.all(jobs.map((job) => store.enqueue([job])))).flat();
        expect(results).toHaveLength(5);
        const winner = results.find((r) => r.created);
        expect(results.filter((r) => r.created)).toHaveLength(1);
        expect(new Set(results.map((r) => r.id))).toEqual(new Set([winner?.id]));
        const rows = await store.listHot({ queue: 'race', limit: 100 });
        expect(ids(rows)).toEqual([winner?.id]);
      });

      it('registers a new queue once under 100 concurrent enqueues', async () => {
        await Promise.all(
          Array.from({ length: 100 }, () => store.enqueue([newJob({ queue: 'burst' })])),
        );
        const queues = (await store.listQueues()).filter((q) => q.name === 'burst');
        expect(queues).toHaveLength(1);
        expect(queues[0]).toMatchObject({
          name: 'burst',
          paused: false,
          active: true,
          maxWorkers: null,
          zombieTimeoutSeconds: null,
        });
        const stats = (await store.queueStats()).filter((s) => s.queue === 'burst');
        expect(stats).toHaveLength(1);
        expect(stats[0]?.pending).toBe(100);
      });
    });

    // --------------------------------------------------------------------------------- claim

    describe('claim', () => {
      it('claims due pending jobs as fetched, with one lease token per batch', async () => {
        const enqueued = await enqueueMany('c', 3);
        const rows = await store.claim({ workerId: 'worker-a', limit: 10, queues: null });
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
        expect(await store.claim({ workerId: 'worker-a', limit: 10, queues: null })).toEqual([]);

        await enqueueOne({ queue: 'c' });
        const [next] = await store.claim({ workerId: 'worker-a', limit: 10, queues: null });
        expect(next?.leaseToken).toEqual(expect.any(String));
        expect(next?.leaseToken).not.toBe(token);
      });

      it('claims every job fetched, in claim order, for the worker to start', async () => {
        await enqueueOne({ id: 'low', queue: 's', priority: 1 });
        await enqueueOne({ id: 'high', queue: 's', priority: 50 });
        const rows = await store.claim({ workerId: 'w', limit: 10, queues: ['s'] });
        expect(rows.map((r) => [r.id, r.state, r.attempts])).toEqual([
          ['high', 'fetched', 0],
          ['low', 'fetched', 0],
        ]);
        expect((await hot('high'))?.startedAt).toBeNull();
      });

      it('returns nothing from an empty store and respects the limit', async () => {
        expect(await store.claim({ workerId: 'w', limit: 5, queues: null })).toEqual([]);
        await enqueueMany('lim', 5);
        expect(await store.claim({ workerId: 'w', limit: 2, queues: null })).toHaveLength(2);
        expect(await store.claim({ workerId: 'w', limit: 1, queues: null })).toHaveLength(1);
        expect(await store.claim({ workerId: 'w', limit: 10, queues: null })).toHaveLength(2);
      });

      it('does not claim a delayed job before it is due', async () => {
        const before = await store.now();
        const due = await enqueueOne({ queue: 'd' });
        const later = await enqueueOne({ queue: 'd', delayMs: 300 });
        const row = await hot(later);
        const delay = row.runAt.getTime() - row.createdAt.getTime();
        expect(delay).toBeGreaterThanOrEqual(299);
        expect(delay).toBeLessThanOrEqual(400);
        expect(row.runAt.getTime()).toBeGreaterThanOrEqual(before.getTime() + 299);

        expect(row.state).toBe('scheduled');
        expect(ids(await store.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([due]);
        expect(await store.promote(100)).toMatchObject({ promoted: [] });
        expect(await store.claim({ workerId: 'w', limit: 10, queues: null })).toEqual([]);
        await storeTimePasses(row.runAt);
        // Due, but still scheduled: only the promoter makes it claimable.
        expect(await store.claim({ workerId: 'w', limit: 10, queues: null })).toEqual([]);
        expect(await store.promote(100)).toEqual({
          promoted: [{ queue: 'd', count: 1 }],
          nextDueInMs: null,
        });
        expect((await hot(later)).state).toBe('pending');
        expect(ids(await store.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([later]);
      });

      it('orders by priority, then runAt, then id', async () => {
        await store.enqueue([
          newJob({ id: 'ord-3', priority: 5 }),
          newJob({ id: 'ord-1', priority: 5 }),
          newJob({ id: 'ord-neg', priority: -3 }),
        ]);
        await storeTimePasses((await hot('ord-3')).runAt); // each batch is due later than the last
        await store.enqueue([
          newJob({ id: 'ord-2', priority: 5 }),
          newJob({ id: 'ord-hi', priority: 9 }),
        ]);
        await storeTimePasses((await hot('ord-2')).runAt);
        await store.enqueue([newJob({ id: 'ord-0', priority: 5 })]);

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
          const batch = await store.claim({ workerId: 'w', limit: 1, queues: null });
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
        const promoted = await store.promote(100);
        expect(promoted.promoted).toEqual([{ queue: 'default', count: 1 }]);
        expect(promoted.nextDueInMs).toBeGreaterThan(4_000);
        expect(promoted.nextDueInMs).toBeLessThanOrEqual(5_000);
        expect(ids(await store.claim({ workerId: 'w', limit: 1, queues: null }))).toEqual([
          delayed,
        ]);
        expect(ids(await store.claim({ workerId: 'w', limit: 1, queues: null }))).toEqual([
          immediate,
        ]);
        expect(await store.claim({ workerId: 'w', limit: 1, queues: null })).toEqual([]);
        expect((await hot(notDue)).state).toBe('scheduled');
      });

      it('skips a paused queue until it is resumed', async () => {
        await store.updateQueue('p', { paused: true });
        const job = await enqueueOne({ queue: 'p' });
        const other = await enqueueOne({ queue: 'open' });
        expect((await store.listQueues()).find((q) => q.name === 'p')?.paused).toBe(true);
        expect(ids(await store.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([other]);
        expect(await store.claim({ workerId: 'w', limit: 10, queues: ['p'] })).toEqual([]);

        // Pausing a queue that already has jobs works the same.
        await store.updateQueue('p', { paused: false });
        await store.updateQueue('open', { paused: true });
        const blocked = await enqueueOne({ queue: 'open' });
        expect(ids(await store.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([job]);
        expect((await hot(blocked)).state).toBe('pending');
        await store.updateQueue('open', { paused: false });
        expect(ids(await store.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([
          blocked,
        ]);
      });

      it('never claims from an inactive queue', async () => {
        await store.updateQueue('hidden', { active: false });
        const job = await enqueueOne({ queue: 'hidden' });
        expect(await store.claim({ workerId: 'w', limit: 10, queues: null })).toEqual([]);
        expect(await store.claim({ workerId: 'w', limit: 10, queues: ['hidden'] })).toEqual([]);
        await store.updateQueue('hidden', { active: true });
        expect(ids(await store.claim({ workerId: 'w', limit: 10, queues: ['hidden'] }))).toEqual([
          job,
        ]);
      });

      it('claims only from the listed queues', async () => {
        const a = await enqueueOne({ queue: 'qa' });
        const b = await enqueueOne({ queue: 'qb' });
        const c = await enqueueOne({ queue: 'qc' });
        expect(await store.claim({ workerId: 'w', limit: 10, queues: [] })).toEqual([]);
        expect(await store.claim({ workerId: 'w', limit: 10, queues: ['nope'] })).toEqual([]);
        expect(ids(await store.claim({ workerId: 'w', limit: 10, queues: ['qb'] }))).toEqual([b]);
        expect(
          sorted(ids(await store.claim({ workerId: 'w', limit: 10, queues: ['qa', 'qc'] }))),
        ).toEqual(sorted([a, c]));
      });

      it('caps a queue at maxWorkers within one batch', async () => {
        await store.updateQueue('L', { maxWorkers: 2 });
        await enqueueMany('L', 10);
        const q = await enqueueOne({ queue: 'Q' });
        const rows = await store.claim({ workerId: 'w', limit: 10, queues: null });
        expect(rows.filter((r) => r.queue === 'L')).toHaveLength(2);
        expect(ids(rows.filter((r) => r.queue === 'Q'))).toEqual([q]);
        expect(await store.claim({ workerId: 'w', limit: 10, queues: null })).toEqual([]);

        // Processing rows count against the cap too; finishing one frees one slot.
        const started = await store.start(rows.filter((r) => r.queue === 'L').map(leaseOf));
        expect(started).toHaveLength(2);
        expect(await store.claim({ workerId: 'w', limit: 10, queues: null })).toEqual([]);
        const [first] = started;
        if (!first) throw new Error('unreachable');
        expect(
          await store.settle([{ kind: 'archive', lease: leaseOf(first), durationMs: 1 }]),
        ).toEqual([true]);
        const next = await store.claim({ workerId: 'w', limit: 10, queues: null });
        expect(next.map((r) => r.queue)).toEqual(['L']);
      });

      it('keeps maxWorkers exact across concurrent claimers', async () => {
        await store.updateQueue('bulk', { maxWorkers: 5 });
        await enqueueMany('bulk', 50);
        const active = async (): Promise<number> =>
          (await store.listHot({ queue: 'bulk', state: 'fetched', limit: 100 })).length +
          (await store.listHot({ queue: 'bulk', state: 'processing', limit: 100 })).length;

        const round = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.claim({ workerId: `w${i}`, limit: 3, queues: null }),
          ),
        );
        const first = round.flat();
        expect(first.length).toBeGreaterThan(0);
        expect(first.length).toBeLessThanOrEqual(5);
        expect(new Set(ids(first)).size).toBe(first.length);
        expect(await active()).toBe(first.length);
        const topUp = await store.claim({ workerId: 'wz', limit: 10, queues: null });
        expect(first.length + topUp.length).toBe(5);
        expect(await active()).toBe(5);

        // Start everything, finish two: exactly two slots open, even under concurrency.
        const leases = [...round, topUp].filter((batch) => batch.length > 0);
        const started = (
          await Promise.all(leases.map((batch) => store.start(batch.map(leaseOf))))
        ).flat();
        expect(started).toHaveLength(5);
        const finished = started.slice(0, 2);
        expect(
          await store.settle(
            finished.map((job) => ({ kind: 'archive', lease: leaseOf(job), durationMs: 1 })),
          ),
        ).toEqual([true, true]);
        const second = (
          await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              store.claim({ workerId: `v${i}`, limit: 3, queues: null }),
            ),
          )
        ).flat();
        expect(second.length).toBeLessThanOrEqual(2);
        expect(await active()).toBeLessThanOrEqual(5);
        const topUp2 = await store.claim({ workerId: 'vz', limit: 10, queues: null });
        expect(second.length + topUp2.length).toBe(2);
        expect(await active()).toBe(5);
      });

      it('never hands one job to two concurrent claimers', async () => {
        const enqueued = await enqueueMany('many', 50);
        const batches = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            store.claim({ workerId: `w${i}`, limit: 5, queues: null }),
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
          const batch = await store.claim({ workerId: `drain${i}`, limit: 5, queues: null });
          if (batch.length === 0) break;
          all.push(batch);
        }
        const claimedIds = all.flat().map((row) => row.id);
        expect(claimedIds).toHaveLength(50);
        expect(sorted(claimedIds)).toEqual(sorted(enqueued));
        const started = (
          await Promise.all(all.map((batch) => store.start(batch.map(leaseOf))))
        ).flat();
        expect(started).toHaveLength(50);
      });

      it('does not change attempts when claiming or releasing', async () => {
        const id = await enqueueOne();
        const [row] = await store.claim({ workerId: 'w', limit: 1, queues: null });
        if (!row) throw new Error('not claimed');
        expect(row.attempts).toBe(0);
        expect(await store.settle([{ kind: 'release', lease: leaseOf(row) }])).toEqual([true]);
        const [again] = await store.claim({ workerId: 'w', limit: 1, queues: null });
        expect(again?.id).toBe(id);
        expect(again?.attempts).toBe(0);
        expect((await hot(id)).attempts).toBe(0);
      });
    });

    // --------------------------------------------------------------------------------- start

    describe('start', () => {
      it('moves fetched jobs to processing and counts the attempt', async () => {
        const rows = await fetched('s', 2);
        const started = await store.start(rows.map(leaseOf));
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
        expect(await store.start([{ ...lease, leaseToken: 'not-the-token' }])).toEqual([]);
        expect(await store.start([{ ...lease, workerId: 'someone-else' }])).toEqual([]);
        expect(await store.start([{ ...lease, id: 'missing' }])).toEqual([]);
        expect(await hot(row.id)).toMatchObject({ state: 'fetched', attempts: 0, startedAt: null });

        // A mixed call starts only the leases still held.
        const started = await store.start([{ ...leaseOf(other), leaseToken: 'bad' }, lease]);
        expect(ids(started)).toEqual([row.id]);
        expect((await hot(other.id)).state).toBe('fetched');

        // Already processing: a second start is refused and does not count again.
        expect(await store.start([lease])).toEqual([]);
        expect((await hot(row.id)).attempts).toBe(1);

        // A pending job cannot be started with an invented lease.
        const pending = await enqueueOne({ queue: 'idle' });
        expect(
          await store.start([{ id: pending, workerId: 'worker-1', leaseToken: lease.leaseToken }]),
        ).toEqual([]);
        expect(await hot(pending)).toMatchObject({ state: 'pending', attempts: 0 });
      });

      it('does not start a job whose lease was lost', async () => {
        const [row] = await fetched('lost', 1);
        if (!row) throw new Error('unreachable');
        const oldLease = leaseOf(row);
        expect(await store.settle([{ kind: 'release', lease: oldLease }])).toEqual([true]);
        expect(await store.start([oldLease])).toEqual([]);
        expect(await hot(row.id)).toMatchObject({ state: 'pending', attempts: 0, workerId: null });

        // Reclaimed by the same worker: the earlier token is still dead.
        const [again] = await store.claim({ workerId: oldLease.workerId, limit: 1, queues: null });
        if (!again) throw new Error('not reclaimed');
        expect(again.leaseToken).not.toBe(oldLease.leaseToken);
        expect(await store.start([oldLease])).toEqual([]);
        expect((await hot(row.id)).state).toBe('fetched');

        // Reclaimed by another worker and started there: the old lease cannot settle it.
        expect(await store.settle([{ kind: 'release', lease: leaseOf(again) }])).toEqual([true]);
        const [third] = await store.claim({ workerId: 'worker-2', limit: 1, queues: null });
        if (!third) throw new Error('not reclaimed');
        expect(ids(await store.start([leaseOf(third)]))).toEqual([row.id]);
        expect(
          await store.settle([
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

    // -------------------------------------------------------------------------------- settle

    describe('settle', () => {
      it('archives a processing job', async () => {
        const [job] = await processing('arch', 1);
        if (!job) throw new Error('unreachable');
        const original = await hot(job.id);
        expect(
          await store.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 250 }]),
        ).toEqual([true]);
        const row = await archived(job.id);
        expect(row).toMatchObject({
          id: job.id,
          queue: 'arch',
          type: 'conformance.job',
          payload: original.payload,
          tags: original.tags,
          attempts: 1,
          workerId: 'worker-1',
          createdBy: original.createdBy,
          durationMs: 250,
        });
        expect(row.createdAt.getTime()).toBe(original.createdAt.getTime());
        expect(row.startedAt?.getTime()).toBe(original.startedAt?.getTime());
        expect(row.finishedAt.getTime()).toBeGreaterThanOrEqual(original.startedAt?.getTime() ?? 0);
        expect(await store.listHot({ limit: 10 })).toEqual([]);
      });

      it('archives a fetched job under its lease, recording the start with it', async () => {
        const [row] = await fetched('arch-fetched', 1);
        if (!row) throw new Error('unreachable');
        const lease = leaseOf(row);
        const before = await store.now();
        expect(
          await store.settle([
            { kind: 'archive', lease: { ...lease, leaseToken: 'nope' }, durationMs: 1 },
          ]),
        ).toEqual([false]);
        expect((await hot(row.id)).state).toBe('fetched');
        expect(await store.settle([{ kind: 'archive', lease, durationMs: 60_000 }])).toEqual([
          true,
        ]);
        const found = await store.getJob(row.id);
        if (found?.where !== 'archive') throw new Error(`not archived: ${found?.where}`);
        expect(found.job.attempts).toBe(1);
        // Started its duration before the settle.
        const startedAt = found.job.startedAt?.getTime() ?? 0;
        expect(startedAt).toBeLessThanOrEqual(before.getTime() - 60_000 + 5_000);
        expect(startedAt).toBeGreaterThan(before.getTime() - 60_000 - 60_000);
        expect((await statsOf('arch-fetched')).succeededTotal).toBe(1);
      });

      it('counts but does not archive the succeeded jobs of a queue or type that keeps none', async () => {
        await store.updateQueue('no-history', { keepSucceeded: false });
        expect((await store.listQueues()).find((q) => q.name === 'no-history')).toMatchObject({
          keepSucceeded: false,
        });
        const [a, b] = await processing('no-history', 2);
        const [c, d] = await processing('typed-no-history', 2);
        if (!a || !b || !c || !d) throw new Error('unreachable');
        expect(
          await store.settle([
            { kind: 'archive', lease: leaseOf(a), durationMs: 4 },
            { kind: 'archive', lease: leaseOf(b), durationMs: 6 },
            // A job type that keeps no rows, in a queue that does.
            { kind: 'archive', lease: leaseOf(c), durationMs: 1, keep: false },
            { kind: 'archive', lease: leaseOf(d), durationMs: 1 },
          ]),
        ).toEqual([true, true, true, true]);
        for (const id of [a.id, b.id, c.id]) expect(await store.getJob(id)).toBeNull();
        expect((await store.getJob(d.id))?.where).toBe('archive');
        expect(await statsOf('no-history')).toMatchObject({ succeededTotal: 2, archived: 0 });
        expect(await statsOf('typed-no-history')).toMatchObject({ succeededTotal: 2, archived: 1 });
        const buckets = await bucketsOf('no-history');
        expect(buckets.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(2);
        // Keeping them again archives from the next settle on.
        await store.updateQueue('no-history', { keepSucceeded: true });
        const [e] = await processing('no-history', 1);
        if (!e) throw new Error('unreachable');
        await store.settle([{ kind: 'archive', lease: leaseOf(e), durationMs: 1 }]);
        expect((await store.getJob(e.id))?.where).toBe('archive');
      });

      it('refuses to archive without the lease', async () => {
        const [row] = await fetched('arch', 1);
        if (!row) throw new Error('unreachable');
        const lease = leaseOf(row);
        await store.start([lease]);
        expect(
          await store.settle([
            { kind: 'archive', lease: { ...lease, leaseToken: 'nope' }, durationMs: 1 },
            { kind: 'archive', lease: { ...lease, workerId: 'intruder' }, durationMs: 1 },
          ]),
        ).toEqual([false, false]);
        expect(await hot(row.id)).toMatchObject({
          state: 'processing',
          attempts: 1,
          workerId: 'worker-1',
        });
        expect((await statsOf('arch')).succeededTotal).toBe(0);
        expect(await bucketsOf('arch')).toEqual([]);
        expect(await store.settle([{ kind: 'archive', lease, durationMs: 1 }])).toEqual([true]);
        expect(await store.settle([{ kind: 'archive', lease, durationMs: 1 }])).toEqual([false]);
        expect((await statsOf('arch')).succeededTotal).toBe(1);
      });

      it('retries a processing job later, keeping attempts and the error', async () => {
        const [job] = await processing('r', 1);
        if (!job) throw new Error('unreachable');
        const before = await store.now();
        expect(
          await store.settle([
            { kind: 'retry', lease: leaseOf(job), from: 'processing', delayMs: 300, error: 'boom' },
          ]),
        ).toEqual([true]);
        const row = await hot(job.id);
        expect(row).toMatchObject({
          state: 'scheduled',
          attempts: 1,
          lastError: 'boom',
          workerId: null,
          leaseToken: null,
        });
        expect(row.runAt.getTime()).toBeGreaterThanOrEqual(before.getTime() + 299);
        expect(row.runAt.getTime()).toBeLessThanOrEqual(before.getTime() + 1_300);
        expect(await store.claim({ workerId: 'w', limit: 1, queues: null })).toEqual([]);
        expect(await store.settle([{ kind: 'release', lease: leaseOf(job) }])).toEqual([false]);
        expect((await statsOf('r')).retriedTotal).toBe(1);

        await storeTimePasses(row.runAt);
        await store.promote(100);
        const [again] = await store.claim({ workerId: 'w', limit: 1, queues: null });
        expect(again).toMatchObject({ id: job.id, attempts: 1 });
        expect(await hot(job.id)).toMatchObject({ attempts: 1, lastError: 'boom' });
        if (!again) throw new Error('unreachable');
        const [restarted] = await store.start([leaseOf(again)]);
        expect(restarted).toMatchObject({ attempts: 2, state: 'processing' });
        expect(await hot(job.id)).toMatchObject({ attempts: 2, lastError: 'boom' });
        if (!restarted) throw new Error('unreachable');
        expect(
          await store.settle([
            {
              kind: 'retry',
              lease: leaseOf(restarted),
              from: 'processing',
              delayMs: 0,
              error: 'boom 2',
            },
          ]),
        ).toEqual([true]);
        expect(await hot(job.id)).toMatchObject({
          state: 'pending',
          attempts: 2,
          lastError: 'boom 2',
        });
        expect((await statsOf('r')).retriedTotal).toBe(2);
        expect(await bucketsOf('r')).toEqual([]);
      });

      it('retries a fetched job without using an attempt, guarded by the expected state', async () => {
        const [row] = await fetched('circuit', 1);
        if (!row) throw new Error('unreachable');
        const lease = leaseOf(row);
        expect(
          await store.settle([
            { kind: 'retry', lease, from: 'processing', delayMs: 0, error: 'wrong state' },
          ]),
        ).toEqual([false]);
        expect(
          await store.settle([
            {
              kind: 'retry',
              lease: { ...lease, leaseToken: 'x' },
              from: 'fetched',
              delayMs: 0,
              error: 'e',
            },
          ]),
        ).toEqual([false]);
        expect(await hot(row.id)).toMatchObject({ state: 'fetched', lastError: null });
        expect((await statsOf('circuit')).retriedTotal).toBe(0);

        expect(
          await store.settle([
            { kind: 'retry', lease, from: 'fetched', delayMs: 0, error: 'circuit open' },
          ]),
        ).toEqual([true]);
        expect(await hot(row.id)).toMatchObject({
          state: 'pending',
          attempts: 0,
          lastError: 'circuit open',
          workerId: null,
          leaseToken: null,
        });
        expect((await statsOf('circuit')).retriedTotal).toBe(1);

        const [again] = await store.claim({ workerId: 'w', limit: 1, queues: null });
        if (!again) throw new Error('not claimable after a zero delay');
        await store.start([leaseOf(again)]);
        expect(
          await store.settle([
            {
              kind: 'retry',
              lease: leaseOf(again),
              from: 'fetched',
              delayMs: 0,
              error: 'wrong state',
            },
          ]),
        ).toEqual([false]);
        expect(await hot(row.id)).toMatchObject({ state: 'processing', attempts: 1 });
      });

      it('moves a processing job to the DLQ', async () => {
        const job = newJob({ queue: 'dlq', tags: 't1', createdBy: 'me', payload: '{"x":true}' });
        await store.enqueue([job]);
        const [claimedRow] = await store.claim({ workerId: 'worker-9', limit: 1, queues: null });
        if (!claimedRow) throw new Error('unreachable');
        const [started] = await store.start([leaseOf(claimedRow)]);
        if (!started) throw new Error('unreachable');
        const startedAt = (await hot(job.id)).startedAt;
        expect(
          await store.settle([
            { kind: 'dead', lease: leaseOf(started), reason: 'Timeout', error: 'took too long' },
          ]),
        ).toEqual([true]);
        const row = await dead(job.id);
        expect(row).toMatchObject({
          id: job.id,
          queue: 'dlq',
          type: job.type,
          payload: '{"x":true}',
          tags: 't1',
          reason: 'Timeout',
          errorDetails: 'took too long',
          attempts: 1,
          workerId: 'worker-9',
          createdBy: 'me',
        });
        expect(row.createdAt.getTime()).toBe(started.createdAt.getTime());
        expect(row.failedAt.getTime()).toBeGreaterThanOrEqual(startedAt?.getTime() ?? 0);
        expect(await store.listHot({ limit: 10 })).toEqual([]);
      });

      it('refuses to dead-letter without the lease or before start', async () => {
        const [row] = await fetched('dlq', 1);
        if (!row) throw new Error('unreachable');
        const lease = leaseOf(row);
        expect(await store.settle([{ kind: 'dead', lease, reason: 'Fatal', error: 'e' }])).toEqual([
          false,
        ]);
        await store.start([lease]);
        expect(
          await store.settle([
            {
              kind: 'dead',
              lease: { ...lease, workerId: 'intruder' },
              reason: 'Fatal',
              error: 'e',
            },
            { kind: 'dead', lease: { ...lease, leaseToken: 'nope' }, reason: 'Fatal', error: 'e' },
          ]),
        ).toEqual([false, false]);
        expect((await hot(row.id)).state).toBe('processing');
        expect((await statsOf('dlq')).failedTotal).toBe(0);
        expect(await store.settle([{ kind: 'dead', lease, reason: 'Fatal', error: 'e' }])).toEqual([
          true,
        ]);
        expect(await store.settle([{ kind: 'dead', lease, reason: 'Fatal', error: 'e' }])).toEqual([
          false,
        ]);
        expect((await statsOf('dlq')).failedTotal).toBe(1);
      });

      it('releases a fetched job back to pending at once', async () => {
        const [row] = await fetched('rel', 1);
        if (!row) throw new Error('unreachable');
        const lease = leaseOf(row);
        expect(
          await store.settle([{ kind: 'release', lease: { ...lease, leaseToken: 'nope' } }]),
        ).toEqual([false]);
        expect(
          await store.settle([{ kind: 'release', lease: { ...lease, workerId: 'other' } }]),
        ).toEqual([false]);
        expect((await hot(row.id)).state).toBe('fetched');
        expect(await store.settle([{ kind: 'release', lease }])).toEqual([true]);
        expect(await hot(row.id)).toMatchObject({
          state: 'pending',
          attempts: 0,
          workerId: null,
          leaseToken: null,
        });
        expect(await store.settle([{ kind: 'release', lease }])).toEqual([false]);
        const stats = await statsOf('rel');
        expect([stats.succeededTotal, stats.failedTotal, stats.retriedTotal]).toEqual([0, 0, 0]);

        const [again] = await store.claim({ workerId: 'w', limit: 1, queues: null });
        expect(again?.id).toBe(row.id);
        if (!again) throw new Error('unreachable');
        await store.start([leaseOf(again)]);
        expect(await store.settle([{ kind: 'release', lease: leaseOf(again) }])).toEqual([false]);
        expect((await hot(row.id)).state).toBe('processing');
      });

      it('applies a mixed batch item by item', async () => {
        const [j1, j2, j3, j4] = await processing('mix', 4);
        const [j5] = await fetched('mix-fetched', 1);
        if (!j1 || !j2 || !j3 || !j4 || !j5) throw new Error('unreachable');
        const results = await store.settle([
          { kind: 'archive', lease: leaseOf(j1), durationMs: 10 },
          { kind: 'archive', lease: { ...leaseOf(j2), leaseToken: 'stale' }, durationMs: 10 },
          { kind: 'dead', lease: leaseOf(j3), reason: 'Fatal', error: 'fatal' },
          { kind: 'retry', lease: leaseOf(j4), from: 'processing', delayMs: 0, error: 'again' },
          { kind: 'release', lease: leaseOf(j5) },
          {
            kind: 'archive',
            lease: { id: 'no-such-job', workerId: 'worker-1', leaseToken: 't' },
            durationMs: 1,
          },
        ]);
        expect(results).toEqual([true, false, true, true, true, false]);
        await archived(j1.id);
        expect(await hot(j2.id)).toMatchObject({ state: 'processing', attempts: 1 });
        await dead(j3.id);
        expect(await hot(j4.id)).toMatchObject({
          state: 'pending',
          attempts: 1,
          lastError: 'again',
        });
        expect(await hot(j5.id)).toMatchObject({ state: 'pending', attempts: 0 });
        const stats = await statsOf('mix');
        expect([stats.succeededTotal, stats.failedTotal, stats.retriedTotal]).toEqual([1, 1, 1]);
      });
    });

    // ------------------------------------------------------------------- counters and metrics

    describe('counters and metric buckets', () => {
      it('keeps exact lifetime counters under concurrent settles, never decremented', async () => {
        const jobs = await processing('cnt', 27);
        const archives = jobs.slice(0, 20);
        const deaths = jobs.slice(20, 24);
        const retries = jobs.slice(24);
        const results = await Promise.all([
          ...archives.map((job) =>
            store.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 3 }]),
          ),
          ...deaths.map((job) =>
            store.settle([{ kind: 'dead', lease: leaseOf(job), reason: 'Transient', error: 'e' }]),
          ),
          ...retries.map((job) =>
            store.settle([
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
        expect(await store.purgeDead(deadIds.slice(0, 2))).toBe(2);
        expect(await store.resurrect([deadIds[2] ?? ''], { actor: 'ops' })).toEqual([deadIds[2]]);
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
          await store.settle([
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
        expect(await store.resurrect([c.id], { actor: 'ops' })).toEqual([c.id]);
        const other = await toDead('mb-other', 'Fatal');
        expect(await store.purgeDead([other])).toBe(1);
        await check();
        const otherBuckets = await bucketsOf('mb-other');
        expect(otherBuckets.map((bucket) => [bucket.outcome, bucket.reason, bucket.count])).toEqual(
          [['failed', 'Fatal', 1]],
        );

        const future = new Date((await store.now()).getTime() + 60_000);
        expect(await store.metricBuckets(future)).toEqual([]);
      });
    });

    // ---------------------------------------------------------------------- DLQ operations

    describe('dead-letter operations', () => {
      it('resurrects a dead job as a fresh pending job', async () => {
        const job = newJob({
          queue: 'res',
          priority: 50,
          idempotencyKey: 'res-key',
          tags: 'keep',
          createdBy: 'creator',
          payload: '{"keep":"me"}',
        });
        await store.enqueue([job]);
        const [row] = await store.claim({ workerId: 'w', limit: 1, queues: null });
        if (!row) throw new Error('unreachable');
        const [started] = await store.start([leaseOf(row)]);
        if (!started) throw new Error('unreachable');
        await store.settle([
          { kind: 'dead', lease: leaseOf(started), reason: 'Fatal', error: 'x' },
        ]);
        const deadRow = await dead(job.id);

        const before = await store.now();
        expect(await store.resurrect([job.id], { actor: 'ops' })).toEqual([job.id]);
        const back = await hot(job.id);
        expect(back).toMatchObject({
          id: job.id,
          queue: 'res',
          type: job.type,
          payload: '{"keep":"me"}',
          tags: 'keep',
          idempotencyKey: null,
          priority: 10,
          state: 'pending',
          attempts: 0,
          workerId: null,
          leaseToken: null,
          startedAt: null,
          heartbeatAt: null,
          createdBy: 'creator',
          lastModifiedBy: 'ops',
        });
        expect(back.createdAt.getTime()).toBe(deadRow.createdAt.getTime());
        expect(back.runAt.getTime()).toBeLessThanOrEqual((await store.now()).getTime());
        expect(back.updatedAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
        expect(await store.listDead({ limit: 10 })).toEqual([]);

        // The key is cleared: a new job with it is created.
        const next = newJob({ idempotencyKey: 'res-key' });
        expect(await store.enqueue([next])).toEqual([{ id: next.id, created: true }]);

        const [reclaimed] = await store.claim({ workerId: 'w', limit: 10, queues: ['res'] });
        expect(reclaimed?.id).toBe(job.id);
      });

      it('applies resurrect overrides', async () => {
        const id = await toDead('ovr');
        expect(
          await store.resurrect([id], {
            actor: 'editor',
            payload: '{"fixed":"✓"}',
            tags: null,
            priority: 70,
          }),
        ).toEqual([id]);
        expect(await hot(id)).toMatchObject({
          payload: '{"fixed":"✓"}',
          tags: null,
          priority: 70,
          lastModifiedBy: 'editor',
          attempts: 0,
        });
      });

      it('skips ids that are not in the DLQ', async () => {
        const d1 = await toDead('skip');
        const d2 = await toDead('skip');
        const [done] = await processing('skip-archive', 1);
        if (!done) throw new Error('unreachable');
        await store.settle([{ kind: 'archive', lease: leaseOf(done), durationMs: 1 }]);
        const pending = await enqueueOne({ queue: 'skip-hot', priority: 3 });

        expect(await store.resurrect([], { actor: 'ops' })).toEqual([]);
        const moved = await store.resurrect([d1, 'missing', pending, done.id, d2], {
          actor: 'ops',
        });
        expect(sorted(moved)).toEqual(sorted([d1, d2]));
        expect(await hot(pending)).toMatchObject({ priority: 3, lastModifiedBy: null });
        await archived(done.id);
        expect((await hot(d1)).state).toBe('pending');
        expect((await hot(d2)).state).toBe('pending');
        expect(await store.resurrect([d1], { actor: 'ops' })).toEqual([]);
      });

      it('moves a job once under concurrent resurrects', async () => {
        const id = await toDead('conc');
        const results = await Promise.all(
          Array.from({ length: 5 }, () => store.resurrect([id], { actor: 'ops' })),
        );
        expect(results.flat()).toEqual([id]);
        expect(ids(await store.listHot({ limit: 10 }))).toEqual([id]);
        expect(await store.listDead({ limit: 10 })).toEqual([]);
      });

      it('purges DLQ rows and returns how many were deleted', async () => {
        const d1 = await toDead('purge');
        const d2 = await toDead('purge');
        const d3 = await toDead('purge');
        const pending = await enqueueOne({ queue: 'purge' });
        expect(await store.purgeDead([])).toBe(0);
        expect(await store.purgeDead([d1, d3, 'missing', pending])).toBe(2);
        expect(ids(await store.listDead({ limit: 10 }))).toEqual([d2]);
        expect(await store.getJob(d1)).toBeNull();
        expect(await store.getJob(d3)).toBeNull();
        expect((await hot(pending)).state).toBe('pending');
        expect(await store.purgeDead([d1])).toBe(0);
        expect((await statsOf('purge')).failedTotal).toBe(3);
      });
    });

    // -------------------------------------------------------------------------- editPending

    describe('editPending', () => {
      it('edits a pending job in place, keeping absent fields', async () => {
        const id = await enqueueOne({ queue: 'ed', tags: 'old', priority: 5, payload: '{"v":1}' });
        expect(await store.editPending(id, { payload: '{"v":"ü2"}', actor: 'editor' })).toBe(true);
        expect(await hot(id)).toMatchObject({
          payload: '{"v":"ü2"}',
          tags: 'old',
          priority: 5,
          lastModifiedBy: 'editor',
          state: 'pending',
        });
        expect(await store.editPending(id, { tags: 'new', priority: 99, actor: 'second' })).toBe(
          true,
        );
        expect(await hot(id)).toMatchObject({
          payload: '{"v":"ü2"}',
          tags: 'new',
          priority: 99,
          lastModifiedBy: 'second',
        });
        expect(await store.editPending('missing', { priority: 1, actor: 'x' })).toBe(false);
      });

      it('refuses jobs that are fetched, processing or gone', async () => {
        const [row] = await fetched('ed', 1);
        if (!row) throw new Error('unreachable');
        expect(
          await store.editPending(row.id, { payload: '{"changed":1}', priority: 1, actor: 'x' }),
        ).toBe(false);
        expect(await hot(row.id)).toMatchObject({
          payload: '{"n":1}',
          priority: 10,
          state: 'fetched',
          lastModifiedBy: null,
        });
        await store.start([leaseOf(row)]);
        expect(await store.editPending(row.id, { tags: 'x', actor: 'x' })).toBe(false);
        expect(await hot(row.id)).toMatchObject({ tags: null, state: 'processing' });
        await store.settle([{ kind: 'archive', lease: leaseOf(row), durationMs: 1 }]);
        expect(await store.editPending(row.id, { tags: 'x', actor: 'x' })).toBe(false);
        expect((await archived(row.id)).tags).toBeNull();
      });
    });

    // ------------------------------------------------------------------------------- queues

    describe('queues', () => {
      it('upserts queue controls and keeps absent fields', async () => {
        const created = await store.updateQueue('uq', { maxWorkers: 3 });
        expect(created).toMatchObject({
          name: 'uq',
          paused: false,
          active: true,
          maxWorkers: 3,
          zombieTimeoutSeconds: null,
        });
        expect(created.updatedAt).toBeInstanceOf(Date);
        expect(await store.updateQueue('uq', { paused: true })).toMatchObject({
          paused: true,
          maxWorkers: 3,
        });
        expect(
          await store.updateQueue('uq', { zombieTimeoutSeconds: 30, maxWorkers: null }),
        ).toMatchObject({
          paused: true,
          active: true,
          maxWorkers: null,
          zombieTimeoutSeconds: 30,
        });
        const last = await store.updateQueue('uq', { active: false });
        expect(last).toMatchObject({
          paused: true,
          active: false,
          maxWorkers: null,
          zombieTimeoutSeconds: 30,
        });
        expect(await store.updateQueue('uq', {})).toMatchObject({
          name: 'uq',
          paused: true,
          active: false,
          maxWorkers: null,
          zombieTimeoutSeconds: 30,
        });
        const listed = (await store.listQueues()).find((q) => q.name === 'uq');
        expect(listed).toMatchObject({
          paused: true,
          active: false,
          maxWorkers: null,
          zombieTimeoutSeconds: 30,
        });

        // Enqueueing into a configured queue keeps its controls.
        await enqueueOne({ queue: 'uq' });
        expect((await store.listQueues()).find((q) => q.name === 'uq')).toMatchObject({
          paused: true,
          active: false,
          zombieTimeoutSeconds: 30,
        });
      });

      it('lists every known queue by name, including default', async () => {
        await store.updateQueue('mango', { paused: true });
        await store.updateQueue('banana', {});
        await enqueueOne({ queue: 'zebra' });
        await enqueueOne({ queue: 'apple' });
        const names = (await store.listQueues()).map((q) => q.name);
        expect(names).toEqual(['apple', 'banana', 'default', 'mango', 'zebra']);
      });

      it('counts jobs per queue and state', async () => {
        await store.updateQueue('idle', {});
        await enqueueMany('st', 6);
        const claimedRows = await store.claim({ workerId: 'w', limit: 5, queues: ['st'] });
        expect(claimedRows).toHaveLength(5);
        const started = await store.start(claimedRows.slice(0, 4).map(leaseOf));
        const [a, b, c] = started;
        if (!a || !b || !c) throw new Error('unreachable');
        await store.settle([
          { kind: 'archive', lease: leaseOf(a), durationMs: 1 },
          { kind: 'dead', lease: leaseOf(b), reason: 'Fatal', error: 'x' },
          { kind: 'retry', lease: leaseOf(c), from: 'processing', delayMs: 60_000, error: 'later' },
        ]);
        await enqueueOne({ queue: 'other' });

        const stats = await store.queueStats();
        expect(stats.map((s) => s.queue)).toEqual((await store.listQueues()).map((q) => q.name));
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

    // -------------------------------------------------------------------------------- reads

    describe('reads', () => {
      it('getJob finds a job in the hot table, the archive or the DLQ', async () => {
        const pending = await enqueueOne({ queue: 'g' });
        const [done] = await processing('g-done', 1);
        const [failed] = await processing('g-failed', 1);
        if (!done || !failed) throw new Error('unreachable');
        await store.settle([
          { kind: 'archive', lease: leaseOf(done), durationMs: 1 },
          { kind: 'dead', lease: leaseOf(failed), reason: 'Zombie', error: 'gone' },
        ]);
        expect(await store.getJob(pending)).toMatchObject({ where: 'hot', job: { id: pending } });
        expect(await store.getJob(done.id)).toMatchObject({
          where: 'archive',
          job: { id: done.id },
        });
        expect(await store.getJob(failed.id)).toMatchObject({
          where: 'dlq',
          job: { id: failed.id, reason: 'Zombie' },
        });
        expect(await store.getJob('no-such-id')).toBeNull();
      });

      it('listHot lists newest first, filtered by queue and state', async () => {
        const a1 = await enqueueOne({ queue: 'lh1' });
        await storeTimePasses((await hot(a1)).createdAt); // each job is created later
        const a2 = await enqueueOne({ queue: 'lh2' });
        await storeTimePasses((await hot(a2)).createdAt);
        const a3 = await enqueueOne({ queue: 'lh1' });
        await store.claim({ workerId: 'w', limit: 1, queues: ['lh2'] });
        expect(ids(await store.listHot({ limit: 10 }))).toEqual([a3, a2, a1]);
        expect(ids(await store.listHot({ limit: 2 }))).toEqual([a3, a2]);
        expect(ids(await store.listHot({ queue: 'lh1', limit: 10 }))).toEqual([a3, a1]);
        expect(ids(await store.listHot({ state: 'fetched', limit: 10 }))).toEqual([a2]);
        expect(ids(await store.listHot({ state: 'pending', limit: 1 }))).toEqual([a3]);
        expect(await store.listHot({ queue: 'lh2', state: 'pending', limit: 10 })).toEqual([]);
        expect(await store.listHot({ state: 'processing', limit: 10 })).toEqual([]);
      });

      it('listArchive lists newest finished first, filtered by queue', async () => {
        const jobs = await processing('la1', 3);
        const [other] = await processing('la2', 1);
        if (!other) throw new Error('unreachable');
        const order = [jobs[1], other, jobs[0], jobs[2]];
        for (const job of order) {
          if (!job) throw new Error('unreachable');
          await store.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 1 }]);
          await storeTimePasses((await archived(job.id)).finishedAt); // each finishes later
        }
        const newestFirst = ids(order as HotJob[]).reverse();
        expect(ids(await store.listArchive({ limit: 10 }))).toEqual(newestFirst);
        expect(ids(await store.listArchive({ limit: 2 }))).toEqual(newestFirst.slice(0, 2));
        expect(ids(await store.listArchive({ queue: 'la1', limit: 10 }))).toEqual(
          newestFirst.filter((id) => id !== other.id),
        );
        expect(await store.listArchive({ queue: 'nope', limit: 10 })).toEqual([]);
      });

      it('listDead lists newest failed first, filtered by queue and reason', async () => {
        const j1 = await toDead('d1', 'Fatal');
        await storeTimePasses((await dead(j1)).failedAt); // each fails later
        const j2 = await toDead('d2', 'Timeout');
        await storeTimePasses((await dead(j2)).failedAt);
        const j3 = await toDead('d1', 'Fatal');
        expect(ids(await store.listDead({ limit: 10 }))).toEqual([j3, j2, j1]);
        expect(ids(await store.listDead({ limit: 1 }))).toEqual([j3]);
        expect(ids(await store.listDead({ reason: 'Fatal', limit: 10 }))).toEqual([j3, j1]);
        expect(ids(await store.listDead({ queue: 'd2', limit: 10 }))).toEqual([j2]);
        expect(await store.listDead({ queue: 'd1', reason: 'Timeout', limit: 10 })).toEqual([]);
      });
    });

    // ------------------------------------------- heartbeat, rescue, cancel (reliability.ts)

    const context = {
      store: () => store,
      enqueueOne,
      hot,
      archived,
      dead,
      fetched,
      processing,
      statsOf,
      bucketsOf,
      storeTimePasses,
    };
    describeReliability(context);

    // ---------------------------------------- where providers used to differ (edge-cases.ts)

    describeEdgeCases(context);
    describeScheduledJobs(context);
    describeHandoff(context);

    // ------------------------------------------------- concurrency keys (concurrency-keys.ts)

    describeConcurrencyKeys(context);
    describeKeyedClaims(context);
    describeRateLimits(context);

    // ------------------------------------------ history, error groups, queries (operator.ts)

    describeOperatorQueries(context);
    describeBroadcast(context);
    describeRetention(context);
    describeSchedules(context);

    // ------------------------------------------------------------------------ wake and life

    describe('listen and lifecycle', () => {
      it('wakes listeners with the queue after an enqueue', async (context) => {
        if (!store.listen) context.skip(`${name} has no listen()`);
        const listen = store.listen?.bind(store);
        if (!listen) return;
        const woken: string[] = [];
        const unlisten = await listen((queue) => woken.push(queue));
        try {
          await enqueueOne({ queue: 'wake' });
          expect(await waitUntil(() => woken.includes('wake'), 1_500)).toBe(true);
        } finally {
          await unlisten();
        }
        // Once unsubscribed, later enqueues no longer call it: a second subscriber hears the
        // next wake-up, the first one does not.
        const heard: string[] = [];
        const stopHearing = await listen((queue) => heard.push(queue));
        try {
          await enqueueOne({ queue: 'after' });
          expect(await waitUntil(() => heard.includes('after'), 1_500)).toBe(true);
        } finally {
          await stopHearing();
        }
        expect(woken).not.toContain('after');
      });

      it('wakes listeners once the job can be claimed, for every enqueue of a busy queue', async (context) => {
        if (!store.listen) context.skip(`${name} has no listen()`);
        const listen = store.listen?.bind(store);
        if (!listen) return;
        // Each wake-up claims at once, as a worker does: the jobs it announces must be visible.
        const claimed: string[] = [];
        const claims: Promise<unknown>[] = [];
        const unlisten = await listen((queue) => {
          if (queue !== 'visible') return;
          claims.push(
            store
              .claim({ workerId: 'w', limit: 10, queues: ['visible'] })
              .then((rows) => claimed.push(...rows.map((row) => row.id))),
          );
        });
        try {
          // A quiet queue, then two enqueues at once and a failed one (a duplicate id) in between:
          // whichever wake-ups are carried by the insert or sent after it, none is lost.
          const first = await enqueueOne({ queue: 'visible' });
          expect(await waitUntil(() => claimed.includes(first), 1_500)).toBe(true);
          const both = await Promise.all([
            enqueueOne({ queue: 'visible' }),
            enqueueOne({ queue: 'visible' }),
          ]);
          await expect(store.enqueue([newJob({ id: first, queue: 'visible' })])).rejects.toThrow();
          const last = await enqueueOne({ queue: 'visible' });
          const all = [first, ...both, last];
          expect(await waitUntil(() => all.every((id) => claimed.includes(id)), 1_500)).toBe(true);
          await Promise.all(claims);
        } finally {
          await unlisten();
        }
      });

      it('opens and closes idempotently', async () => {
        await store.open();
        await enqueueOne();
        expect(await store.listHot({ limit: 10 })).toHaveLength(1);

        const spare = await factory.make();
        try {
          await spare.close();
          await spare.close();
        } finally {
          if (factory.cleanup) await factory.cleanup(spare);
        }
      });

      it('reports its clock', async () => {
        const first = await store.now();
        expect(first).toBeInstanceOf(Date);
        expect(Math.abs(first.getTime() - Date.now())).toBeLessThan(5_000);
        await storeTimePasses(first); // fails after 5 s if the clock stands still
      });
    });
  });
}
