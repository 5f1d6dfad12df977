/**
 * capped_queues.sql, which every store re-reads about once a second to choose its claim
 * statement: on a hot table where most pending jobs carry a concurrency key it still reads
 * through the partial indexes (one probe per queue holding such jobs, plus one), never the whole
 * table — before, a queue without keyed jobs (such as `default`) was probed with a sequential
 * scan of every hot row — and its flags are right for every kind of queue.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERIES } from '../../src/storage/sql/generated.js';
import { postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { nodesOf, type PlanNode } from '../helpers/plans.js';
import { withSchema } from '../../src/storage/sql/schema.js';
import { closeMigratedSchema, openMigratedSchema } from '../helpers/pg-schema.js';

const pgUp = await postgresAvailable();
/** Pending jobs with a key and a limit, all in one queue: most of the hot table. */
const KEYED_ROWS = 50_000;

describe.skipIf(!pgUp)('capped_queues.sql on a mostly keyed hot table (PostgreSQL)', () => {
  const schema = uniqueSchema('probe');
  const quoted = `"${schema}"`;
  const statement = withSchema(QUERIES.capped_queues, schema);
  let db: pg.Client;

  beforeAll(async () => {
    db = await openMigratedSchema(schema);
    await db.query(
      `INSERT INTO ${quoted}.queues (name, max_workers)
       VALUES ('tenants', NULL), ('keys-only', NULL), ('plain', NULL), ('capped', 2),
              ('running', NULL)`,
    );
    // status: 0 pending, 2 processing (a processing keyed job makes no queue keyed).
    const insert = (sql: string, params: unknown[] = []) =>
      db.query(
        `INSERT INTO ${quoted}.jobs_hot (id, queue, type, payload, status, run_at,
                                        concurrency_key, concurrency_limit)
         ${sql}`,
        params,
      );
    await insert(
      `SELECT 't' || g, 'tenants', 'probe.v1', '{}', 0, now(), 'tenant-' || (g % 100), 2
       FROM generate_series(1, $1::int) AS g`,
      [KEYED_ROWS],
    );
    await insert(`SELECT 'k' || g, 'keys-only', 'probe.v1', '{}', 0, now(), 'k', NULL
                  FROM generate_series(1, 3) AS g`);
    await insert(`SELECT 'p' || g, 'plain', 'probe.v1', '{}', 0, now(), NULL, NULL
                  FROM generate_series(1, 3) AS g`);
    await insert(`SELECT 'r' || g, 'running', 'probe.v1', '{}', 2, now(), 'r', 1
                  FROM generate_series(1, 3) AS g`);
    await db.query(`ANALYZE ${quoted}.jobs_hot, ${quoted}.queues`);
  }, 120_000);

  afterAll(() => closeMigratedSchema(db, schema));

  it('reads the hot table through its partial indexes only', async () => {
    const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (FORMAT JSON) ${statement}`,
    );
    const nodes = nodesOf(rows[0]!['QUERY PLAN'][0].Plan);
    const hot = nodes.filter((n) => n['Relation Name'] === 'jobs_hot');
    expect(hot.length).toBeGreaterThan(0);
    expect(hot.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
    expect(new Set(hot.map((n) => n['Index Name']))).toEqual(
      new Set(['jobs_hot_keyed_order_idx', 'jobs_hot_limited_idx']),
    );
  });

  it('flags each queue by its pending jobs and its cap', async () => {
    const { rows } = await db.query(statement);
    expect(rows).toEqual([
      { name: 'capped', capped: true, keyed: false, limited: false },
      { name: 'default', capped: false, keyed: false, limited: false },
      { name: 'keys-only', capped: false, keyed: true, limited: false },
      { name: 'plain', capped: false, keyed: false, limited: false },
      { name: 'running', capped: false, keyed: false, limited: false },
      { name: 'tenants', capped: false, keyed: true, limited: true },
    ]);
  });
});
