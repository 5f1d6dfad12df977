/**
 * Rescue under concurrency on PostgreSQL: two processes (two stores, two pools) rescuing the same
 * schema at once move every row exactly once, a held rescue lock makes the other caller skip, and
 * a rescue racing a worker's archive settle of the same processing job lets exactly one of them
 * win, with the lifetime counters and metric buckets matching the rows where they ended.
 *
 * Zombies are made by ageing `heartbeat_at` directly, so no test waits for a timeout.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/index.js';
import type { FailureReason } from '../../src/job/state.js';
import type { ClaimedJob, QueueStats } from '../../src/storage/model.js';
import type { RescueOptions, RescueResult } from '../../src/storage/job-store.js';
import type { Store } from '../../src/storage/store.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { validateSchema } from '../../src/storage/sql/schema.js';
import { ids, leaseOf, newJob, sorted } from '../conformance/helpers.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';

/** Ids of `rows`, sorted. */
const sortedIds = (rows: readonly { id: string }[]): string[] => sorted(ids(rows));

const pgUp = await postgresAvailable();

/** Type of the jobs that are buried as zombies. */
const PLAIN = 'rescue.plain';
/** Type of the jobs whose zombies run again. */
const FLAKY = 'rescue.flaky';

/** Nothing is stale by these timeouts except rows aged by an hour on purpose. */
const OPTIONS: RescueOptions = {
  fetchedTimeoutMs: 60_000,
  processingTimeoutMs: 60_000,
  retryZombieTypes: { [FLAKY]: 3 },
};

/** Every id moved by `results` in the list `key`, duplicates kept. */
function movedBy(
  results: readonly RescueResult[],
  key: 'dead' | 'retried' | 'cancelled',
): string[] {
  return results.flatMap((result) => result[key].map((job) => job.id)).sort();
}

describe.skipIf(!pgUp)('rescue on PostgreSQL: lock and races', { timeout: 60_000 }, () => {
  let schema: string;
  let first: Store;
  let second: Store;
  let admin: pg.Client;

  beforeEach(async () => {
    schema = validateSchema(uniqueSchema('rescue'));
    const make = (): Store =>
      postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
    first = make();
    second = make();
    await first.open();
    await second.open();
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
  });

  afterEach(async () => {
    await admin.end().catch(() => undefined);
    try {
      await first.close();
      await second.close();
    } finally {
      await dropSchema(schema);
    }
  });

  /** Enqueues `count` jobs of `type` into `queue`, then claims and starts them on `first`. */
  async function running(queue: string, type: string, count: number): Promise<ClaimedJob[]> {
    await first.jobs.enqueue(
      Array.from({ length: count }, () => newJob({ queue, type, payload: '{}' })),
    );
    const claimed = await first.jobs.claim({
      workerId: `w-${queue}`,
      limit: count,
      queues: [queue],
    });
    const started = await first.jobs.start(claimed.map(leaseOf));
    expect(started).toHaveLength(count);
    return started;
  }

  /** Makes zombies: their last heartbeat was an hour ago. */
  async function zombify(jobs: readonly ClaimedJob[]): Promise<void> {
    await admin.query(
      `UPDATE "${schema}".jobs_hot SET heartbeat_at = now() - interval '1 hour' WHERE id = ANY($1)`,
      [jobs.map((job) => job.id)],
    );
  }

  async function statsOf(queue: string): Promise<QueueStats> {
    const stats = (await first.queues.queueStats()).find((row) => row.queue === queue);
    if (stats === undefined) throw new Error(`no stats for ${queue}`);
    return stats;
  }

  /** Failure-bucket counts of `queue` by reason. */
  async function failuresOf(queue: string): Promise<Partial<Record<FailureReason, number>>> {
    const totals: Partial<Record<FailureReason, number>> = {};
    for (const bucket of await first.queues.metricBuckets(new Date(0))) {
      if (bucket.queue !== queue || bucket.outcome !== 'failed' || bucket.reason === null) continue;
      totals[bucket.reason] = (totals[bucket.reason] ?? 0) + bucket.count;
    }
    return totals;
  }

  /** Success-bucket count of `queue`. */
  async function successesOf(queue: string): Promise<number> {
    const buckets = await first.queues.metricBuckets(new Date(0));
    return buckets
      .filter((bucket) => bucket.queue === queue && bucket.outcome === 'succeeded')
      .reduce((sum, bucket) => sum + bucket.count, 0);
  }

  it('skips while another session holds the rescue lock, and moves nothing', async () => {
    const zombies = await running('held', PLAIN, 3);
    await zombify(zombies);
    await admin.query('BEGIN');
    try {
      await admin.query("SELECT pg_advisory_xact_lock(hashtext('chokaq.rescue.' || $1::text))", [
        schema,
      ]);
      expect(await first.jobs.rescue(OPTIONS)).toEqual({
        skipped: true,
        released: 0,
        idempotencyClaimsPurged: 0,
        dead: [],
        retried: [],
        cancelled: [],
      });
      expect(
        await first.operator.listHot({ queue: 'held', state: 'processing', limit: 10 }),
      ).toHaveLength(3);
    } finally {
      await admin.query('COMMIT');
    }
    const after = await first.jobs.rescue(OPTIONS);
    expect(after.skipped).toBe(false);
    expect(sortedIds(after.dead)).toEqual(sortedIds(zombies));
    expect((await statsOf('held')).failedTotal).toBe(3);
  });

  it('moves every row once when two stores rescue the same schema at the same time', async () => {
    const ROUNDS = 6;
    for (let round = 0; round < ROUNDS; round++) {
      const queue = `twin-${round}`;
      const plain = await running(queue, PLAIN, 40);
      const flaky = await running(queue, FLAKY, 10);
      const asked = await running(queue, PLAIN, 5);
      // Requested in the order asked (start's rows come back in no particular order).
      expect(await first.jobs.cancel(sortedIds(asked), 'ops')).toEqual({
        cancelled: [],
        requested: sortedIds(asked),
      });
      // A stale fetched row, released (not moved to the DLQ) by whichever rescue runs.
      await first.jobs.enqueue([newJob({ queue, type: PLAIN, payload: '{}' })]);
      const [stale] = await first.jobs.claim({ workerId: 'w-stale', limit: 1, queues: [queue] });
      if (stale === undefined) throw new Error('nothing claimed');
      await admin.query(
        `UPDATE "${schema}".jobs_hot SET updated_at = now() - interval '1 hour' WHERE id = $1`,
        [stale.id],
      );
      await zombify([...plain, ...flaky, ...asked]);

      const results = await Promise.all([first.jobs.rescue(OPTIONS), second.jobs.rescue(OPTIONS)]);

      for (const result of results) {
        if (result.skipped) {
          expect(result).toEqual({
            skipped: true,
            released: 0,
            idempotencyClaimsPurged: 0,
            dead: [],
            retried: [],
            cancelled: [],
          });
        }
      }
      expect(results.some((result) => !result.skipped)).toBe(true);
      expect(movedBy(results, 'dead')).toEqual(sortedIds(plain));
      expect(movedBy(results, 'retried')).toEqual(sortedIds(flaky));
      expect(movedBy(results, 'cancelled')).toEqual(sortedIds(asked));
      expect(results.reduce((sum, result) => sum + result.released, 0)).toBe(1);

      const stats = await statsOf(queue);
      expect(stats).toMatchObject({
        pending: 11,
        fetched: 0,
        processing: 0,
        dead: 45,
        failedTotal: 45,
        retriedTotal: 10,
        succeededTotal: 0,
      });
      expect(await failuresOf(queue)).toEqual({ Zombie: 40, Cancelled: 5 });
      const dlq = await first.operator.listDead({ queue, limit: 1000 });
      expect(sortedIds(dlq)).toEqual(sortedIds([...plain, ...asked]));
      for (const job of dlq) {
        expect(job.errorDetails).toBe(
          job.reason === 'Cancelled'
            ? 'Cancelled by ops: the run was lost'
            : 'Zombie: worker heartbeat expired during execution',
        );
      }
      for (const job of flaky) {
        const found = await first.operator.getJob(job.id);
        expect(found?.where).toBe('hot');
        if (found?.where !== 'hot') continue;
        expect(found.job).toMatchObject({
          state: 'pending',
          attempts: 0,
          lostAttempts: 1,
          workerId: null,
          leaseToken: null,
          lastError: 'Zombie: heartbeat expired; run again',
        });
      }
      expect((await first.operator.getJob(stale.id))?.job).toMatchObject({ state: 'pending' });

      // A second pass over the same schema finds nothing left to move.
      const again = await Promise.all([first.jobs.rescue(OPTIONS), second.jobs.rescue(OPTIONS)]);
      expect(movedBy(again, 'dead')).toEqual([]);
      expect(movedBy(again, 'retried')).toEqual([]);
      expect(movedBy(again, 'cancelled')).toEqual([]);
      expect((await statsOf(queue)).failedTotal).toBe(45);
    }
  });

  it('lets exactly one of a rescue and an archive settle of the same zombie win', async () => {
    const ROUNDS = 20;
    const JOBS = 5;
    let settledTotal = 0;
    let buriedTotal = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const queue = `race-${round}`;
      const jobs = await running(queue, PLAIN, JOBS);
      await zombify(jobs);
      const settle = (): Promise<boolean[]> =>
        second.jobs.settle(
          jobs.map((job) => ({ kind: 'archive', lease: leaseOf(job), durationMs: 7 })),
        );
      const rescue = (): Promise<RescueResult> => first.jobs.rescue(OPTIONS);
      // Alternate which call is sent first, so both orders of lock acquisition occur.
      let applied: boolean[];
      let result: RescueResult;
      if (round % 2 === 0) {
        [applied, result] = await Promise.all([settle(), rescue()]);
      } else {
        [result, applied] = await Promise.all([rescue(), settle()]);
      }
      expect(result.skipped).toBe(false);

      const settled = jobs.filter((_, index) => applied[index] === true).map((job) => job.id);
      const buried = result.dead.map((job) => job.id);
      expect([...settled, ...buried].sort()).toEqual(sortedIds(jobs));

      const archive = sortedIds(await first.operator.listArchive({ queue, limit: 100 }));
      const dlq = sortedIds(await first.operator.listDead({ queue, limit: 100 }));
      expect(archive).toEqual([...settled].sort());
      expect(dlq).toEqual([...buried].sort());
      expect(await first.operator.listHot({ queue, limit: 100 })).toEqual([]);

      expect(await statsOf(queue)).toMatchObject({
        archived: settled.length,
        dead: buried.length,
        succeededTotal: settled.length,
        failedTotal: buried.length,
        retriedTotal: 0,
      });
      expect(await successesOf(queue)).toBe(settled.length);
      const failures = await failuresOf(queue);
      expect(failures.Zombie ?? 0).toBe(buried.length);
      settledTotal += settled.length;
      buriedTotal += buried.length;
    }
    expect(settledTotal + buriedTotal).toBe(ROUNDS * JOBS);
  });
});
