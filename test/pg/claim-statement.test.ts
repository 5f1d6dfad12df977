/**
 * The claim statement on PostgreSQL.
 *
 * Its plan, under both plans a prepared statement can get — a custom plan (parameters known) and
 * the cached generic plan PostgreSQL may switch to after a few executions — must read candidates
 * through `jobs_hot_fetch_idx` and update rows through the primary key, never scan the whole hot
 * table.
 *
 * It commits with `synchronous_commit` off for its own transaction only: the session setting
 * must be back to `on` afterwards, or a later enqueue on the same pooled connection would lose
 * its durability.
 *
 * The keyed claim locks the queues with key limits itself, the capped claim its capped queues; one
 * whose snapshot is older than another claim of such a queue leaves its limited keys (its capped
 * queues) alone and says `stale`. A settle that hands a freed capped slot on
 * (settle_archive_claim.sql) locks no queue row, and a claim that counted before it stays exact.
 *
 * Each statement's last parameter is its `now`, sent NULL here as in production: the statements
 * then read the database's clock.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERIES } from '../../src/storage/sql/generated.js';
import { withSchema } from '../../src/storage/sql/schema.js';
import { TEST_DATABASE_URL, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { nodesOf, pagesRead, type PlanNode } from '../helpers/plans.js';
import { waitFor } from '../helpers/wait.js';
import { closeMigratedSchema, openMigratedSchema } from '../helpers/pg-schema.js';

const pgUp = await postgresAvailable();
const ROWS = 20_000;

/** The jobs among a claim's rows (a row with a NULL id only carries the `stale` flag). */
const jobsOf = <R extends { id: string | null }>(rows: R[]): R[] =>
  rows.filter((row) => row.id !== null);

describe.skipIf(!pgUp)('claim statement (PostgreSQL)', () => {
  const schema = uniqueSchema('plan');
  let db: pg.Client;

  /** A statement of generated.ts, for this test's schema. */
  const sqlOf = (name: keyof typeof QUERIES): string => withSchema(QUERIES[name], schema);

  /** Runs `work` in a transaction of `db` that is rolled back, so it leaves nothing behind. */
  async function rolledBack<T>(work: () => Promise<T>): Promise<T> {
    await db.query('BEGIN');
    try {
      return await work();
    } finally {
      await db.query('ROLLBACK');
    }
  }

  /** The nodes on jobs_hot of `statement`'s executed plan (with buffers), rolled back. */
  const hotNodesOf = (statement: string): Promise<PlanNode[]> =>
    rolledBack(async () => {
      const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement}`,
      );
      const nodes = nodesOf(rows[0]?.['QUERY PLAN'][0].Plan as PlanNode);
      return nodes.filter((n) => n['Relation Name'] === 'jobs_hot');
    });

  /** The ids of the jobs `claim` takes, rolled back. */
  const claimedIds = (claim: string): Promise<(string | null)[]> =>
    rolledBack(async () =>
      jobsOf((await db.query<{ id: string | null }>(claim)).rows).map((row) => row.id),
    );

  /**
   * Adds queue `queue` (capped at `maxWorkers`, or not) with ROWS jobs scheduled for tomorrow at
   * `laterPriority` (ids `prefix` + 8 digits, state scheduled as an enqueue writes them) and the
   * due jobs `due` (id → priority, pending), analysed.
   */
  async function plantDelayed(
    queue: string,
    prefix: string,
    laterPriority: number,
    due: Record<string, number>,
    maxWorkers: number | null = null,
  ): Promise<void> {
    await db.query(`INSERT INTO "${schema}".queues (name, max_workers) VALUES ($1, $2)`, [
      queue,
      maxWorkers,
    ]);
    await db.query(
      `INSERT INTO "${schema}".jobs_hot (id, queue, type, payload, priority, run_at, status)
       SELECT $2 || lpad(g::text, 8, '0'), $1, 'plan.job', '{}', $3, now() + interval '1 day', 3
       FROM generate_series(1, $4::int) AS g
       UNION ALL
       SELECT d.id, $1, 'plan.job', '{}', d.priority, now() - interval '1 s', 0
       FROM unnest($5::text[], $6::int[]) AS d(id, priority)`,
      [queue, prefix, laterPriority, ROWS, Object.keys(due), Object.values(due)],
    );
    await db.query(`ANALYZE "${schema}".jobs_hot`);
  }

  /**
   * For `client`, taken before it sends a statement that will block: waits until its session
   * waits on a lock (as `db` sees it), or fails with `message`.
   */
  async function lockWaitOf(client: pg.Client): Promise<(message: string) => Promise<void>> {
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]
      ?.pid;
    return async (message) => {
      await waitFor(
        async () =>
          (
            await db.query(
              `SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
              [pid],
            )
          ).rowCount === 1,
        { message },
      );
    };
  }

  beforeAll(async () => {
    db = await openMigratedSchema(schema);
    await db.query(`INSERT INTO "${schema}".queues (name) VALUES ('plan')`);
    await db.query(
      `INSERT INTO "${schema}".jobs_hot (id, queue, type, payload, run_at)
       SELECT 'j' || lpad(g::text, 8, '0'), 'plan', 'plan.job', '{}', now() - interval '1 s'
       FROM generate_series(1, $1::int) AS g`,
      [ROWS],
    );
    await db.query(`INSERT INTO "${schema}".queues (name) VALUES ('keyed')`);
    await db.query(
      `INSERT INTO "${schema}".jobs_hot (id, queue, type, payload, run_at, concurrency_key,
                                         concurrency_limit)
       SELECT 'k' || lpad(g::text, 8, '0'), 'keyed', 'plan.job', '{}', now() - interval '1 s',
              'tenant-' || (g % 50), 2
       FROM generate_series(1, $1::int) AS g`,
      [ROWS / 10],
    );
    await db.query(`ANALYZE "${schema}".jobs_hot, "${schema}".queues`);
    await db.query(`PREPARE claim_plan AS ${sqlOf('claim')}`);
    await db.query(`PREPARE capped_plan AS ${sqlOf('claim_capped')}`);
    await db.query(`PREPARE keyed_plan AS ${sqlOf('claim_keyed')}`);
  }, 60_000);

  afterAll(() => closeMigratedSchema(db, schema));

  // Every shape of claim the store sends: all types (pipe mode) or the worker's types; with
  // capped queues, claim_capped.sql alone (locking them itself) or in the locked transaction.
  const shapes = [
    ['pipe mode', 'claim_plan', 'false', 'NULL', ''],
    ["the worker's types", 'claim_plan', 'false', "ARRAY['plan.job']", ''],
    ['capped queues alone', 'capped_plan', 'false', "ARRAY['plan.job']", ", ARRAY['plan']"],
    [
      'capped queues locked',
      'capped_plan',
      'true',
      "ARRAY['other.job', 'plan.job']",
      ", ARRAY['plan']",
    ],
  ];
  it.each(
    ['force_custom_plan', 'force_generic_plan'].flatMap((mode) =>
      shapes.map(
        ([label, plan, locked, types, capped]) =>
          [mode, label, plan, locked, types, capped] as const,
      ),
    ),
  )(
    'uses the fetch index and the primary key under %s (%s)',
    async (mode, _label, plan, locked, types, capped) => {
      await db.query(`SET plan_cache_mode = ${mode}`);
      const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON)
         EXECUTE ${plan}('w1', 64, NULL, 'lease', ${locked}, ${types}${capped}, NULL)`,
      );
      const nodes = nodesOf(rows[0]?.['QUERY PLAN'][0].Plan as PlanNode);
      const onHot = nodes.filter((n) => n['Relation Name'] === 'jobs_hot');
      expect(onHot.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
      const indexes = onHot.map((n) => n['Index Name']);
      expect(indexes).toContain('jobs_hot_fetch_idx');
      expect(indexes).toContain('jobs_hot_pkey');
    },
  );

  // The keyed claim, alone (fast path, keys without limits) or locked (keys with limits).
  it.each(
    ['force_custom_plan', 'force_generic_plan'].flatMap((mode) =>
      [
        ['alone', 'false', 'NULL'],
        ['locked', 'true', "ARRAY['keyed']"],
      ].map(([label, capped, locked]) => [mode, label, capped, locked] as const),
    ),
  )(
    'the keyed claim uses the keyed fetch index and the primary key under %s (%s)',
    async (mode, _label, capped, locked) => {
      await db.query(`SET plan_cache_mode = ${mode}`);
      const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) EXECUTE keyed_plan('w1', 64, NULL, 'lease', ${capped},
           ARRAY['plan.job'], ARRAY['keyed'], ${locked}, NULL)`,
      );
      const nodes = nodesOf(rows[0]?.['QUERY PLAN'][0].Plan as PlanNode);
      const onHot = nodes.filter((n) => n['Relation Name'] === 'jobs_hot');
      expect(onHot.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
      const indexes = onHot.map((n) => n['Index Name']);
      expect(indexes).toContain('jobs_hot_fetch_idx');
      expect(indexes).toContain('jobs_hot_keyed_fetch_idx');
      expect(indexes).toContain('jobs_hot_keyed_order_idx');
      expect(indexes).toContain('jobs_hot_pkey');
    },
  );

  it('decides a claim over many waiting keys from the front of the keyed jobs, probing no key', async () => {
    await db.query('RESET plan_cache_mode');
    await db.query(`INSERT INTO "${schema}".queues (name) VALUES ('walked')`);
    await db.query(
      `INSERT INTO "${schema}".jobs_hot (id, queue, type, payload, run_at, concurrency_key,
                                         concurrency_limit)
       SELECT 'w' || lpad(g::text, 8, '0'), 'walked', 'plan.job', '{}', now() - interval '1 s',
              'tenant-' || (g % 100), 2
       FROM generate_series(1, 300) AS g`,
    );
    const sql = sqlOf('claim_keyed');
    const params = ['w1', 10, ['walked'], 'lease', false, null, ['walked'], ['walked'], null];
    await db.query('BEGIN');
    try {
      const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
        params,
      );
      const nodes = nodesOf(rows[0]?.['QUERY PLAN'][0].Plan as PlanNode);
      // The lines of every key (key_heads, a recursive skip scan) produced nothing: not needed.
      const lines = nodes.filter((n) => n['Subplan Name'] === 'CTE key_heads');
      expect(lines.map((n) => n['Node Type'])).toEqual(['Recursive Union']);
      expect(lines.map((n) => n['Actual Rows'])).toEqual([0]);
    } finally {
      await db.query('ROLLBACK');
    }
    // Ten keys' heads, in claim order (ids: one run_at).
    const claimed = await db.query<{ id: string }>(sql, params);
    expect(claimed.rows.map((row) => row.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `w${String(i + 1).padStart(8, '0')}`),
    );
  });

  it('turns synchronous_commit off for its own transaction only', async () => {
    await db.query('RESET plan_cache_mode');
    const setting = async (): Promise<unknown> =>
      (await db.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]
        ?.synchronous_commit;
    const before = await setting(); // the server's own setting: `on` unless configured otherwise
    const claimed = await db.query(
      `EXECUTE claim_plan('w1', 2, NULL, 'lease-a', false, NULL, NULL)`,
    );
    expect(claimed.rowCount).toBe(2);
    expect(await setting()).toBe(before);
    await db.query('BEGIN');
    await db.query(`EXECUTE claim_plan('w1', 2, NULL, 'lease-b', false, NULL, NULL)`);
    expect(await setting()).toBe('off');
    await db.query('COMMIT');
    expect(await setting()).toBe(before);
  });

  it('leaves limited keys alone and says stale when another claim of the queue committed since its snapshot', async () => {
    await db.query('RESET plan_cache_mode');
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    try {
      const claimKeyed = (client: pg.Client, worker: string) =>
        client.query<{ id: string | null; stale: boolean }>(sqlOf('claim_keyed'), [
          worker,
          10,
          ['keyed'],
          `lease-${worker}`,
          false,
          null,
          ['keyed'],
          ['keyed'],
          null,
        ]);
      const otherWaits = await lockWaitOf(other);
      await db.query('BEGIN');
      const held = await claimKeyed(db, 'holder');
      expect(jobsOf(held.rows)).toHaveLength(10);
      expect(held.rows[0]?.stale).toBe(false);
      // The second claim takes its snapshot, then waits for the queue's row.
      const late = claimKeyed(other, 'late');
      await otherWaits('the second claim waiting for the queue row');
      await db.query('COMMIT');
      const result = await late;
      expect(result.rows).toEqual([expect.objectContaining({ id: null, stale: true })]);
      // From a fresh snapshot it claims again, within the keys' limits (50 keys × 2, 10 taken).
      const again = await claimKeyed(other, 'again');
      expect(jobsOf(again.rows)).toHaveLength(10);
      expect(again.rows[0]?.stale).toBe(false);
    } finally {
      await other.end();
    }
  });

  it('leaves a capped queue alone and says stale when a claim of it committed since its snapshot', async () => {
    await db.query('RESET plan_cache_mode');
    await db.query(`INSERT INTO "${schema}".queues (name, max_workers) VALUES ('capped', 3)`);
    await db.query(
      `INSERT INTO "${schema}".jobs_hot (id, queue, type, payload, run_at)
       SELECT 'c' || lpad(g::text, 8, '0'), 'capped', 'plan.job', '{}', now() - interval '1 s'
       FROM generate_series(1, 10) AS g`,
    );
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    try {
      const claimCapped = (client: pg.Client, worker: string, limit: number) =>
        client.query<{ id: string | null; stale: boolean }>(sqlOf('claim_capped'), [
          worker,
          limit,
          ['capped'],
          `lease-${worker}`,
          false,
          null,
          ['capped'],
          null,
        ]);
      const otherWaits = await lockWaitOf(other);

      // A claim that takes nothing leaves claim_seq alone: the one waiting behind it is fresh.
      await db.query('BEGIN');
      const none = await db.query<{ id: string | null }>(sqlOf('claim_capped'), [
        'none',
        10,
        ['capped'],
        'lease-none',
        false,
        ['other.job'],
        ['capped'],
        null,
      ]);
      expect(jobsOf(none.rows)).toHaveLength(0);
      const first = claimCapped(other, 'first', 1);
      await otherWaits('the claim waiting for the capped queue row');
      await db.query('COMMIT');
      expect(jobsOf((await first).rows)).toHaveLength(1);
      expect((await first).rows[0]?.stale).toBe(false);

      // The holder takes 1 more (2 of the cap of 3) and keeps its transaction (and the row) open.
      await db.query('BEGIN');
      const held = await claimCapped(db, 'holder', 1);
      expect(jobsOf(held.rows)).toHaveLength(1);
      expect(held.rows[0]?.stale).toBe(false);
      // The next claim takes its snapshot (the holder's job still pending), then waits.
      const late = claimCapped(other, 'late', 10);
      await otherWaits('the second claim waiting for the capped queue row');
      await db.query('COMMIT');
      // Its count of the queue's jobs is older than the holder's claim: it takes none of them.
      expect((await late).rows).toEqual([expect.objectContaining({ id: null, stale: true })]);
      // From a fresh snapshot it takes what the cap leaves: 3 − 2.
      const again = await claimCapped(other, 'again', 10);
      expect(jobsOf(again.rows)).toHaveLength(1);
      expect(again.rows[0]?.stale).toBe(false);
      // Full: nothing more, and not stale.
      const full = await claimCapped(other, 'full', 10);
      expect(full.rows).toEqual([expect.objectContaining({ id: null, stale: false })]);
      const busy = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${schema}".jobs_hot
         WHERE queue = 'capped' AND status IN (1, 2)`,
      );
      expect(busy.rows[0]?.n).toBe(3);
    } finally {
      await other.end();
    }
  });

  it('hands a freed capped slot on without the queue row, and a claim counting from before stays exact', async () => {
    await db.query('RESET plan_cache_mode');
    await db.query(`INSERT INTO "${schema}".queues (name, max_workers) VALUES ('handed', 2)`);
    await db.query(
      `INSERT INTO "${schema}".jobs_hot (id, queue, type, payload, run_at)
       SELECT 'h' || lpad(g::text, 8, '0'), 'handed', 'plan.job', '{}', now() - interval '1 s'
       FROM generate_series(1, 6) AS g`,
    );
    const claimCapped = (client: pg.Client, worker: string, limit: number) =>
      client.query<{ id: string | null; stale: boolean }>(sqlOf('claim_capped'), [
        worker,
        limit,
        ['handed'],
        `lease-${worker}`,
        false,
        null,
        ['handed'],
        null,
      ]);
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL });
    const third = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    await third.connect();
    try {
      const running = jobsOf((await claimCapped(db, 'w1', 2)).rows);
      expect(running).toHaveLength(2);
      const otherWaits = await lockWaitOf(other);
      // A claim holds the queue row (it took nothing: the cap is full) …
      await db.query('BEGIN');
      expect(jobsOf((await claimCapped(db, 'holder', 10)).rows)).toHaveLength(0);
      // … and the next one takes its snapshot (both jobs running), then waits for the row.
      const late = claimCapped(other, 'late', 10);
      await otherWaits('the claim waiting for the capped queue row');
      // The hand-off needs no queue row: it archives one running job and claims the next one.
      const handed = await third.query<{ part: number; id: string | null; queue: string }>(
        sqlOf('settle_archive_claim'),
        [
          [running[0]?.id],
          ['w1'],
          ['lease-w1'],
          [1],
          [null],
          [null],
          [true],
          ['plan.job'],
          'w2',
          'lease-w2',
          1,
          ['handed'],
          null,
        ],
      );
      const parts = handed.rows.map((row) => [row.part, row.queue]);
      expect(parts).toEqual([
        [0, 'handed'],
        [1, 'handed'],
        [2, 'handed'], // the freed room all taken: nobody else need be woken
      ]);
      await db.query('COMMIT');
      // The waiting claim counted from before the hand-off: the archived job still running, the
      // handed one still pending — as many as now. It takes nothing, rightly, and is not stale.
      expect((await late).rows).toEqual([expect.objectContaining({ id: null, stale: false })]);
      const busy = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${schema}".jobs_hot
         WHERE queue = 'handed' AND status IN (1, 2)`,
      );
      expect(busy.rows[0]?.n).toBe(2);
    } finally {
      await other.end();
      await third.end();
    }
  });

  // Last: these analyse the hot table again, with many jobs scheduled for later. They roll their
  // claims back, so no dead entry (which a vacuum may not remove while other tests hold
  // snapshots) is left in a fetch index for the next case to step over.
  // Jobs scheduled for later at the queue's lowest, highest, then a middle priority, with fewer
  // jobs due than the claim wants: one scan of the queue with run_at as a filter went on through
  // the 20,000 later jobs while they were pending (150–305 pages of the fetch index counted on
  // the old statements; three scans per queue spared the lowest and highest priorities only).
  // Scheduled (schema 21), they are in no fetch index: one scan reads the due jobs alone.
  const delayedCases = [
    {
      at: 'lowest',
      queue: 'delayed',
      prefix: 'later',
      laterPriority: 5,
      due: { due1: 6, due2: 5, due3: 6 },
      order: ['due1', 'due3', 'due2'], // priority 6, then 5
    },
    {
      at: 'highest',
      queue: 'delayed-high',
      prefix: 'laterh',
      laterPriority: 10,
      due: { dueh1: 6, dueh2: 7, dueh3: 5, dueh4: 6 },
      order: ['dueh2', 'dueh1', 'dueh4', 'dueh3'], // priority 7, 6, then 5
    },
    {
      at: 'middle',
      queue: 'delayed-mid',
      prefix: 'laterm',
      laterPriority: 6,
      due: { duem1: 7, duem2: 5, duem3: 7 },
      order: ['duem1', 'duem3', 'duem2'], // priority 7, then 5
    },
  ];
  const planted = new Map<string, Promise<void>>();
  it.each(
    delayedCases.flatMap((c) =>
      ['force_custom_plan', 'force_generic_plan'].flatMap((mode) =>
        [
          ['claim_plan', ''],
          ['capped_plan', `, ARRAY['${c.queue}']`],
        ].map(([plan, capped]) => [c.at, mode, plan, capped, c] as const),
      ),
    ),
  )(
    'reads no job scheduled for later at the %s priority, under %s (%s)',
    async (_at, mode, plan, capped, c) => {
      const plant = planted.get(c.queue) ?? plantDelayed(c.queue, c.prefix, c.laterPriority, c.due);
      planted.set(c.queue, plant);
      await plant;
      await db.query(`SET plan_cache_mode = ${mode}`);
      const claim = `EXECUTE ${plan}('w1', 10, ARRAY['${c.queue}'], 'lease', false, NULL${capped}, NULL)`;
      const onHot = await hotNodesOf(claim);
      expect(onHot.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
      const fetchPages = pagesRead(onHot, 'jobs_hot_fetch_idx');
      expect(fetchPages).toBeGreaterThan(0);
      expect(fetchPages).toBeLessThan(30);
      // The due jobs, in claim order.
      expect(await claimedIds(claim)).toEqual(c.order);
    },
  );

  it.each(['force_custom_plan', 'force_generic_plan'])(
    "the promoter's pass reads the due scheduled jobs only, through the scheduled index, under %s",
    async (mode) => {
      const plant = planted.get('delayed-mid') ?? plantDelayed('delayed-mid', 'laterm', 6, {});
      planted.set('delayed-mid', plant);
      await plant;
      await db.query(`INSERT INTO "${schema}".jobs_hot (id, queue, type, payload, run_at, status)
                      VALUES ('sched-due', 'delayed-mid', 'plan.job', '{}',
                              now() - interval '1 s', 3)`);
      try {
        await db.query(`PREPARE promote_plan AS ${sqlOf('promote')}`);
        await db.query(`SET plan_cache_mode = ${mode}`);
        const promote = 'EXECUTE promote_plan(1000, NULL)';
        const onHot = await hotNodesOf(promote);
        expect(onHot.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
        expect(onHot.map((n) => n['Index Name'])).toContain('jobs_hot_scheduled_idx');
        // 20,000 and more scheduled for tomorrow: the due range ends at the first of them.
        expect(pagesRead(onHot, 'jobs_hot_scheduled_idx')).toBeLessThan(30);
        const moved = await rolledBack(
          async () => (await db.query<{ queue: string | null; promoted: string }>(promote)).rows,
        );
        expect(moved.map((r) => [r.queue, Number(r.promoted)])).toEqual([['delayed-mid', 1]]);
      } finally {
        await db.query('DEALLOCATE promote_plan');
        await db.query(`DELETE FROM "${schema}".jobs_hot WHERE id = 'sched-due'`);
      }
    },
  );

  let handedLater: Promise<unknown> | undefined;
  it.each(['force_custom_plan', 'force_generic_plan'])(
    'hands a freed slot to the next due job, reading no job scheduled for later, under %s',
    async (mode) => {
      handedLater ??= (async () => {
        await plantDelayed('handed-later', 'hl', 10, { 'hl-due': 5 }, 1);
        await db.query(
          `INSERT INTO "${schema}".jobs_hot (id, queue, type, payload, run_at, status, attempts,
                                            worker_id, lease_token, started_at, heartbeat_at)
           VALUES ('hl-running', 'handed-later', 'plan.job', '{}', now() - interval '1 s', 2, 1,
                   'w1', 'lease-w1', now(), now())`,
        );
        await db.query(`PREPARE handoff_plan AS ${sqlOf('settle_archive_claim')}`);
      })();
      await handedLater;
      await db.query(`SET plan_cache_mode = ${mode}`);
      const handoff = `EXECUTE handoff_plan(ARRAY['hl-running'], ARRAY['w1'], ARRAY['lease-w1'],
        ARRAY[1]::float8[], ARRAY[NULL]::text[], ARRAY[NULL]::text[], ARRAY[true], ARRAY['plan.job'], 'w1',
        'lease-next', 1, ARRAY['handed-later'], NULL)`;
      const onHot = await hotNodesOf(handoff);
      expect(onHot.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
      // One scan of the queue in claim order with run_at as a filter read the 20,000 jobs
      // scheduled for later at priority 10 before the due one at 5 (297 pages counted here).
      const fetchPages = pagesRead(onHot, 'jobs_hot_fetch_idx');
      expect(fetchPages).toBeGreaterThan(0);
      expect(fetchPages).toBeLessThan(30);
      const started = await rolledBack(async () =>
        (await db.query<{ part: number; id: string | null }>(handoff)).rows
          .filter((row) => row.part === 1)
          .map((row) => row.id),
      );
      expect(started).toEqual(['hl-due']);
    },
  );

  let keyedLater: Promise<unknown> | undefined;
  it.each(['force_custom_plan', 'force_generic_plan'])(
    'reads only due jobs of a key whose jobs scheduled for later wait at a higher priority, under %s',
    async (mode) => {
      keyedLater ??= (async () => {
        await db.query(`INSERT INTO "${schema}".queues (name) VALUES ('keyed-later')`);
        await db.query(
          `INSERT INTO "${schema}".jobs_hot (id, queue, type, payload, priority, run_at,
                                            concurrency_key, concurrency_limit, status)
           SELECT 'kl' || lpad(g::text, 8, '0'), 'keyed-later', 'plan.job', '{}', 10,
                  now() + interval '1 day', 'tenant-' || (g % 5), 2, 3
           FROM generate_series(1, $1::int) AS g
           UNION ALL
           SELECT 'kdue' || g, 'keyed-later', 'plan.job', '{}', 5, now() - interval '1 s',
                  'tenant-' || g, 2, 0
           FROM generate_series(1, 2) AS g`,
          [ROWS],
        );
        await db.query(`ANALYZE "${schema}".jobs_hot`);
      })();
      await keyedLater;
      await db.query(`SET plan_cache_mode = ${mode}`);
      const claim = `EXECUTE keyed_plan('w1', 10, ARRAY['keyed-later'], 'lease', false, NULL,
                                        ARRAY['keyed-later'], ARRAY['keyed-later'], NULL)`;
      const onHot = await hotNodesOf(claim);
      expect(onHot.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
      // Five keys of 4,000 later jobs each: reading a key's line with run_at as a filter read
      // all of their entries while they were pending (346 pages counted here); priority by
      // priority, a few pages per probe (70). Scheduled, they are in no keyed index.
      // (The walk over the front of the keyed jobs now decides this claim alone.)
      const keyedPages =
        pagesRead(onHot, 'jobs_hot_keyed_fetch_idx') + pagesRead(onHot, 'jobs_hot_keyed_order_idx');
      expect(keyedPages).toBeGreaterThan(0);
      expect(keyedPages).toBeLessThan(30);
      expect(await claimedIds(claim)).toEqual(['kdue1', 'kdue2']);
    },
  );
});
