/**
 * The PostgreSQL provider (`chokaq/postgres`): a `pg` pool, the shared SQL store, LISTEN/NOTIFY
 * wake-ups and transactional enqueue. Works with PostgreSQL ≥ 13.
 */
import pg from 'pg';
import { ChokaQError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { providerLogger } from '../../observability/provider-logger.js';
import type { EnqueueResult } from '../model.js';
import type { NewJob } from '../store.js';
import { clientExecutor, type Executor, type QueryableClient } from '../sql/executor.js';
import { migrate as migrateSchema, type MigrationStep } from '../sql/migrator.js';
import { DEFAULT_SCHEMA, validateSchema } from '../sql/schema.js';
import { SqlStore, type SqlBackend, type Unlisten } from '../sql/sql-store.js';
import { PgListener } from './listener.js';
import { pgExecutor } from './pg-executor.js';
import type { PostgresPool } from './pool.js';

export type { MigrationStep } from '../sql/migrator.js';
export type { SqlStore } from '../sql/sql-store.js';
export type {
  PostgresPool,
  PostgresPoolClient,
  PostgresQueryable,
  PostgresQueryResult,
  PostgresStatement,
} from './pool.js';

/** Options of {@link postgres}. Give `connectionString` or `pool`. */
export interface PostgresOptions {
  /**
   * A PostgreSQL URL; the provider creates (and closes) its own pool. `undefined` counts as not
   * given, so `process.env.DATABASE_URL` can be passed as it is.
   */
  connectionString?: string | undefined;
  /** An existing pool to use, for example a `pg.Pool`; the provider never ends it. */
  pool?: PostgresPool;
  /**
   * Schema holding ChokaQ's tables; `^[a-z_][a-z0-9_]{0,62}$`.
   * @default 'chokaq'
   */
  schema?: string;
  /**
   * Apply pending migrations in `open()`.
   * @default true
   */
  migrate?: boolean;
  /**
   * Size of the pool the provider creates (ignored with `pool`).
   * @default 10
   */
  poolSize?: number;
  /**
   * Where the store logs.
   * @default ChokaQ's `logger` (scoped `postgres`) once the store is given to `new ChokaQ()`;
   *   `consoleLogger()` before that.
   */
  logger?: Logger;
}

/** The PostgreSQL store: the SQL store plus {@link PostgresStore.enqueueWithin}. */
export class PostgresStore extends SqlStore {
  /**
   * Enqueues on the caller's `pg` client inside their open transaction (after `BEGIN`), so the
   * jobs commit or roll back with the caller's own writes. Listeners are woken by a
   * `pg_notify` in that transaction, which PostgreSQL delivers only on commit.
   */
  async enqueueWithin(transaction: unknown, jobs: readonly NewJob[]): Promise<EnqueueResult[]> {
    if (!isQueryable(transaction)) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_CONFIG',
        'enqueueWithin needs a pg client (an object with query()) inside an open transaction.',
      );
    }
    if (jobs.length === 0) return [];
    await this.db(); // migrations, and a closed store fails here
    const db = clientExecutor(transaction);
    const results = await this.enqueueOn(db, jobs);
    const queues = [
      ...new Set(jobs.filter((_, i) => results[i]?.created === true).map((j) => j.queue)),
    ];
    if (queues.length > 0) await db.query(this.sql.notify_many, [this.channel, queues]);
    return results;
  }
}

/**
 * A PostgreSQL store. Nothing connects until `open()` (or the first call), which also applies
 * migrations unless `migrate: false`.
 *
 * @throws `CHOKAQ_INVALID_CONFIG` when neither `connectionString` nor `pool` is given, or the
 *   schema name is invalid.
 */
export function postgres(options: PostgresOptions): PostgresStore {
  const schema = validateSchema(options.schema ?? DEFAULT_SCHEMA);
  const logger = providerLogger(options.logger, 'postgres');
  return new PostgresStore({
    kind: 'postgres',
    schema,
    migrate: options.migrate ?? true,
    logger,
    backend: postgresBackend(options, logger),
  });
}

function postgresBackend(options: PostgresOptions, logger: Logger): SqlBackend {
  if (options.pool === undefined && options.connectionString === undefined) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_CONFIG',
      'postgres() needs a connectionString or a pool.',
    );
  }
  const poolSize = options.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_CONFIG',
      `poolSize must be a positive integer, got ${poolSize}.`,
    );
  }
  let pool: PostgresPool | null = null;
  let ownedPool: pg.Pool | null = null;
  let executor: Executor | null = null;
  const listeners = new Set<PgListener>();
  const onIdleError = (error: Error): void => {
    logger.warn('idle PostgreSQL connection failed', { error: error.message });
  };
  return {
    open(): Promise<Executor> {
      if (executor !== null) return Promise.resolve(executor);
      if (options.pool !== undefined) {
        pool = options.pool;
        executor = pgExecutor(pool);
      } else {
        const owned = new pg.Pool({ connectionString: options.connectionString, max: poolSize });
        owned.on('error', onIdleError);
        ownedPool = owned;
        pool = owned;
        executor = pgExecutor(owned, () => owned.end());
      }
      return Promise.resolve(executor);
    },
    async listen(channel: string, onPayload: (payload: string) => void): Promise<Unlisten> {
      const config: pg.ClientConfig =
        pool?.options ??
        (options.connectionString === undefined
          ? {}
          : { connectionString: options.connectionString });
      const listener = new PgListener({ client: config, channel, onPayload, logger });
      listeners.add(listener);
      await listener.start();
      return async () => {
        listeners.delete(listener);
        await listener.stop();
      };
    },
    async close(): Promise<void> {
      const open = [...listeners];
      listeners.clear();
      await Promise.all(open.map((listener) => listener.stop()));
      const current = executor;
      executor = null;
      ownedPool?.off('error', onIdleError);
      ownedPool = null;
      pool = null;
      await current?.close();
    },
  };
}

function isQueryable(value: unknown): value is QueryableClient {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { query?: unknown }).query === 'function'
  );
}

/** Options of {@link migrate}. */
export interface PostgresMigrateOptions {
  connectionString: string;
  /**
   * Schema to migrate.
   * @default 'chokaq'
   */
  schema?: string;
  /**
   * Only report the migrations (with their SQL) that would run.
   * @default false
   */
  dryRun?: boolean;
}

/**
 * Migrates a PostgreSQL schema to the newest version on its own short-lived connection (for
 * the CLI and deploy scripts). Safe to run from several processes at once.
 *
 * @returns The migrations applied, or with `dryRun` those that would be applied.
 */
export async function migrate(options: PostgresMigrateOptions): Promise<MigrationStep[]> {
  const schema = validateSchema(options.schema ?? DEFAULT_SCHEMA);
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 1 });
  pool.on('error', () => undefined);
  const executor = pgExecutor(pool, () => pool.end());
  try {
    return await migrateSchema(executor, schema, { dryRun: options.dryRun ?? false });
  } finally {
    await executor.close();
  }
}
