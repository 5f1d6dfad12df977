/**
 * The embedded provider (`chokaq/embedded`): PGlite (PostgreSQL in WebAssembly) running the same
 * SQL as the PostgreSQL provider, for zero-install, single-process use. Safeguards: an exclusive
 * lockfile on the data directory, transactions only through PGlite's `transaction()`, int8
 * normalised by the row mappers, a small `shared_buffers`, and a periodic VACUUM of the hot table
 * (PGlite runs no autovacuum).
 */
import { logEvent } from '../../observability/logging/log-events.js';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Logger } from '../../observability/logging/logger.js';
import { providerLogger } from '../../observability/logging/provider-logger.js';
import type { Executor } from '../sql/executor.js';
import { QUERIES } from '../sql/generated.js';
import { vacuumHot } from '../sql/statements.js';
import { migrate as migrateSchema, type MigrationStep } from '../sql/migrator.js';
import { withSchema } from '../sql/schema.js';
import { SqlStore, type SqlBackend, type Unlisten } from '../sql/sql-store.js';
import { acquireDirectoryLock, type DirectoryLock } from './lockfile.js';
import {
  checkEmbeddedMigrateOptions,
  checkEmbeddedOptions,
  MEMORY_DATA_DIR,
  type EmbeddedMigrateOptions,
  type EmbeddedOptions,
  type EmbeddedSettings,
  type EmbeddedSource,
} from './options.js';
import type { PgliteInstance } from './pglite.js';
import { pgliteExecutor } from './pglite-executor.js';

export type { MigrationStep } from '../sql/migrator.js';
export type { PgliteInstance, PgliteSession } from './pglite.js';
export { MEMORY_DATA_DIR } from './options.js';
export type { EmbeddedMigrateOptions, EmbeddedOptions } from './options.js';
export type { SqlStore } from '../sql/sql-store.js';

/** `shared_buffers` of instances the provider starts (PGlite's default costs ~500 MB more RSS). */
const SHARED_BUFFERS = '16MB';

/**
 * An embedded store. Nothing starts until `open()` (or the first call), which takes the data
 * directory's lockfile, starts PGlite and applies migrations unless `migrate: false`.
 *
 * @throws `CHOKAQ_UNKNOWN_OPTION` for an unknown option name; `CHOKAQ_INVALID_CONFIG` naming the
 *   option for a wrong type or value (a blank `dataDir`, a reserved schema name, a vacuum interval
 *   outside its bounds). `open()` throws `CHOKAQ_STORAGE_LOCKED` when another live process (or
 *   store) holds the data directory.
 */
export function embedded(options: EmbeddedOptions = {}): SqlStore {
  const settings = checkEmbeddedOptions(options);
  const logger = providerLogger(settings.logger, 'embedded');
  return new SqlStore({
    kind: 'embedded',
    schema: settings.schema,
    migrate: settings.migrate,
    logger,
    clock: settings.clock,
    backend: embeddedBackend(settings, logger),
  });
}

/** An opened PGlite with the resources tied to it. */
interface Opened {
  db: PgliteInstance;
  executor: Executor;
  lock: DirectoryLock | null;
}

/** Starts (or adopts) a PGlite instance, taking the directory lock first. */
async function openPglite(source: EmbeddedSource): Promise<Opened> {
  if ('pglite' in source) {
    await source.pglite.waitReady;
    return { db: source.pglite, executor: pgliteExecutor(source.pglite), lock: null };
  }
  const { dataDir } = source;
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

function embeddedBackend(settings: EmbeddedSettings, logger: Logger): SqlBackend {
  const { vacuumIntervalMs } = settings;
  let opened: Opened | null = null;
  let vacuum: NodeJS.Timeout | null = null;
  const sql = { vacuum_hot: withSchema(QUERIES.vacuum_hot, settings.schema) };
  return {
    async open(): Promise<Executor> {
      if (opened !== null) return opened.executor;
      const current = await openPglite(settings.source);
      opened = current;
      if (vacuumIntervalMs > 0) {
        vacuum = setInterval(() => {
          if (current.db.closed) return;
          vacuumHot(current.executor, sql).catch((error: unknown) => {
            logger.debug('vacuum failed', { ...logEvent('VacuumFailed'), error: String(error) });
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

/**
 * Migrates an embedded data directory (for the CLI), creating it if missing. Takes the directory
 * lock, so it fails with `CHOKAQ_STORAGE_LOCKED` while an app has the directory open. A dry run
 * of a missing directory creates nothing: it reports every migration.
 *
 * @returns The migrations applied, or with `dryRun` those that would be applied.
 * @throws `CHOKAQ_UNKNOWN_OPTION` or `CHOKAQ_INVALID_CONFIG` naming a bad option, before
 *   touching the directory.
 */
export async function migrate(options: EmbeddedMigrateOptions = {}): Promise<MigrationStep[]> {
  const { dataDir, schema, dryRun } = checkEmbeddedMigrateOptions(options);
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
