/**
 * The storage conformance suite: every provider (memory, embedded, postgres) runs these tests and
 * must pass all of them. The specification is the TSDoc of `src/storage/store.ts` and of the
 * capability interfaces it aggregates; a test asserts only what the contract promises, never a
 * quirk of one implementation.
 *
 * This file holds the harness (a fresh store per test, watched for transitions the state machine
 * does not list; the helpers bound to it) and the aggregate's own contract (open and close); each
 * capability's contract is its own file:
 *
 * - `store.jobs`: jobs/ (index.ts lists its files);
 * - `store.queues`: queues.ts;
 * - `store.operator`: operator.ts;
 * - `store.bulk`: bulk.ts (the audit trail);
 * - `store.cluster`: cluster.ts (wake-ups, broadcasts, leases, clock);
 * - `store.retention`: retention.ts;
 * - `store.workflows`: workflows.ts;
 * - `store.steps`: steps.ts;
 * - `store.batches`: batches.ts;
 * - `idempotencyClaims`: idempotency.ts; `rateLimits`: rate-limits.ts; `schedules`:
 *   schedules.ts.
 *
 * Every store is given a `FakeClock` (the SQL stores read it in every statement instead of the
 * database's clock), so a time-dependent check moves the store's clock past a time at once,
 * never waits for it. The waits left are for events (wake-ups, broadcasts), each bounded.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FailureReason } from '../../src/job/state.js';
import type { ArchivedJob, DeadJob, HotJob, NewJob, QueueStats } from '../../src/storage/model.js';
import type { MetricBucket } from '../../src/storage/queue-store.js';
import type { Store } from '../../src/storage/store.js';
import { FakeClock } from '../../src/util/clock.js';
import { describeBatches } from './batches.js';
import { describeBulkStore } from './bulk.js';
import { describeClusterStore } from './cluster.js';
import type { ConformanceContext } from './context.js';
import { claimAndStart, ids, leaseOf, newJob } from './helpers.js';
import { describeIdempotencyClaims } from './idempotency.js';
import { describeJobStore } from './jobs/index.js';
import { describeOperatorStore } from './operator.js';
import { describeQueueStore } from './queues.js';
import { describeRateLimits } from './rate-limits.js';
import { describeRetention } from './retention.js';
import { describeSchedules } from './schedules.js';
import { checkTransitions } from './transition-check.js';
import { describeSteps } from './steps.js';
import { describeWorkflows } from './workflows.js';

/** How the suite obtains stores of one provider. */
export interface StoreFactory {
  /** A new, independent store reading the time from `clock` (the suite calls `open()` on it). */
  make(clock: FakeClock): Promise<Store>;
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
    /** The current test's store clock; it starts at the real time and moves only when told. */
    let clock: FakeClock;

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
      clock = new FakeClock(Date.now());
      current = await factory.make(clock);
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
      const [result] = await store.jobs.enqueue([newJob(overrides)]);
      if (!result) throw new Error('enqueue returned no result');
      expect(result.created).toBe(true);
      return result.id;
    }

    async function enqueueMany(queue: string, count: number): Promise<string[]> {
      const results = await store.jobs.enqueue(
        Array.from({ length: count }, () => newJob({ queue })),
      );
      return ids(results);
    }

    async function hot(id: string): Promise<HotJob> {
      const found = await store.operator.getJob(id);
      if (found?.where !== 'hot')
        throw new Error(`expected ${id} in hot, got ${found?.where ?? 'nothing'}`);
      return found.job;
    }

    async function archived(id: string): Promise<ArchivedJob> {
      const found = await store.operator.getJob(id);
      if (found?.where !== 'archive') {
        throw new Error(`expected ${id} in archive, got ${found?.where ?? 'nothing'}`);
      }
      return found.job;
    }

    async function dead(id: string): Promise<DeadJob> {
      const found = await store.operator.getJob(id);
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
      const rows = await store.jobs.claim({ workerId, limit: count, queues: [queue] });
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
      const started = await store.jobs.start(rows.map(leaseOf));
      expect(started).toHaveLength(count);
      return Promise.all(started.map((row) => hot(row.id)));
    }

    async function toDead(queue: string, reason: FailureReason = 'Fatal'): Promise<string> {
      const [job] = await processing(queue, 1);
      if (!job) throw new Error('unreachable');
      expect(
        await store.jobs.settle([{ kind: 'dead', lease: leaseOf(job), reason, error: 'x' }]),
      ).toEqual([true]);
      return job.id;
    }

    /** Claims, starts and fails a job of `queue` (of `type`, if given) with `error`, to the DLQ. */
    async function failToDead(queue: string, error: string, type?: string): Promise<string> {
      await store.jobs.enqueue([newJob({ queue, ...(type ? { type } : {}) })]);
      const [job] = await claimAndStart(store, { workerId: 'w', limit: 1, queues: [queue] });
      if (!job) throw new Error('nothing claimed');
      await store.jobs.settle([{ kind: 'dead', lease: leaseOf(job), reason: 'Fatal', error }]);
      return job.id;
    }

    async function statsOf(queue: string): Promise<QueueStats> {
      const row = (await store.queues.queueStats()).find((stats) => stats.queue === queue);
      if (!row) throw new Error(`no stats for queue ${queue}`);
      return row;
    }

    /**
     * Moves the store's clock to a later millisecond than `after` (if it is not there yet): a row
     * stamped at `after` is then older than `now`, and rows written from now on are stamped later.
     * Strictly later, because timestamps read back as Dates are cut to the millisecond.
     */
    function storeTimePasses(after: Date | number): Promise<void> {
      const target = typeof after === 'number' ? after : after.getTime();
      if (clock.now() <= target) clock.advance(target + 1 - clock.now());
      return Promise.resolve();
    }

    async function bucketsOf(queue: string): Promise<MetricBucket[]> {
      const since = new Date((await store.cluster.now()).getTime() - 60_000);
      return (await store.queues.metricBuckets(since)).filter((bucket) => bucket.queue === queue);
    }

    const context: ConformanceContext = {
      provider: name,
      store: () => store,
      enqueueOne,
      enqueueMany,
      hot,
      archived,
      dead,
      fetched,
      processing,
      toDead,
      failToDead,
      statsOf,
      bucketsOf,
      storeTimePasses,
    };

    // ------------------------------------------------------------------ one file per capability

    describeJobStore(context);
    describeQueueStore(context);
    describeOperatorStore(context);
    describeBulkStore(context);
    describeClusterStore(context);
    describeRetention(context);
    describeIdempotencyClaims(context);
    describeRateLimits(context);
    describeSchedules(context);
    describeWorkflows(context);
    describeSteps(context);
    describeBatches(context);

    // ----------------------------------------------------------- the aggregate's own lifecycle

    // The block keeps its name so that the test keeps its full name; its listen and clock tests
    // are in cluster.ts under the same name.
    describe('listen and lifecycle', () => {
      it('opens and closes idempotently', async () => {
        await store.open();
        await enqueueOne();
        expect(await store.operator.listHot({ limit: 10 })).toHaveLength(1);

        const spare = await factory.make(clock);
        try {
          await spare.close();
          await spare.close();
        } finally {
          if (factory.cleanup) await factory.cleanup(spare);
        }
      });
    });
  });
}
