/**
 * No raw driver error reaches a caller: what PostgreSQL (through `pg`) or PGlite refuses with a
 * SQLSTATE arrives as `CHOKAQ_STORAGE_ERROR` with the driver error as `cause`, from plain
 * statements and transactions alike; a deadlock is still retried by the store.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import type { LogMeta, Logger } from '../../src/observability/logging/logger.js';
import { silentLogger } from '../../src/observability/logging/logger.js';
import { embedded } from '../../src/storage/embedded/index.js';
import { pgliteExecutor } from '../../src/storage/embedded/pglite-executor.js';
import { pgExecutor } from '../../src/storage/postgres/pg-executor.js';
import { postgres } from '../../src/storage/postgres/index.js';
import type { Executor } from '../../src/storage/sql/executor.js';
import { migrate } from '../../src/storage/sql/migrator.js';
import type { SqlStore } from '../../src/storage/sql/sql-store.js';
import { newJob } from '../conformance/helpers.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';

const available = await postgresAvailable();

/** What a refused statement must look like to a caller. */
function expectStorageError(error: unknown, sqlState: string): void {
  expect(error).toBeInstanceOf(ChokaQError);
  expect(error).toMatchObject({ code: 'CHOKAQ_STORAGE_ERROR', cause: { code: sqlState } });
  expect((error as Error).message).toContain(`SQLSTATE ${sqlState}`);
  expect((error as Error).message).toContain((error as { cause: Error }).cause.message);
}

/**
 * The checks every SQL backend must pass. `make` builds a store on a fresh schema, `drop` drops
 * that schema behind the store's back, `executor` is a raw executor of the same backend.
 */
function describeDriverErrors(
  name: string,
  backend: () => {
    make: (schema: string) => SqlStore;
    drop: (schema: string) => Promise<void>;
    executor: () => Executor;
  },
): void {
  describe(`${name}: driver errors`, () => {
    it('a store whose schema was dropped gives CHOKAQ_STORAGE_ERROR (42P01) on reads and transactions', async () => {
      const { make, drop } = backend();
      const schema = uniqueSchema('drv');
      const store = make(schema);
      try {
        await store.jobs.enqueue([newJob({ id: 'gone' })]);
        await drop(schema);
        // One statement (a read), then a transaction (cancel locks and moves rows).
        expectStorageError(await store.operator.getJob('gone').catch((e: unknown) => e), '42P01');
        expectStorageError(
          await store.jobs.cancel(['gone'], 'op').catch((e: unknown) => e),
          '42P01',
        );
        expect(
          await store.jobs.enqueue([newJob({ id: 'again' })]).catch((e: unknown) => e),
        ).toMatchObject({ code: 'CHOKAQ_STORAGE_ERROR', retryable: false });
      } finally {
        await store.close();
      }
    });

    it('a failing migration is CHOKAQ_MIGRATION_FAILED with the driver error as cause', async () => {
      const { drop, executor } = backend();
      const schema = uniqueSchema('drv');
      const db = executor();
      try {
        const failed = await migrate(
          db,
          schema,
          {},
          { migrations: [{ version: 1, name: 'broken', sql: 'CREATE TABLEX :SCHEMA.t (x int)' }] },
        ).catch((e: unknown) => e);
        expect(failed).toMatchObject({ code: 'CHOKAQ_MIGRATION_FAILED', cause: { code: '42601' } });
        expect((failed as Error).message).toContain('Migration 1 (broken)');
      } finally {
        await db.close();
        await drop(schema);
      }
    });

    it('a duplicate job id is still CHOKAQ_DUPLICATE_JOB_ID', async () => {
      const { make, drop } = backend();
      const schema = uniqueSchema('drv');
      const store = make(schema);
      try {
        await store.jobs.enqueue([newJob({ id: 'twice' })]);
        const error = await store.jobs.enqueue([newJob({ id: 'twice' })]).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'CHOKAQ_DUPLICATE_JOB_ID', cause: { code: '23505' } });
      } finally {
        await store.close();
        await drop(schema);
      }
    });
  });
}

describe.skipIf(!available)('PostgreSQL', () => {
  const pools: pg.Pool[] = [];
  // Watches from outside any transaction: inside one, pg_stat_activity is read once and cached.
  const watcher = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await watcher.end();
  });

  /** The server process id of `client`'s session. */
  async function backendPid(client: pg.Client): Promise<number> {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const pid = rows[0]?.pid;
    if (pid === undefined) throw new Error('pg_backend_pid() returned no row');
    return pid;
  }

  /** Resolves once some session waits for a lock that session `pid` holds. */
  async function blockedBy(pid: number, what: string): Promise<void> {
    await waitFor(
      async () => {
        const { rows } = await watcher.query<{ n: number }>(
          'select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
          [pid],
        );
        return (rows[0]?.n ?? 0) > 0;
      },
      { timeoutMs: 10_000, message: what },
    );
  }

  describeDriverErrors('PostgreSQL', () => ({
    make: (schema) =>
      postgres({ connectionString: TEST_DATABASE_URL, schema, poolSize: 2, logger: silentLogger }),
    drop: dropSchema,
    executor: () => {
      const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
      pools.push(pool);
      return pgExecutor(pool);
    },
  }));

  it('a deadlocked cancel is retried by the store and succeeds', async () => {
    const schema = uniqueSchema('drv');
    const lines: { message: string; meta: LogMeta | undefined }[] = [];
    const recording: Logger = {
      debug: (message, meta) => lines.push({ message, meta }),
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
      child: () => recording,
    };
    const store = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: recording });
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    try {
      await store.jobs.enqueue([newJob({ id: 'dl-a' }), newJob({ id: 'dl-b' })]);
      // The other session holds dl-b; cancel locks dl-a, then waits for dl-b. The other session
      // then asks for dl-a: a deadlock. Its long deadlock_timeout makes the store's session (1 s,
      // the default) the one PostgreSQL aborts.
      await other.query('BEGIN');
      await other.query("SET LOCAL deadlock_timeout = '30s'");
      const pid = await backendPid(other);
      await other.query(`select id from "${schema}".jobs_hot where id = 'dl-b' for update`);
      const cancelling = store.jobs.cancel(['dl-a', 'dl-b'], 'op');
      await blockedBy(pid, 'the cancel to wait for dl-b');
      await other.query(`select id from "${schema}".jobs_hot where id = 'dl-a' for update`);
      await other.query('COMMIT');
      expect(await cancelling).toEqual({ cancelled: ['dl-a', 'dl-b'], requested: [] });
      expect(lines).toContainEqual({
        message: 'cancel retried after a lock conflict',
        meta: { attempt: 1, event: 'LockConflictRetried', eventId: 5011 },
      });
    } finally {
      await other.end();
      await store.close();
      await dropSchema(schema);
    }
  });

  it('maps a deadlock inside a transaction to a retryable CHOKAQ_STORAGE_ERROR (40P01)', async () => {
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    pools.push(pool);
    const db = pgExecutor(pool);
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    const table = `chokaq_drv_locks_${process.pid}`;
    try {
      await other.query(`create table ${table} (id int primary key)`);
      await other.query(`insert into ${table} values (1), (2)`);
      await other.query('BEGIN');
      await other.query("SET LOCAL deadlock_timeout = '30s'");
      const pid = await backendPid(other);
      await other.query(`select id from ${table} where id = 2 for update`);
      const deadlocked = db
        .transaction(async (tx) => {
          await tx.query(`select id from ${table} where id = 1 for update`);
          await tx.query(`select id from ${table} where id = 2 for update`);
        })
        .catch((e: unknown) => e);
      await blockedBy(pid, 'the transaction to wait for row 2');
      await other.query(`select id from ${table} where id = 1 for update`);
      await other.query('COMMIT');
      const error = await deadlocked;
      expectStorageError(error, '40P01');
      expect(error).toMatchObject({ retryable: true });
    } finally {
      await other.query('ROLLBACK').catch(() => undefined);
      await other.query(`drop table if exists ${table}`);
      await other.end();
    }
  });
});

describe('PGlite', () => {
  const pglite = new PGlite();

  afterAll(async () => {
    await pglite.close();
  });

  describeDriverErrors('PGlite', () => ({
    make: (schema) => embedded({ pglite, schema, logger: silentLogger }),
    drop: async (schema) => {
      await pglite.exec(`drop schema if exists "${schema}" cascade`);
    },
    executor: () => pgliteExecutor(pglite),
  }));
});

describe('errors without a SQLSTATE', () => {
  it('wraps a closed PGlite as CHOKAQ_STORAGE_UNAVAILABLE, keeping the driver error', async () => {
    const closed = new PGlite();
    await closed.close();
    const error = await pgliteExecutor(closed)
      .query('select 1')
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toMatchObject({ code: 'CHOKAQ_STORAGE_UNAVAILABLE', retryable: true });
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('wraps any other throw under a storage call as CHOKAQ_STORAGE_ERROR, never a raw TypeError', async () => {
    const pglite = new PGlite();
    try {
      const error = await pgliteExecutor(pglite)
        .transaction(() => Promise.reject(new TypeError('Expected a timestamp, got object')))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(ChokaQError);
      expect(error).toMatchObject({
        code: 'CHOKAQ_STORAGE_ERROR',
        message: 'Storage error: Expected a timestamp, got object',
      });
      expect((error as Error).cause).toBeInstanceOf(TypeError);
    } finally {
      await pglite.close();
    }
  });
});
