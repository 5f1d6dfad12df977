import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { pgExecutor } from '../../src/storage/postgres/pg-executor.js';
import { pinnedExecutor } from '../../src/storage/postgres/pinned-executor.js';
import type {
  PostgresPool,
  PostgresQueryResult,
  PostgresStatement,
} from '../../src/storage/postgres/pool.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';

const available = await postgresAvailable();

/** `pool` as ChokaQ sees it, counting its checkouts and the statements sent through it. */
class CountingPool implements PostgresPool {
  checkouts = 0;
  pooled = 0;

  constructor(private readonly pool: pg.Pool) {}

  get options(): object {
    return this.pool.options;
  }

  query(statement: string | PostgresStatement): Promise<PostgresQueryResult> {
    this.pooled += 1;
    return this.pool.query(statement);
  }

  connect(): Promise<pg.PoolClient> {
    this.checkouts += 1;
    return this.pool.connect();
  }
}

/** The backend process id of the connection `db` runs on now. */
async function pidOf(db: { query<R>(sql: string): Promise<R[]> }): Promise<number> {
  const [row] = await db.query<{ pid: number }>('select pg_backend_pid() as pid');
  return row?.pid ?? -1;
}

describe.skipIf(!available)('pinnedExecutor', () => {
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 4 });
  const admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  const tables: string[] = [];

  afterAll(async () => {
    for (const table of tables) await admin.query(`drop table if exists ${table}`);
    await pool.end();
    await admin.end();
  });

  it('runs every statement and transaction on one connection, checked out once', async () => {
    const counting = new CountingPool(pool);
    const db = pinnedExecutor(counting);
    const first = await pidOf(db);
    const inside = await db.transaction((tx) => pidOf(tx));
    expect(await pidOf(db)).toBe(first);
    expect(inside).toBe(first);
    expect(counting.checkouts).toBe(1);
    await db.close();
    expect(pool.idleCount).toBeGreaterThanOrEqual(1);
  });

  it('runs calls in turn: a statement sent during a transaction runs after its commit', async () => {
    const table = `pinned_turns_${process.pid}`;
    tables.push(table);
    await admin.query(`create table ${table} (n int)`);
    const db = pinnedExecutor(pool);
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = db.transaction(async (tx) => {
      await tx.query(`insert into ${table} values (1)`);
      await held;
      await tx.query(`insert into ${table} values (2)`);
    });
    // Sent while the transaction is open: on a shared connection it would run inside it.
    const counted = db.query<{ n: string }>(`select count(*) as n from ${table}`);
    release();
    await transaction;
    expect(await counted).toEqual([{ n: '2' }]);
    await db.close();
  });

  it('gives a connection up when a statement fails, and keeps it when a transaction rolls back', async () => {
    const db = pinnedExecutor(pool);
    const first = await pidOf(db);
    await expect(
      db.transaction(async (tx) => {
        await tx.query('select 1');
        throw new Error('the caller changed its mind');
      }),
    ).rejects.toThrow('the caller changed its mind');
    expect(await pidOf(db)).toBe(first);
    await expect(db.query('select 1/0')).rejects.toThrow(/division by zero/);
    const second = await pidOf(db);
    expect(second).not.toBe(first);
    // The failed connection was destroyed, not returned to the pool.
    const { rows } = await admin.query<{ n: string }>(
      'select count(*) as n from pg_stat_activity where pid = $1',
      [first],
    );
    expect(rows[0]?.n).toBe('0');
    await db.close();
  });

  it('checks out another connection after the server ended the kept one between calls', async () => {
    const db = pinnedExecutor(pool);
    const first = await pidOf(db);
    await admin.query('select pg_terminate_backend($1)', [first]);
    await waitFor(
      async () => {
        const { rows } = await admin.query('select 1 from pg_stat_activity where pid = $1', [
          first,
        ]);
        return rows.length === 0;
      },
      { timeoutMs: 5000, message: 'the kept connection to end' },
    );
    // The goodbye may reach the client only with the next statement: that one fails retryably,
    // the one after runs on a new connection.
    const next = await pidOf(db).catch((error: unknown) => {
      expect(error).toMatchObject({ retryable: true });
      return pidOf(db);
    });
    expect(next).not.toBe(first);
    await db.close();
  });

  it('fails a call made after close()', async () => {
    const db = pinnedExecutor(pool);
    await pidOf(db);
    await db.close();
    await expect(pidOf(db)).rejects.toMatchObject({ code: 'CHOKAQ_NOT_STARTED' });
  });

  it('is offered by the pool executor only for the lanes it may keep a connection for', async () => {
    expect(pgExecutor(pool).pinned?.('claim')).toBeUndefined();
    const executor = pgExecutor(pool, undefined, { pinnable: ['claim', 'settle'] });
    expect(executor.pinned?.('upkeep')).toBeUndefined();
    const kept = executor.pinned?.('settle');
    expect(kept).toBeDefined();
    await kept?.close();
  });
});

describe.skipIf(!available)('a worker on the PostgreSQL store', () => {
  it.each([
    { max: 6, pinned: true },
    { max: 3, pinned: false },
  ])(
    'with a pool of $max, keeps two connections for claims and settles: $pinned',
    async ({ max, pinned }) => {
      const schema = uniqueSchema('pinned');
      const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max });
      const counting = new CountingPool(pool);
      const ran: number[] = [];
      const job = defineJob<{ n: number }>({
        type: 'pinned.noop',
        queue: 'pinned',
        handle: (payload) => {
          ran.push(payload.n);
        },
      });
      const producer = new ChokaQ({
        storage: postgres({ connectionString: TEST_DATABASE_URL, schema }),
        jobs: [job],
        worker: false,
      });
      const worker = new ChokaQ({
        storage: postgres({ pool: counting, schema }),
        jobs: [job],
        concurrency: 4,
        prefetch: 0,
      });
      try {
        await producer.start();
        await producer.enqueueMany(
          job,
          Array.from({ length: 200 }, (_, n) => ({ payload: { n } })),
        );
        // At most 4 jobs a claim: 50 claims and as many settle rounds at least.
        await worker.start();
        await waitFor(() => ran.length === 200, { timeoutMs: 30_000, message: '200 jobs to run' });
        await waitFor(
          async () => (await producer.jobs.count({ state: 'succeeded' })).count === 200,
          {
            timeoutMs: 10_000,
            message: '200 jobs to settle',
          },
        );
        if (pinned) {
          // The two kept connections, the schema check and the maintenance loops' transactions.
          expect(counting.checkouts).toBeLessThanOrEqual(10);
          // Start-up reads and the maintenance loops' statements; no claim or settle.
          expect(counting.pooled).toBeLessThan(30);
        } else {
          // Too small a pool to keep two of: every claim and settle round goes through it.
          expect(counting.pooled).toBeGreaterThan(60);
        }
      } finally {
        await worker.stop();
        await producer.stop();
        await pool.end();
        await dropSchema(schema);
      }
    },
  );

  it.each([
    { max: 6, kept: true },
    { max: 5, kept: false },
  ])(
    'with a pool of $max, sends its upkeep statements on one kept connection: $kept',
    async ({ max, kept }) => {
      const schema = uniqueSchema('upkeep');
      const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max });
      const counting = new CountingPool(pool);
      const chokaq = new ChokaQ({ storage: postgres({ pool: counting, schema }), worker: false });
      try {
        await chokaq.start();
        const { pooled, checkouts } = counting;
        // Five at once, as a worker's queue list, promoter pass and broadcast may come together.
        const lists = await Promise.all(Array.from({ length: 5 }, () => chokaq.queues.list()));
        expect(lists.every((list) => Array.isArray(list))).toBe(true);
        if (kept) {
          // One checkout for the lane, then its calls take turns on that connection.
          expect(counting.pooled - pooled).toBe(0);
          expect(counting.checkouts - checkouts).toBeLessThanOrEqual(1);
        } else {
          expect(counting.pooled - pooled).toBe(5);
        }
      } finally {
        await chokaq.stop();
        await pool.end();
        await dropSchema(schema);
      }
    },
  );
});
