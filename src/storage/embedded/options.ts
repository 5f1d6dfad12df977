/** The options of `embedded()` and of the embedded `migrate()`, and their checks. */
import type { Logger } from '../../observability/logging/logger.js';
import type { Clock } from '../../util/clock.js';
import { checkBoolean, checkOptions, checkString, hasMethods, invalid } from '../../util/check.js';
import { MAX_TIMER_MS } from '../../util/duration.js';
import { DEFAULT_SCHEMA, validateSchema } from '../sql/schema.js';
import {
  checkSqlProviderOptions,
  type MigrateOnOpen,
  type SqlProviderSettings,
} from '../sql/provider-options.js';
import type { PgliteInstance } from './pglite.js';

/** The `dataDir` value for a volatile, in-memory instance. */
export const MEMORY_DATA_DIR = 'memory://';

/** The data directory when none is given. */
export const DEFAULT_DATA_DIR = './.chokaq';

/** Longest `dataDir` accepted (Linux's PATH_MAX). */
const MAX_DATA_DIR_LENGTH = 4096;

/** Shortest interval of the hot-table VACUUM: more often would keep PGlite's one session busy. */
const MIN_VACUUM_INTERVAL_MS = 1000;

/** Options of `embedded()`. */
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
   * Schema holding ChokaQ's tables; `^[a-z_][a-z0-9_]{0,62}$`, not `pg_…` or
   * `information_schema`.
   * @default 'chokaq'
   */
  schema?: string;
  /**
   * Apply pending migrations in `open()`. `'check'` applies none and creates nothing: `open()`
   * reads the migration ledger and fails with `CHOKAQ_SCHEMA_NOT_MIGRATED` when the schema is
   * missing or behind (for tools that only read); `false` skips migrations without checking.
   * @default true
   */
  migrate?: MigrateOnOpen;
  /**
   * Where the store logs.
   * @default ChokaQ's `logger` (scoped `embedded`) once the store is given to `new ChokaQ()`;
   *   `consoleLogger()` before that.
   */
  logger?: Logger;
  /**
   * Interval of the hot-table VACUUM in ms: 0 disables it, else 1000 to 2147483647.
   * @default 60000
   */
  vacuumIntervalMs?: number;
  /**
   * Where every statement reads the time (due times, leases, heartbeats, timestamps, retention
   * ages), for tests: a `FakeClock` given here and to `new ChokaQ({ clock })` drives delays and
   * timeouts without waiting. Leave it out in production: the database's own clock keeps
   * processes with skewed clocks agreeing on when a job is due. Migration records keep the
   * database's time.
   * @default the database's own clock (`now()`)
   */
  clock?: Clock;
}

/** Options of the embedded `migrate()`. */
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

/** Where the store's PGlite comes from. */
export type EmbeddedSource = { pglite: PgliteInstance } | { dataDir: string };

/** `embedded()` options, checked, with defaults applied. */
export interface EmbeddedSettings extends SqlProviderSettings {
  source: EmbeddedSource;
  /** 0 = off. */
  vacuumIntervalMs: number;
}

const PREFIX = 'embedded(options)';

const OPTION_KEYS = [
  'dataDir',
  'pglite',
  'schema',
  'migrate',
  'logger',
  'vacuumIntervalMs',
  'clock',
] as const satisfies readonly (keyof EmbeddedOptions)[];

const MIGRATE_PREFIX = 'migrate(options)';

const MIGRATE_KEYS = [
  'dataDir',
  'schema',
  'dryRun',
] as const satisfies readonly (keyof EmbeddedMigrateOptions)[];

/**
 * Checks every option of `embedded()` without touching the file system.
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION` for an unknown option name, `CHOKAQ_INVALID_CONFIG`
 *   naming the option and the value for a wrong type or value.
 */
export function checkEmbeddedOptions(options: EmbeddedOptions | undefined): EmbeddedSettings {
  const given = checkOptions(options, PREFIX, OPTION_KEYS);
  const shared = checkSqlProviderOptions(given, PREFIX);
  const dataDir = checkDataDir(given.dataDir, `${PREFIX}.dataDir`);
  return {
    ...shared,
    source:
      given.pglite === undefined
        ? { dataDir }
        : { pglite: checkPglite(given.pglite, `${PREFIX}.pglite`) },
    vacuumIntervalMs: checkVacuumInterval(
      given.vacuumIntervalMs ?? 60_000,
      `${PREFIX}.vacuumIntervalMs`,
    ),
  };
}

/** The embedded `migrate()` options, checked, with defaults applied. */
export interface EmbeddedMigrateSettings {
  dataDir: string;
  schema: string;
  dryRun: boolean;
}

/**
 * Checks every option of the embedded `migrate()` without touching the file system.
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION` or `CHOKAQ_INVALID_CONFIG` naming the option.
 */
export function checkEmbeddedMigrateOptions(
  options: EmbeddedMigrateOptions | undefined,
): EmbeddedMigrateSettings {
  const given = checkOptions(options, MIGRATE_PREFIX, MIGRATE_KEYS);
  return {
    dataDir: checkDataDir(given.dataDir, `${MIGRATE_PREFIX}.dataDir`),
    schema: validateSchema(given.schema ?? DEFAULT_SCHEMA, `${MIGRATE_PREFIX}.schema`),
    dryRun: checkBoolean(given.dryRun ?? false, `${MIGRATE_PREFIX}.dryRun`),
  };
}

/** A non-blank path, or {@link DEFAULT_DATA_DIR} when not given. */
function checkDataDir(value: unknown, field: string): string {
  return value === undefined ? DEFAULT_DATA_DIR : checkString(value, field, MAX_DATA_DIR_LENGTH);
}

/** An object with what the store calls on a PGlite instance. */
function checkPglite(value: unknown, field: string): PgliteInstance {
  if (!hasMethods(value, ['query', 'exec', 'transaction', 'listen'])) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      field,
      'a started PGlite instance (query(), exec(), transaction() and listen())',
      value,
    );
  }
  return value as PgliteInstance;
}

/** 0, or an integer number of ms from {@link MIN_VACUUM_INTERVAL_MS} to what a timer can wait. */
function checkVacuumInterval(value: unknown, field: string): number {
  if (
    value === 0 ||
    (typeof value === 'number' &&
      Number.isInteger(value) &&
      value >= MIN_VACUUM_INTERVAL_MS &&
      value <= MAX_TIMER_MS)
  ) {
    return value;
  }
  throw invalid(
    'CHOKAQ_INVALID_CONFIG',
    field,
    `0 (off) or an integer from ${MIN_VACUUM_INTERVAL_MS} to ${MAX_TIMER_MS} (ms)`,
    value,
  );
}
