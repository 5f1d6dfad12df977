/**
 * Graceful shutdown of the real CLI under load: `node dist/cli/main.js worker <module>` drains
 * 2,000 jobs (mostly 5–30 ms, every 40th one 2 s; cooperative handlers honour ctx.signal) with
 * concurrency 16 and a 200 ms shutdown grace period. SIGTERM arrives mid-run while long jobs are
 * running. The process must exit 0 within a few seconds and leave nothing fetched or processing:
 * the interrupted runs go back to pending with the attempt refunded (`lostAttempts` + 1), the
 * prefetched ones are released untouched. A second CLI worker then finishes the rest, and every
 * job is archived exactly once — no handler completes twice.
 *
 * The module (test/fixtures/crash-shutdown-jobs.mjs) records `start` and `done` rows per run in
 * `<schema>.executions`.
 */
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { killAll, requireDist, spawnNode, type Child } from '../fixtures/crash-process.js';
import { withTimeout } from '../helpers/wait.js';

const MODULE = 'test/fixtures/crash-shutdown-jobs.mjs';
const JOBS = 2000;
const LONG_EVERY = 40;
const LONG_MS = 2000;
/** SIGTERM once at least this many jobs are archived (and a long job is running). */
const ARCHIVED_BEFORE_SIGTERM = 300;
/** The signalled process must be gone within this long. */
const EXIT_LIMIT_MS = 5000;
const DRAIN_LIMIT_MS = 60_000;

const pgUp = await postgresAvailable();

describe.skipIf(!pgUp)('crash: SIGTERM to `chokaq worker` under load (PostgreSQL)', () => {
  const schema = uniqueSchema('crash_sd');
  const children: Child[] = [];
  let producer: ChokaQ | undefined;
  let db: pg.Client | undefined;
  const ids: string[] = [];

  beforeAll(async () => {
    requireDist(['dist/cli/main.js', 'dist/index.js', 'dist/storage/postgres/index.js']);
    const job = defineJob<{ ms: number }>({
      type: 'crash.shutdown.v1',
      queue: 'shutdown',
      handle: () => undefined,
    });
    producer = new ChokaQ({
      storage: postgres({
        connectionString: TEST_DATABASE_URL,
        schema,
        poolSize: 2,
        logger: silentLogger,
      }),
      jobs: [job],
      worker: false,
      logger: silentLogger,
    });
    await producer.storage.open();
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    await db.query(
      `CREATE TABLE "${schema}".executions (
         seq bigserial PRIMARY KEY,
         job_id text NOT NULL,
         pid integer NOT NULL,
         phase text NOT NULL
       )`,
    );
    const items = Array.from({ length: JOBS }, (_, n) => ({
      payload: {
        ms: n % LONG_EVERY === LONG_EVERY / 2 ? LONG_MS : 5 + Math.floor(Math.random() * 26),
      },
    }));
    for (const result of await producer.enqueueMany(job, items)) ids.push(result.id);
  }, 60_000);

  afterAll(async () => {
    await killAll(children);
    await db?.end().catch(() => undefined);
    await producer?.stop().catch(() => undefined);
    if (pgUp) await dropSchema(schema);
  }, 60_000);

  /** Starts `chokaq worker` on the schema and waits until it says it is running. */
  async function startCli(name: string): Promise<Child> {
    const child = spawnNode(
      name,
      [
        'dist/cli/main.js',
        'worker',
        MODULE,
        '--database-url',
        TEST_DATABASE_URL,
        '--schema',
        schema,
      ],
      { CRASH_URL: TEST_DATABASE_URL, CRASH_SCHEMA: schema },
    );
    children.push(child);
    await child.waitForLine(`chokaq worker ${hostname()}-${child.pid}-`, 30_000, true);
    return child;
  }

  it('exits 0, refunds interrupted runs, and a second worker archives every job once', async () => {
    const client = db as pg.Client;
    const one = async (sql: string): Promise<number> =>
      (await client.query<{ n: number }>(sql)).rows[0]?.n ?? -1;
    const hot = `"${schema}".jobs_hot`;
    const archive = `"${schema}".jobs_archive`;

    const first = await startCli('cli-worker-1');
    const deadline = Date.now() + DRAIN_LIMIT_MS;
    let ready = false;
    while (!ready && Date.now() < deadline) {
      await sleep(50);
      const archived = await one(`SELECT count(*)::int AS n FROM ${archive}`);
      const longRunning = await one(
        `SELECT count(*)::int AS n FROM ${hot} WHERE status = 2 AND payload::jsonb->>'ms' = '${LONG_MS}'`,
      );
      ready = archived >= ARCHIVED_BEFORE_SIGTERM && longRunning > 0;
    }
    expect(ready, 'a long job running after enough jobs were archived').toBe(true);

    const signalledAt = Date.now();
    first.process.kill('SIGTERM');
    const status = await withTimeout(first.exited, EXIT_LIMIT_MS + 5000, 'exit after SIGTERM');
    const exitMs = Date.now() - signalledAt;
    expect(status, first.stderr).toEqual({ code: 0, signal: null });
    expect(exitMs).toBeLessThan(EXIT_LIMIT_MS);
    expect(first.stderr).toContain('stopped');

    // Nothing is left fetched or processing; nothing failed.
    const rows = await client.query<{
      id: string;
      status: number;
      attempts: number;
      lost_attempts: number;
      last_error: string | null;
      due: boolean;
    }>(
      `SELECT id, status, attempts, lost_attempts, last_error, run_at <= now() AS due FROM ${hot}`,
    );
    const left = rows.rows;
    expect(left.filter((r) => r.status !== 0)).toEqual([]);
    expect(await one(`SELECT count(*)::int AS n FROM "${schema}".jobs_dlq`)).toBe(0);
    const archivedAfterFirst = await one(`SELECT count(*)::int AS n FROM ${archive}`);
    expect(archivedAfterFirst + left.length).toBe(JOBS);
    expect(left.length).toBeGreaterThan(0);

    // Runs of the first process: started, and completed (`done`).
    const runs = await client.query<{ job_id: string; phase: string }>(
      `SELECT job_id, phase FROM "${schema}".executions WHERE pid = $1`,
      [first.pid],
    );
    const startedFirst = new Set(runs.rows.filter((r) => r.phase === 'start').map((r) => r.job_id));
    const doneFirst = new Set(runs.rows.filter((r) => r.phase === 'done').map((r) => r.job_id));

    // Interrupted runs: back to pending, due at once, the attempt refunded, the loss recorded.
    const interrupted = left.filter((r) => r.lost_attempts > 0);
    expect(interrupted.length).toBeGreaterThan(0);
    for (const row of interrupted) {
      expect(row).toMatchObject({ status: 0, attempts: 0, lost_attempts: 1, due: true });
      expect(row.last_error ?? '').toMatch(/shutdown/i);
      expect(startedFirst.has(row.id)).toBe(true);
      expect(doneFirst.has(row.id)).toBe(false);
    }
    // Everything else still hot never ran (released prefetch or never claimed): no attempt used.
    const untouched = left.filter((r) => r.lost_attempts === 0);
    expect(untouched.filter((r) => r.attempts !== 0 || startedFirst.has(r.id))).toEqual([]);
    // Every handler that completed in the first process was settled before it exited.
    const archivedIds = new Set(
      (await client.query<{ id: string }>(`SELECT id FROM ${archive}`)).rows.map((r) => r.id),
    );
    expect([...doneFirst].filter((id) => !archivedIds.has(id))).toEqual([]);
    expect(archivedIds.size).toBe(doneFirst.size);

    // A second worker finishes the rest.
    const second = await startCli('cli-worker-2');
    let archived = archivedAfterFirst;
    while (archived < JOBS && Date.now() < deadline + DRAIN_LIMIT_MS) {
      await sleep(100);
      archived = await one(`SELECT count(*)::int AS n FROM ${archive}`);
    }
    expect(archived).toBe(JOBS);
    second.process.kill('SIGTERM');
    expect(
      await withTimeout(second.exited, EXIT_LIMIT_MS + 5000, 'second exit'),
      second.stderr,
    ).toEqual({ code: 0, signal: null });

    // Every job archived exactly once; no handler completed twice.
    expect(await one(`SELECT count(*)::int AS n FROM ${hot}`)).toBe(0);
    expect(await one(`SELECT count(*)::int AS n FROM "${schema}".jobs_dlq`)).toBe(0);
    const final = await client.query<{ id: string; attempts: number; lost_attempts: number }>(
      `SELECT id, attempts, lost_attempts FROM ${archive}`,
    );
    expect(new Set(final.rows.map((r) => r.id))).toEqual(new Set(ids));
    const done = await client.query<{ job_id: string; n: number }>(
      `SELECT job_id, count(*)::int AS n FROM "${schema}".executions WHERE phase = 'done' GROUP BY job_id`,
    );
    expect(done.rows.length).toBe(JOBS);
    expect(done.rows.filter((r) => r.n !== 1)).toEqual([]);
    const interruptedIds = new Set(interrupted.map((r) => r.id));
    for (const row of final.rows) {
      expect(row).toEqual({
        id: row.id,
        attempts: 1,
        lost_attempts: interruptedIds.has(row.id) ? 1 : 0,
      });
    }
    const stats = (await (producer as ChokaQ).queues.stats()).find((s) => s.queue === 'shutdown');
    expect({
      succeeded: stats?.succeededTotal,
      failed: stats?.failedTotal,
      retried: stats?.retriedTotal,
    }).toEqual({ succeeded: JOBS, failed: 0, retried: interrupted.length });

    console.info(
      `shutdown: SIGTERM after ${archivedAfterFirst} of ${JOBS} archived; exit 0 in ${exitMs} ms; ` +
        `${interrupted.length} interrupted runs refunded (lostAttempts 1, attempts 0), ` +
        `${untouched.length} jobs still pending untouched; second worker archived the rest`,
    );
  }, 150_000);
});
