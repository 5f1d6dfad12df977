/**
 * The statements that take a round of job ids (the worker's settles, start marks and heartbeats,
 * the DLQ's purge and resurrect) read every job table by its index, however large the round is
 * against the table. A round of a few hundred ids on a backlog of a few thousand jobs once made the
 * planner join the ids to a sequential scan of `jobs_hot` (~7 ms a settle at 20,000 rows, growing
 * with the backlog); the ids are now also given as an array the planner cannot count.
 *
 * The tables hold 20,000 rows each, analysed; each statement is planned (`EXPLAIN`, nothing runs)
 * with 500 ids, the most a settle round holds, through the store's own typed statement functions.
 * Retention's window of events (step_purge_events.sql) is held to the same: one range of the
 * events' key, and each job table probed by index for the events it read, never read whole.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementValues } from '../../src/storage/postgres/array-param.js';
import type { Executor } from '../../src/storage/sql/executor.js';
import { QUERIES } from '../../src/storage/sql/generated.js';
import { bindQueries } from '../../src/storage/sql/schema.js';
import * as run from '../../src/storage/sql/statements.js';
import { postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { nodesOf, type PlanNode } from '../helpers/plans.js';
import { closeMigratedSchema, openMigratedSchema } from '../helpers/pg-schema.js';

const pgUp = await postgresAvailable();

const ROWS = 20_000;
/** The ids of one round: the completer's most settlements per round. */
const ROUND = 500;
const TABLES = new Set(['jobs_hot', 'jobs_archive', 'jobs_dlq', 'job_steps', 'job_events']);

type Explained = { 'QUERY PLAN': [{ Plan: PlanNode }] };

/** A parameter's text (the test's values: strings without quotes, numbers, booleans, nulls). */
function literalOf(value: unknown): string {
  if (!Array.isArray(value)) return String(value);
  return `{${value.map((e) => (e === null ? 'NULL' : `"${String(e)}"`)).join(',')}}`;
}

/**
 * What would make a round's cost grow faster than its size: a sequential scan of a job table, or
 * a nested loop that reads the round's ids again for every row of its outer side.
 */
function quadraticOrScans(plan: PlanNode): string[] {
  return nodesOf(plan).flatMap((n) => {
    if (n['Node Type'] === 'Seq Scan' && TABLES.has(n['Relation Name'] ?? '')) {
      return [`Seq Scan on ${n['Relation Name']}`];
    }
    const inner = n['Node Type'] === 'Nested Loop' ? n.Plans?.[1] : undefined;
    if (inner && ['CTE Scan', 'Function Scan'].includes(inner['Node Type'])) {
      return [`Nested Loop over ${inner['Node Type']}`];
    }
    return [];
  });
}

describe.skipIf(!pgUp)('plans of the statements that take a round of ids (PostgreSQL)', () => {
  const schema = uniqueSchema('rounds');
  const quoted = `"${schema}"`;
  const sql = bindQueries(QUERIES, schema);
  let db: pg.Client;
  let plan: PlanNode | undefined;

  /** The plan PostgreSQL makes for each statement sent, instead of running it. */
  let generic = false;
  const explaining: Executor = {
    kind: 'postgres',
    async query<R>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      const values = statementValues(params);
      // A prepared statement's plan after five calls may be the generic one, made without the
      // parameters' values: it is checked as well as the plan made for the values.
      const { rows } = generic
        ? await explainGeneric(text, values)
        : await db.query<Explained>(`EXPLAIN (FORMAT JSON) ${text}`, values);
      plan = rows[0]!['QUERY PLAN'][0].Plan;
      return [];
    },
    run: async () => Promise.reject(new Error('not used')),
    transaction: async () => Promise.reject(new Error('not used')),
    close: () => Promise.resolve(),
  };

  const lastPlan = (): PlanNode => {
    if (plan === undefined) throw new Error('the statement was not sent');
    return plan;
  };

  /** The generic plan of `text` (`EXECUTE` of a statement prepared in SQL, values as literals). */
  const explainGeneric = async (text: string, values: readonly unknown[]) => {
    await db.query(`PREPARE round_statement AS ${text}`);
    try {
      const literals = values.map((v) => (v === null ? 'NULL' : db.escapeLiteral(literalOf(v))));
      return await db.query<Explained>(
        `EXPLAIN (FORMAT JSON) EXECUTE round_statement(${literals.join(', ')})`,
      );
    } finally {
      await db.query('DEALLOCATE round_statement');
    }
  };

  const ids = (prefix: string) =>
    Array.from({ length: ROUND }, (_, i) => `${prefix}${String(i * 37 + 1).padStart(9, '0')}`);
  const hot = ids('h');
  const dead = ids('d');
  const same = <T>(value: T) => hot.map(() => value);
  const lease = { ids: hot, workerIds: same('w1'), leaseTokens: same('t1') };
  const archive = {
    ...lease,
    durationsMs: same(1),
    notes: null,
    results: null,
    keep: null,
    now: null,
  };

  beforeAll(async () => {
    db = await openMigratedSchema(schema);
    // Every 37th hot job is fetched under one lease (the round); the others are pending.
    await db.query(
      `INSERT INTO ${quoted}.jobs_hot (id, queue, type, payload, run_at, status, worker_id,
                                      lease_token)
       SELECT 'h' || lpad(g::text, 9, '0'), 'q' || (g % 10), 'type.a', '{}', now(),
              CASE WHEN g % 37 = 1 THEN 1 ELSE 0 END,
              CASE WHEN g % 37 = 1 THEN 'w1' END, CASE WHEN g % 37 = 1 THEN 't1' END
       FROM generate_series(1, $1::int) AS g`,
      [ROWS],
    );
    await db.query(
      `INSERT INTO ${quoted}.jobs_archive (id, queue, type, payload, attempts, created_at,
                                          started_at, finished_at)
       SELECT 'a' || lpad(g::text, 9, '0'), 'q' || (g % 10), 'type.a', '{}', 1, now(), now(), now()
       FROM generate_series(1, $1::int) AS g`,
      [ROWS],
    );
    await db.query(
      `INSERT INTO ${quoted}.jobs_dlq (id, queue, type, payload, attempts, created_at, failed_at,
                                      failure_reason, error_details, fingerprint)
       SELECT 'd' || lpad(g::text, 9, '0'), 'q' || (g % 10), 'type.a', '{}', 1, now(), now(), 0,
              'Error: boom', 'fp'
       FROM generate_series(1, $1::int) AS g`,
      [ROWS],
    );
    await db.query(
      `INSERT INTO ${quoted}.job_steps (job_id, name, kind, done, recorded_at, result)
       SELECT 'a' || lpad(g::text, 9, '0'), 'step', 0, true, now(), '1'
       FROM generate_series(1, $1::int) AS g`,
      [ROWS],
    );
    // Events of archived jobs, and of jobs in no table (left behind), every 37th.
    await db.query(
      `INSERT INTO ${quoted}.job_events (job_id, topic, data, sent_at)
       SELECT CASE WHEN g % 37 = 1 THEN 'x' ELSE 'a' END || lpad(g::text, 9, '0'), 't', '1', now()
       FROM generate_series(1, $1::int) AS g`,
      [ROWS],
    );
    await db.query(
      `ANALYZE ${quoted}.jobs_hot, ${quoted}.jobs_archive, ${quoted}.jobs_dlq, ${quoted}.job_steps,
               ${quoted}.job_events`,
    );
  }, 120_000);

  afterAll(() => closeMigratedSchema(db, schema));

  const cases: [string, () => Promise<unknown>][] = [
    ['start', () => run.start(explaining, sql, { ...lease, now: null })],
    ['settle_archive_plain', () => run.settleArchivePlain(explaining, sql, archive)],
    ['settle_archive', () => run.settleArchive(explaining, sql, archive)],
    ['archive_evict', () => run.archiveEvict(explaining, sql, { ...lease, keep: null })],
    [
      'settle_retry',
      () =>
        run.settleRetry(explaining, sql, {
          ...lease,
          fromStatuses: same(2),
          delaysMs: same(0),
          errors: same('Error: boom'),
          lost: same(false),
          now: null,
        }),
    ],
    ['settle_release', () => run.settleRelease(explaining, sql, { ...lease, now: null })],
    [
      'heartbeat',
      () => run.heartbeat(explaining, sql, { ...lease, progress: same(null), now: null }),
    ],
    [
      'move_to_dlq',
      () =>
        run.moveToDlq(explaining, sql, {
          ids: hot,
          fromStatuses: same(2),
          reasons: same(0),
          errors: same('Error: boom'),
          actors: same(null),
          workerIds: lease.workerIds,
          leaseTokens: lease.leaseTokens,
          fingerprints: same('fp'),
          errorClasses: same('Error'),
          messages: same('boom'),
          frames: same(null),
          now: null,
        }),
    ],
    ['step_forget', () => run.stepForget(explaining, sql, { ids: hot })],
    [
      'purge_dead',
      () => run.purgeDead(explaining, sql, { ids: dead, versions: dead.map(() => null) }),
    ],
    [
      'resurrect',
      () =>
        run.resurrect(explaining, sql, {
          ids: dead,
          actor: 'op',
          payloads: dead.map(() => null),
          replaceTags: false,
          tags: null,
          priority: 0,
          versions: dead.map(() => null),
          now: null,
        }),
    ],
    [
      'workflow_link',
      () =>
        run.workflowLink(explaining, sql, {
          jobIds: hot,
          dependsOn: dead.map((id) => id.replace('d', 'a')),
          onDeath: same(0),
          ords: hot.map((_, i) => i),
        }),
    ],
  ];

  describe.each([
    ['for its values', false],
    ['generic', true],
  ])('the plan %s', (_, isGeneric) => {
    beforeAll(async () => {
      generic = isGeneric;
      await db.query(`SET plan_cache_mode = ${isGeneric ? 'force_generic_plan' : 'auto'}`);
    });

    it.each(cases)('%s reads each job table by index, each id once', async (_, send) => {
      plan = undefined;
      await send();
      expect(quadraticOrScans(lastPlan())).toEqual([]);
    });

    it("step_purge_events reads one window of events from where the last one stopped, each job's tables by index", async () => {
      plan = undefined;
      await run.stepPurgeEvents(explaining, sql, { after: ROWS / 2, limit: 1000 });
      const window = nodesOf(lastPlan()).filter(
        (n) =>
          n['Index Name'] === 'job_events_pkey' && n['Index Cond']?.startsWith('(seq > ') === true,
      );
      expect(window).toHaveLength(1);
      expect(quadraticOrScans(lastPlan())).toEqual([]);
    });
  });
});
