import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { pgExecutor } from '../../src/storage/postgres/pg-executor.js';
import { TEST_DATABASE_URL, postgresAvailable } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';

const available = await postgresAvailable();

describe.skipIf(!available)('pgExecutor transactions', () => {
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  const admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });

  afterAll(async () => {
    await pool.end();
    await admin.end();
  });

  it('turns a connection killed between two statements into a retryable error, not a crash', async () => {
    const db = pgExecutor(pool);
    // The transaction's client reports the server's goodbye as an 'error' event.
    let goodbye = false;
    pool.once('acquire', (client: pg.PoolClient) => {
      client.once('error', () => (goodbye = true));
    });
    const attempt = db.transaction(async (tx) => {
      const [row] = await tx.query<{ pid: number }>('select pg_backend_pid() as pid');
      await admin.query('select pg_terminate_backend($1)', [row?.pid]);
      // The goodbye arrives while no statement is running.
      await waitFor(() => goodbye, { timeoutMs: 5000, message: "the server's goodbye" });
      return tx.query('select 1');
    });
    await expect(attempt).rejects.toMatchObject({
      code: 'CHOKAQ_STORAGE_UNAVAILABLE',
      retryable: true,
    });
    // The pool threw the broken client away and still works.
    expect(await db.query<{ ok: number }>('select 1 as ok')).toEqual([{ ok: 1 }]);
  });
});

describe.skipIf(!available)('pgExecutor statements', () => {
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });

  afterAll(async () => {
    await pool.end();
  });

  /** Prepared statements of the pool's one connection whose text is `sql`. */
  async function preparedAs(sql: string): Promise<number> {
    const { rows } = await pool.query<{ n: string }>(
      'select count(*) as n from pg_prepared_statements where statement = $1',
      [sql],
    );
    return Number(rows[0]?.n);
  }

  it('prepares a statement by default and leaves one sent with prepare: false unprepared', async () => {
    const db = pgExecutor(pool);
    const kept = `select $1::int + 1 as n /* kept ${Math.random()} */`;
    const once = `select $1::int + 2 as n /* once ${Math.random()} */`;
    expect(await db.query(kept, [1])).toEqual([{ n: 2 }]);
    expect(await db.query(once, [1], { prepare: false })).toEqual([{ n: 3 }]);
    expect(await preparedAs(kept)).toBe(1);
    expect(await preparedAs(once)).toBe(0);
  });
});
