/**
 * The embedded provider (`chokaq/embedded`): PGlite (PostgreSQL in WebAssembly) running the same
 * SQL as the PostgreSQL provider, for zero-install, single-process use. Safeguards: an exclusive
 * lockfile on the data directory, transactions only through PGlite's `transaction()`, int8
 * normalised by the row mappers, a small `shared_buffers`, and a periodic VACUUM of the hot table
 * (PGlite runs no autovacuum).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { ChokaQError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { providerLogger } from '../../observability/provider-logger.js';
import type { Executor } from '../sql/executor.js';
import { QUERIES } from '../sql/generated.js';
import { migrate as migrateSchema, type MigrationStep } from '../sql/migrator.js';
import { DEFAULT_SCHEMA, validateSchema, withSchema } from '../sql/schema.js';
import { SqlStore, type SqlBackend, type Unlisten } from '../sql/sql-store.js';
import { acquireDirectoryLock, type DirectoryLock } from './lockfile.js';
import type { PgliteInstance } from './pglite.js';
import { pgliteExecutor } from './pglite-executor.js';

export type { MigrationStep } from '../sql/migrator.js';
export type { PgliteInstance, PgliteSession } from './pglite.js';
export type { SqlStore } from '../sql/sql-store.js';

/** The `dataDir` value for a volatile, in-memory instance. */
export const MEMORY_DATA_DIR = 'memory://';

/** Options of {@link embedded}. */
export interface EmbeddedOptions {
  /**
   * Directory of the PGlite data files, created if missing; `'memory://'` for a volatile
   * instance. Ignored when `pglite` is given.
   * @default './.chokaq'
   */
  dataDir?: string;
  /**
   * An already started PGlite instance to use instead of creating one (for example one instance
   * shared by many test schemas), for example a `PGlite`. The store neither locks a directory for
   * it nor closes it.
   */
  pglite?: PgliteInstance;
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
   * Where the store logs.
   * @default ChokaQ's `logger` (scoped `embedded`) once the store is given to `new ChokaQ()`;
   *   `consoleLogger()` before that.
   */
  logger?: Logger;
  /**
   * Interval of the hot-table VACUUM in ms; 0 disables it.
   * @default 60000
   */
  vacuumIntervalMs?: number;
}

/** `shared_buffers` of instances the provider starts (PGlite's default costs ~500 MB more RSS). */
const SHARED_BUFFERS = '16MB';

/**
 * An embedded store. Nothing starts until `open()` (or the first call), which takes the data
 * directory's lockfile, starts PGlite and applies migrations unless `migrate: false`.
 *
 * @throws `CHOKAQ_INVALID_CONFIG` for an invalid schema name or vacuum interval. `open()` throws
 *   `CHOKAQ_STORAGE_LOCKED` when another live process (or store) holds the data directory.
 */
export function embedded(options: EmbeddedOptions = {}): SqlStore {
  const schema = validateSchema(options.schema ?? DEFAULT_SCHEMA);
  const logger = providerLogger(options.logger, 'embedded');
  const vacuumIntervalMs = options.vacuumIntervalMs ?? 60_000;
  if (!Number.isFinite(vacuumIntervalMs) || vacuumIntervalMs < 0) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_CONFIG',
      `vacuumIntervalMs must be a non-negative number, got ${vacuumIntervalMs}.`,
    );
  }
  return new SqlStore({
    kind: 'embedded',
    schema,
    migrate: options.migrate ?? true,
    logger,
    backend: embeddedBackend(options, schema, vacuumIntervalMs, logger),
  });
}

/** An opened PGlite with the resources tied to it. */
interface Opened {
  db: PgliteInstance;
  executor: Executor;
  lock: DirectoryLock | null;
}

/** Starts (or adopts) a PGlite instance, taking the directory lock first. */
async function openPglite(options: EmbeddedOptions): Promise<Opened> {
  if (options.pglite !== undefined) {
    await options.pglite.waitReady;
    return { db: options.pglite, executor: pgliteExecutor(options.pglite), lock: null };
  }
  const dataDir = options.dataDir ?? './.chokaq';
  let lock: DirectoryLock | null = null;
  if (dataDir !== MEMORY_DATA_DIR) {
    mkdirSync(resolve(dataDir), { recursive: true });
    lock = acquireDirectoryLock(resolve(dataDir));
  }
  try {
    const db = await PGlite.create({
      ...(dataDir === MEMORY_DATA_DIR ? {} : { dataDir: resolve(dataDir) }),
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
    });
    return { db, executor: pgliteExecutor(db, () => db.close()), lock };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

function embeddedBackend(
  options: EmbeddedOptions,
  schema: string,
  vacuumIntervalMs: number,
  logger: Logger,
): SqlBackend {
  let opened: Opened | null = null;
  let vacuum: NodeJS.Timeout | null = null;
  const vacuumSql = withSchema(QUERIES.vacuum_hot, schema);
  return {
    async open(): Promise<Executor> {
      if (opened !== null) return opened.executor;
      const current = await openPglite(options);
      opened = current;
      if (vacuumIntervalMs > 0) {
        vacuum = setInterval(() => {
          if (current.db.closed) return;
          current.executor.query(vacuumSql).catch((error: unknown) => {
            logger.debug('vacuum failed', { error: String(error) });
          });
        }, vacuumIntervalMs);
        vacuum.unref();
      }
      return current.executor;
    },
    async listen(channel: string, onPayload: (payload: string) => void): Promise<Unlisten> {
      if (opened === null) return () => Promise.resolve();
      const unlisten = await opened.db.listen(channel, onPayload);
      const db = opened.db;
      return async () => {
        if (!db.closed) await unlisten();
      };
    },
    async close(): Promise<void> {
      if (vacuum !== null) clearInterval(vacuum);
      vacuum = null;
      const current = opened;
      opened = null;
      if (current === null) return;
      try {
        await current.executor.close();
      } finally {
        current.lock?.release();
      }
    },
  };
}

/** Options of {@link migrate}. */
export interface EmbeddedMigrateOptions {
  /**
   * Data directory to migrate.
   * @default './.chokaq'
   */
  dataDir?: string;
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
 * Migrates an embedded data directory (for the CLI), creating it if missing. Takes the directory
 * lock, so it fails with `CHOKAQ_STORAGE_LOCKED` while an app has the directory open. A dry run
 * of a missing directory creates nothing: it reports every migration.
 *
 * @returns The migrations applied, or with `dryRun` those that would be applied.
 */
export async function migrate(options: EmbeddedMigrateOptions = {}): Promise<MigrationStep[]> {
  const schema = validateSchema(options.schema ?? DEFAULT_SCHEMA);
  const dataDir = options.dataDir ?? './.chokaq';
  const dryRun = options.dryRun ?? false;
  // A fresh volatile instance has no migrations applied, exactly like a directory not yet made.
  const missing = dataDir !== MEMORY_DATA_DIR && !existsSync(resolve(dataDir));
  const opened = await openPglite({ dataDir: dryRun && missing ? MEMORY_DATA_DIR : dataDir });
  try {
    return await migrateSchema(opened.executor, schema, { dryRun });
  } finally {
    try {
      await opened.executor.close();
    } finally {
      opened.lock?.release();
    }
  }
}
