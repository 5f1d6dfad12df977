/**
 * The retention purge at scale on PostgreSQL: 200,000 expired archive rows are purged in batches
 * by the background loop while workers drain new jobs. Every new job finishes exactly once, the
 * old rows all go, and no batch takes longer than the bound docs/observability.md states (2 s;
 * a 1,000-row batch takes tens of milliseconds here).
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';

const pgUp = await postgresAvailable();
const OLD_ROWS = 200_000;
const NEW_JOBS = 3000;
/** The longest a purge batch may take (docs/observability.md). */
const BATCH_BOUND_MS = 2000;

describe.skipIf(!pgUp)('retention under load (PostgreSQL)', () => {
  const schema = uniqueSchema('retain');
  const admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });

  afterAll(async () => {
    await admin.end();
    await dropSchema(schema);
  });

  it('purges 200,000 expired archive rows in batches while workers drain', async () => {
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
    const batches: { ms: number; rows: number }[] = [];
    const purgeBatch = storage.purgeBatch.bind(storage);
    storage.purgeBatch = async (rule, limit) => {
      const started = performance.now();
      const rows = await purgeBatch(rule, limit);
      if (rule.table === 'archive') batches.push({ ms: performance.now() - started, rows });
      return rows;
    };
    const ran = new Map<number, number>();
    const job = defineJob({
      type: 'load.job.v1',
      queue: 'load',
      handle: (payload: { n: number }) => {
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
    await chokaq.start();
    try {
      for (let i = 0; i < NEW_JOBS; i += 300) {
        await chokaq.enqueueMany(
          job,
          Array.from({ length: 300 }, (_, k) => ({ payload: { n: i + k } })),
        );
      }
      const oldLeft = async () =>
        Number(
          (
            await admin.query<{ n: string }>(
              `SELECT count(*) AS n FROM "${schema}".jobs_archive WHERE id LIKE 'old-%'`,
            )
          ).rows[0]?.n,
        );
      await waitFor(
        async () =>
          (await oldLeft()) === 0 &&
          (await chokaq.jobs.count({ state: 'succeeded' })).count === NEW_JOBS,
        { timeoutMs: 120_000, intervalMs: 250, message: 'the purge and the drain to finish' },
      );
      expect([...ran.values()].every((runs) => runs === 1)).toBe(true);
      expect(ran.size).toBe(NEW_JOBS);
      expect(
        (await chokaq.jobs.count({ state: ['pending', 'fetched', 'processing', 'dead'] })).count,
      ).toBe(0);
      expect(batches.reduce((n, b) => n + b.rows, 0)).toBe(OLD_ROWS);
      expect(batches.length).toBeGreaterThanOrEqual(OLD_ROWS / 1000);
      const slowest = Math.max(...batches.map((b) => b.ms));
      console.log(
        `retention: ${batches.length} archive batches, slowest ${slowest.toFixed(1)} ms, median ${[...batches].sort((a, b) => a.ms - b.ms)[Math.floor(batches.length / 2)]?.ms.toFixed(1)} ms`,
      );
      expect(slowest).toBeLessThan(BATCH_BOUND_MS);
    } finally {
      await chokaq.stop();
    }
  }, 180_000);
});
