/**
 * Every filter and sort of the operator query reads through an index on PostgreSQL.
 *
 * The tables are filled the way a busy system fills them (200,000 archived and 50,000 dead jobs
 * over 30 days, 20,000 hot ones), analysed, and then every query shape the API offers — each
 * filter alone, under each sort key and order, on the first page and on a cursor page — is sent
 * through the store's own query code with an executor that also asks PostgreSQL for the plan.
 * No plan may read a job table sequentially: a sequential scan at a million rows is the difference
 * between a page in milliseconds and one in seconds. The counts and the error-group summary are
 * held to the same rule.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobQuery } from '../../src/index.js';
import { checkJobQuery } from '../../src/operator/query-input.js';
import type { JobTable } from '../../src/storage/job-query.js';
import type { Executor } from '../../src/storage/sql/executor.js';
import { EXACT_COUNT_COST, countTable, queryTable } from '../../src/storage/sql/job-query.js';
import { QUERIES } from '../../src/storage/sql/generated.js';
import { postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { nodesOf, type PlanNode } from '../helpers/plans.js';
import { withSchema } from '../../src/storage/sql/schema.js';
import { closeMigratedSchema, openMigratedSchema } from '../helpers/pg-schema.js';

const pgUp = await postgresAvailable();

const ARCHIVE_ROWS = 200_000;
const DLQ_ROWS = 50_000;
const HOT_ROWS = 100_000;

const JOB_TABLES = new Set(['jobs_hot', 'jobs_archive', 'jobs_dlq']);

/** What a plan does to the job tables: its sequential scans, and the indexes it reads. */
function jobTableAccess(plan: PlanNode): { seqScans: PlanNode[]; indexes: string[] } {
  const nodes = nodesOf(plan);
  return {
    seqScans: nodes.filter(
      (n) => n['Node Type'] === 'Seq Scan' && JOB_TABLES.has(n['Relation Name'] ?? ''),
    ),
    indexes: nodes.flatMap((n) => (n['Index Name']?.startsWith('jobs_') ? [n['Index Name']] : [])),
  };
}

describe.skipIf(!pgUp)('operator query plans (PostgreSQL)', () => {
  const schema = uniqueSchema('plans');
  const quoted = `"${schema}"`;
  let db: pg.Client;
  /** Plans of the statements sent since the last `take()`. */
  let plans: { sql: string; plan: PlanNode }[] = [];

  /** Runs each statement and records its plan (EXPLAIN statements themselves pass through). */
  const explaining: Executor = {
    kind: 'postgres',
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
      if (!sql.startsWith('EXPLAIN')) {
        const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          `EXPLAIN (FORMAT JSON) ${sql}`,
          [...params],
        );
        plans.push({ sql, plan: rows[0]!['QUERY PLAN'][0].Plan });
      }
      return (await db.query(sql, [...params])).rows as R[];
    },
    run: async () => Promise.reject(new Error('not used')),
    transaction: async () => Promise.reject(new Error('not used')),
    close: () => Promise.resolve(),
  };

  const take = () => {
    const taken = plans;
    plans = [];
    return taken;
  };

  beforeAll(async () => {
    db = await openMigratedSchema(schema);
    // 10 queues, 20 types, a tenant in every payload, tags on every tenth job, a retry on every
    // seventh; times spread over 30 days, finished within a minute of creation.
    await db.query(
      `INSERT INTO ${quoted}.jobs_archive (id, queue, type, payload, tags, attempts, created_at,
                                          started_at, finished_at)
       SELECT 'a' || lpad(g::text, 9, '0'), 'q' || (g % 10), 'type.' || (g % 20) || '.v1',
              '{"tenant":"t' || (g % 50) || '","n":' || g || '}',
              CASE WHEN g % 10 = 0 THEN 'vip, tenant-' || (g % 50) END,
              CASE WHEN g % 7 = 0 THEN 2 + g % 3 ELSE 1 END,
              now() - (g * interval '13 seconds'), now() - (g * interval '13 seconds'),
              now() - (g * interval '13 seconds') + interval '40 seconds'
       FROM generate_series(1, $1::int) AS g`,
      [ARCHIVE_ROWS],
    );
    await db.query(
      `INSERT INTO ${quoted}.jobs_dlq (id, queue, type, payload, tags, attempts, created_at,
                                      failed_at, failure_reason, error_details, fingerprint)
       SELECT 'd' || lpad(g::text, 9, '0'), 'q' || (g % 10), 'type.' || (g % 20) || '.v1',
              '{"tenant":"t' || (g % 50) || '","n":' || g || '}',
              CASE WHEN g % 10 = 0 THEN 'vip, tenant-' || (g % 50) END,
              1 + g % 5, now() - (g * interval '50 seconds'),
              now() - (g * interval '50 seconds') + interval '1 minute', g % 4,
              'Error: upstream ' || (g % 100) || ' refused connection ' || g,
              'fp' || lpad((g % 100)::text, 14, '0')
       FROM generate_series(1, $1::int) AS g`,
      [DLQ_ROWS],
    );
    await db.query(
      `INSERT INTO ${quoted}.dlq_error_groups (fingerprint, queue, type, error_class, message,
                                              dead_count, first_seen, last_seen)
       SELECT fingerprint, queue, type, 'Error', 'upstream <n> refused connection <n>',
              count(*), min(failed_at), max(failed_at)
       FROM ${quoted}.jobs_dlq GROUP BY fingerprint, queue, type`,
    );
    await db.query(
      `INSERT INTO ${quoted}.queues (name) SELECT 'q' || g FROM generate_series(0, 9) g`,
    );
    await db.query(
      `INSERT INTO ${quoted}.jobs_hot (id, queue, type, payload, tags, status, attempts, run_at,
                                      created_at, last_error)
       SELECT 'h' || lpad(g::text, 9, '0'), 'q' || (g % 10), 'type.' || (g % 20) || '.v1',
              '{"tenant":"t' || (g % 50) || '"}', CASE WHEN g % 10 = 0 THEN 'vip' END,
              CASE WHEN g % 100 = 0 THEN 2 ELSE 0 END, g % 3, now(),
              now() - (g * interval '1 second'),
              CASE WHEN g % 3 > 0 THEN 'Error: upstream ' || (g % 100) || ' timed out' END
       FROM generate_series(1, $1::int) AS g`,
      [HOT_ROWS],
    );
    await db.query(
      `ANALYZE ${quoted}.jobs_archive, ${quoted}.jobs_dlq, ${quoted}.jobs_hot, ${quoted}.dlq_error_groups`,
    );
  }, 180_000);

  afterAll(() => closeMigratedSchema(db, schema));

  const day = 86_400_000;
  const filters: [string, JobQuery][] = [
    ['no filter', {}],
    ['state (hot)', { state: ['pending', 'processing'] }],
    ['state (succeeded)', { state: 'succeeded' }],
    ['state (dead)', { state: 'dead' }],
    ['queue', { queue: 'q3' }],
    ['queues', { queue: ['q3', 'q4'] }],
    ['type', { type: 'type.7.v1' }],
    ['tags', { tags: 'vip' }],
    ['two tags', { tags: ['vip', 'tenant-10'] }],
    [
      'created range',
      { created: { from: new Date(Date.now() - 3 * day), to: new Date(Date.now() - day) } },
    ],
    [
      'finished range',
      { finished: { from: new Date(Date.now() - 3 * day), to: new Date(Date.now() - day) } },
    ],
    ['reason', { reason: 'Fatal' }],
    ['error group', { errorGroup: 'fp00000000000042' }],
    ['error text', { errorText: 'refused 42' }],
    ['attempts', { attempts: { min: 3 } }],
    ['attempts range', { attempts: { min: 2, max: 3 } }],
    ['id prefix', { idPrefix: 'a0000123' }],
    ['payload (bounded scan)', { payload: { tenant: 't7' } }],
  ];
  const sorts: Pick<JobQuery, 'sort' | 'order'>[] = [
    { sort: 'createdAt', order: 'desc' },
    { sort: 'createdAt', order: 'asc' },
    { sort: 'finishedAt', order: 'desc' },
    { sort: 'finishedAt', order: 'asc' },
  ];
  const cases = filters.flatMap(([name, filter]) =>
    sorts
      // finishedAt orders finished jobs only; the hot states refuse it.
      .filter((s) => s.sort === 'createdAt' || name !== 'state (hot)')
      .map((s) => [`${name}, ${s.sort} ${s.order}`, { ...filter, ...s }] as const),
  );

  /** Plans of the first page and of the page after it, per table the query asks. */
  async function pagePlans(query: JobQuery): Promise<{ table: JobTable; plan: PlanNode }[]> {
    const checked = checkJobQuery({ ...query, limit: 50 });
    const out: { table: JobTable; plan: PlanNode }[] = [];
    for (const table of checked.tables) {
      const first = await queryTable(explaining, quoted, table, {
        ...checked.base,
        limit: checked.limit,
      });
      out.push(...take().map(({ plan }) => ({ table, plan })));
      if (first.horizon === null) continue;
      await queryTable(explaining, quoted, table, {
        ...checked.base,
        limit: checked.limit,
        after: first.horizon,
      });
      out.push(...take().map(({ plan }) => ({ table, plan })));
    }
    return out;
  }

  it.each(cases)('reads pages through an index: %s', async (_name, query) => {
    const found = await pagePlans(query);
    expect(found.length).toBeGreaterThan(0);
    for (const { table, plan } of found) {
      const access = jobTableAccess(plan);
      expect(access.seqScans, `${table}: ${JSON.stringify(plan)}`).toEqual([]);
      expect(access.indexes.length, `${table} reads no index`).toBeGreaterThan(0);
    }
  });

  // A count runs only when an index answers it or the table is small; otherwise it is the
  // planner's estimate and no counting statement runs at all.
  it.each(filters)('counts without a filtered scan of a large table: %s', async (_name, filter) => {
    const checked = checkJobQuery(filter);
    for (const table of checked.tables) {
      const counted = await countTable(explaining, quoted, table, { ...checked.base, limit: 1 });
      expect(counted.count).toBeGreaterThanOrEqual(0);
      for (const { plan } of take()) {
        const filtered = jobTableAccess(plan).seqScans.filter((n) => n.Filter !== undefined);
        // The payload count is a bounded scan by design: at most 10,000 rows per table part.
        if (filter.payload !== undefined) {
          const limits = nodesOf(plan).filter((n) => n['Node Type'] === 'Limit');
          expect(limits.length).toBeGreaterThan(0);
          continue;
        }
        if (plan['Total Cost'] > EXACT_COUNT_COST) {
          expect(filtered, `${table}: ${JSON.stringify(plan)}`).toEqual([]);
        }
      }
    }
  });

  it('counts past 10,000 rows as an estimate', async () => {
    const checked = checkJobQuery({ state: 'succeeded' });
    const counted = await countTable(explaining, quoted, 'archive', { ...checked.base, limit: 1 });
    take();
    expect(counted.exact).toBe(false);
    expect(counted.count).toBeGreaterThan(ARCHIVE_ROWS / 2);
  });

  it('estimates a count no index answers instead of scanning for it', async () => {
    // 5,000 of the 100,000 hot jobs have this type, and the hot table has no type index.
    const checked = checkJobQuery({ state: 'pending', type: 'type.7.v1' });
    const counted = await countTable(explaining, quoted, 'hot', { ...checked.base, limit: 1 });
    expect(take()).toEqual([]);
    expect(counted.exact).toBe(false);
    expect(counted.count).toBeGreaterThan(2_500);
    expect(counted.count).toBeLessThan(10_000);
  });

  it('counts exactly where an index answers', async () => {
    const checked = checkJobQuery({ errorGroup: 'fp00000000000042' });
    const counted = await countTable(explaining, quoted, 'dlq', { ...checked.base, limit: 1 });
    take();
    expect(counted).toEqual({ count: DLQ_ROWS / 100, exact: true });
  });

  it('reads error groups from the summary, sampling through the fingerprint index', async () => {
    const sql = withSchema(QUERIES.error_groups, schema);
    for (const params of [
      [null, null, 100],
      [['q3'], ['type.3.v1'], 10],
    ]) {
      const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) ${sql}`,
        params,
      );
      const plan = rows[0]!['QUERY PLAN'][0].Plan;
      const access = jobTableAccess(plan);
      expect(access.seqScans).toEqual([]);
      expect(access.indexes, JSON.stringify(plan)).toContain('jobs_dlq_fingerprint_idx');
    }
  });
});
