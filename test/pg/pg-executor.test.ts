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
