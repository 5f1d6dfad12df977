/**
 * The retention purge at scale on PostgreSQL: 200,000 expired archive rows are purged in batches
 * by the background loop while workers drain new jobs, which a producer keeps enqueuing until the
 * purge is over, so the two overlap by construction (and the test checks they did). Every new job
 * runs exactly once and the old rows all go. What the workers wait on is measured two ways, against
 * the bounds docs/observability.md states: every claim and settle call that overlapped the purge
 * is timed, and pg_stat_activity is sampled for worker sessions waiting on a lock the purge holds.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { sleep, waitFor } from '../helpers/wait.js';

const pgUp = await postgresAvailable();
const OLD_ROWS = 200_000;
/** Jobs enqueued before the workers start, then per producer step (every 100 ms). */
const FIRST_JOBS = 1000;
const STEP_JOBS = 100;
/** The longest a purge batch may take (docs/observability.md). */
const BATCH_BOUND_MS = 2000;
/** The longest a worker's claim or settle call may take while the purge runs (same). */
const CALL_BOUND_MS = 1000;
/** The producer gives up after this, failing the test, rather than run forever. */
const PRODUCE_LIMIT_MS = 90_000;
/** Text of the purge's archive batch statement, to tell its sessions from the workers'. */
const PURGE_SQL = '%jobs_archive a USING picked%';

/** A timed call: when it began and how long it took, in ms on `performance.now()`. */
interface Timed {
  start: number;
  ms: number;
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
};

describe.skipIf(!pgUp)('retention under load (PostgreSQL)', () => {
  const schema = uniqueSchema('retain');
  const admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 3 });

  afterAll(async () => {
    await admin.end();
    await dropSchema(schema);
  });

  it('purges 200,000 expired archive rows in batches while workers drain, holding them up on no lock', async () => {
    const storage = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
    await storage.open();
    await admin.query(
      `INSERT INTO "${schema}".jobs_archive (id, queue, type, payload, attempts, created_at,
                                           started_at, finished_at)
       SELECT 'old-' || g, 'load', 'load.job.v1', '{}', 1, now() - interval '3 days',
              now() - interval '3 days', now() - interval '2 days' - g * interval '1 ms'
       FROM generate_series(1, $1::int) AS g`,
      [OLD_ROWS],
    );
    await admin.query(`ANALYZE "${schema}".jobs_archive`);

    let enqueued = 0;
    let succeeded = 0;
    const batches: (Timed & { rows: number; unsettled: number; succeeded: number })[] = [];
    let purgedRows = 0;
    // Jobs wait for the purge to begin, so it surely begins while they are unsettled.
    let purgeBegins = (): void => undefined;
    const purgeBegan = new Promise<void>((resolve) => (purgeBegins = resolve));
    const purgeBatch = storage.retention.purgeBatch.bind(storage.retention);
    storage.retention.purgeBatch = async (rule, limit) => {
      const start = performance.now();
      const unsettledAtStart = enqueued - succeeded;
      if (rule.table === 'archive') purgeBegins();
      const rows = await purgeBatch(rule, limit);
      if (rule.table === 'archive' && rows > 0) {
        purgedRows += rows;
        const ms = performance.now() - start;
        batches.push({ start, ms, rows, unsettled: unsettledAtStart, succeeded });
      }
      return rows;
    };
    const claims: Timed[] = [];
    const settles: Timed[] = [];
    const claim = storage.jobs.claim.bind(storage.jobs);
    storage.jobs.claim = async (request) => {
      const start = performance.now();
      try {
        return await claim(request);
      } finally {
        claims.push({ start, ms: performance.now() - start });
      }
    };
    const settle = storage.jobs.settle.bind(storage.jobs);
    storage.jobs.settle = async (items) => {
      const start = performance.now();
      try {
        return await settle(items);
      } finally {
        settles.push({ start, ms: performance.now() - start });
      }
    };
    const settleAndClaim = storage.jobs.settleAndClaim.bind(storage.jobs);
    storage.jobs.settleAndClaim = async (items, handoff) => {
      const start = performance.now();
      try {
        return await settleAndClaim(items, handoff);
      } finally {
        settles.push({ start, ms: performance.now() - start });
      }
    };

    const ran = new Map<number, number>();
    const job = defineJob({
      type: 'load.job.v1',
      queue: 'load',
      handle: async (payload: { n: number }) => {
        await purgeBegan;
        ran.set(payload.n, (ran.get(payload.n) ?? 0) + 1);
      },
    });
    const chokaq = new ChokaQ({
      storage,
      jobs: [job],
      concurrency: 16,
      logger: silentLogger,
      retention: { archive: '1d', interval: '1s', batchSize: 1000 },
    });
    chokaq.on('job:succeeded', () => {
      succeeded += 1;
    });
    const enqueue = async (count: number) => {
      const first = enqueued;
      await chokaq.enqueueMany(
        job,
        Array.from({ length: count }, (_, k) => ({ payload: { n: first + k } })),
      );
      enqueued += count;
    };
    const purgeDone = () => purgedRows >= OLD_ROWS;

    // Worker sessions waiting on a lock, and those of them blocked by the purge's statement.
    let samples = 0;
    let lockWaits = 0;
    let blockedByPurge = 0;
    const sampler = (async () => {
      const deadline = Date.now() + PRODUCE_LIMIT_MS;
      while (!purgeDone() && Date.now() < deadline) {
        const { rows } = await admin.query<{ waiting: number; on_purge: number }>(
          `SELECT count(*)::int AS waiting,
                  count(*) FILTER (WHERE EXISTS (
                    SELECT 1 FROM pg_stat_activity b
                    WHERE b.pid = ANY (pg_blocking_pids(a.pid)) AND b.query LIKE $2))::int AS on_purge
           FROM pg_stat_activity a
           WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
             AND a.wait_event_type = 'Lock' AND a.query LIKE $1 AND a.query NOT LIKE $2`,
          [`%${schema}%`, PURGE_SQL],
        );
        samples += 1;
        lockWaits += rows[0]?.waiting ?? 0;
        blockedByPurge += rows[0]?.on_purge ?? 0;
        await sleep(10);
      }
    })();

    await enqueue(FIRST_JOBS);
    await chokaq.start();
    try {
      const deadline = Date.now() + PRODUCE_LIMIT_MS;
      while (!purgeDone() && Date.now() < deadline) {
        await enqueue(STEP_JOBS);
        await sleep(100);
      }
      await sampler;
      expect(purgeDone()).toBe(true);
      // At least every job (one run twice would otherwise read as a drain that never ends; the
      // exact counts are asserted below), and on a timeout what was left, to tell a stall.
      await waitFor(() => succeeded >= enqueued, {
        timeoutMs: 60_000,
        intervalMs: 50,
        message: 'the drain to finish',
      }).catch(async (error: unknown) => {
        const left = await chokaq.jobs.count({ state: ['pending', 'fetched', 'processing'] });
        const dead = await chokaq.jobs.count({ state: ['dead'] });
        const twice = [...ran.values()].filter((runs) => runs > 1).length;
        throw new Error(
          `${String(error)}: ${succeeded} of ${enqueued} succeeded, ${ran.size} ran (${twice} more than once), ${left.count} pending or running, ${dead.count} dead`,
        );
      });
      const oldLeft = await admin.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${schema}".jobs_archive WHERE id LIKE 'old-%'`,
      );
      expect(Number(oldLeft.rows[0]?.n)).toBe(0);

      // No lost job, none run twice.
      expect(ran.size).toBe(enqueued);
      expect([...ran.values()].every((runs) => runs === 1)).toBe(true);
      expect(
        (await chokaq.jobs.count({ state: ['pending', 'fetched', 'processing', 'dead'] })).count,
      ).toBe(0);
      expect(purgedRows).toBe(OLD_ROWS);
      expect(batches.length).toBeGreaterThanOrEqual(OLD_ROWS / 1000);

      // The purge ran while the workers drained: jobs were waiting when its first batch began,
      // and workers settled jobs between its first and last batch.
      const first = batches[0]!;
      const last = batches[batches.length - 1]!;
      const purgeEnd = last.start + last.ms;
      expect(first.unsettled).toBeGreaterThan(0);
      expect(succeeded - first.succeeded).toBeGreaterThan(0);
      expect(last.succeeded).toBeGreaterThan(first.succeeded);

      // What the workers waited on meanwhile.
      const during = (calls: Timed[]) =>
        calls.filter((c) => c.start + c.ms >= first.start && c.start <= purgeEnd).map((c) => c.ms);
      const claimMs = during(claims);
      const settleMs = during(settles);
      expect(claimMs.length).toBeGreaterThan(0);
      expect(settleMs.length).toBeGreaterThan(0);
      expect(samples).toBeGreaterThan(10);
      const slowest = Math.max(...batches.map((b) => b.ms));
      const line = (name: string, ms: number[]) =>
        `${name} ${ms.length} calls, p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`;
      console.log(
        [
          `retention: ${batches.length} archive batches in ${((purgeEnd - first.start) / 1000).toFixed(1)} s while ${enqueued} jobs drained; batch median ${percentile(
            batches.map((b) => b.ms),
            50,
          ).toFixed(1)} ms, slowest ${slowest.toFixed(1)} ms`,
          `during the purge: ${line('claim', claimMs)}; ${line('settle', settleMs)}`,
          `pg_stat_activity: ${samples} samples, ${lockWaits} worker lock waits, ${blockedByPurge} blocked by the purge`,
        ].join('\n'),
      );
      expect(slowest).toBeLessThan(BATCH_BOUND_MS);
      expect(Math.max(...claimMs)).toBeLessThan(CALL_BOUND_MS);
      expect(Math.max(...settleMs)).toBeLessThan(CALL_BOUND_MS);
      expect(blockedByPurge).toBe(0);
    } finally {
      await chokaq.stop();
    }
  }, 240_000);
});
