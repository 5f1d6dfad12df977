/** The options of `postgres()` and of the PostgreSQL `migrate()`, and their checks. */
import { ChokaQError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { checkBoolean, checkInteger, checkOptions, hasMethods, invalid } from '../../util/check.js';
import { DEFAULT_SCHEMA, validateSchema } from '../sql/schema.js';
import { checkSqlProviderOptions, type SqlProviderSettings } from '../sql/provider-options.js';
import type { PostgresPool } from './pool.js';

/** Bounds of `poolSize`. */
const POOL_SIZE_RANGE = { min: 1, max: 1000 } as const;

/** Options of `postgres()`. Give `connectionString` or `pool`. */
export interface PostgresOptions {
  /**
   * A PostgreSQL URL; the provider creates (and closes) its own pool. `undefined` counts as not
   * given, so `process.env.DATABASE_URL` can be passed as it is.
   */
  connectionString?: string | undefined;
  /** An existing pool to use, for example a `pg.Pool`; the provider never ends it. */
  pool?: PostgresPool;
  /**
   * Schema holding ChokaQ's tables; `^[a-z_][a-z0-9_]{0,62}$`, not `pg_…` or
   * `information_schema`.
   * @default 'chokaq'
   */
  schema?: string;
  /**
   * Apply pending migrations in `open()`.
   * @default true
   */
  migrate?: boolean;
  /**
   * Size of the pool the provider creates (ignored with `pool`); 1 to 1000.
   * @default 10
   */
  poolSize?: number;
  /**
   * Keep statements prepared on each connection, so PostgreSQL plans them once. Turn it off
   * behind a transaction-mode pooler such as PgBouncer 1.18, where a prepared statement does not
   * outlive the transaction that prepared it.
   * @default true
   */
  prepareStatements?: boolean;
  /**
   * Wake workers and deliver cross-process events through LISTEN/NOTIFY. At start a probe
   * notification checks that LISTEN works; when it does not arrive (behind a transaction-mode
   * pooler) the store warns once and workers poll. `false` never listens.
   * @default true
   */
  listen?: boolean;
  /**
   * Where the store logs.
   * @default ChokaQ's `logger` (scoped `postgres`) once the store is given to `new ChokaQ()`;
   *   `consoleLogger()` before that.
   */
  logger?: Logger;
}

/** Options of the PostgreSQL `migrate()`. */
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

/** Where the provider's connections come from. */
export type PostgresSource = { pool: PostgresPool } | { connectionString: string };

/** `postgres()` options, checked, with defaults applied. */
export interface PostgresSettings extends SqlProviderSettings {
  source: PostgresSource;
  poolSize: number;
  prepareStatements: boolean;
  listen: boolean;
}

const PREFIX = 'postgres(options)';

const OPTION_KEYS = [
  'connectionString',
  'pool',
  'schema',
  'migrate',
  'poolSize',
  'prepareStatements',
  'listen',
  'logger',
] as const satisfies readonly (keyof PostgresOptions)[];

const MIGRATE_PREFIX = 'migrate(options)';

const MIGRATE_KEYS = [
  'connectionString',
  'schema',
  'dryRun',
] as const satisfies readonly (keyof PostgresMigrateOptions)[];

/**
 * Checks every option of `postgres()` without connecting.
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION` for an unknown option name, `CHOKAQ_INVALID_CONFIG`
 *   naming the option and the value for a wrong type or value, or when neither (or both of)
 *   `connectionString` and `pool` is given.
 */
export function checkPostgresOptions(options: PostgresOptions | undefined): PostgresSettings {
  const given = checkOptions(options, PREFIX, OPTION_KEYS);
  const shared = checkSqlProviderOptions(given, PREFIX);
  const common = {
    ...shared,
    poolSize: checkInteger(given.poolSize ?? 10, `${PREFIX}.poolSize`, POOL_SIZE_RANGE),
    prepareStatements: checkBoolean(given.prepareStatements ?? true, `${PREFIX}.prepareStatements`),
    listen: checkBoolean(given.listen ?? true, `${PREFIX}.listen`),
  };
  if (given.pool !== undefined) {
    if (given.connectionString !== undefined) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_CONFIG',
        `${PREFIX} takes a connectionString or a pool, not both.`,
        { field: `${PREFIX}.pool` },
      );
    }
    return { ...common, source: { pool: checkPool(given.pool, `${PREFIX}.pool`) } };
  }
  if (given.connectionString === undefined) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_CONFIG',
      `${PREFIX} needs a connectionString or a pool.`,
      {
        field: `${PREFIX}.connectionString`,
      },
    );
  }
  const connectionString = checkConnectionString(
    given.connectionString,
    `${PREFIX}.connectionString`,
  );
  return { ...common, source: { connectionString } };
}

/** The PostgreSQL `migrate()` options, checked, with defaults applied. */
export interface PostgresMigrateSettings {
  connectionString: string;
  schema: string;
  dryRun: boolean;
}

/**
 * Checks every option of the PostgreSQL `migrate()` without connecting.
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION` or `CHOKAQ_INVALID_CONFIG` naming the option.
 */
export function checkPostgresMigrateOptions(
  options: PostgresMigrateOptions | undefined,
): PostgresMigrateSettings {
  const given = checkOptions(options, MIGRATE_PREFIX, MIGRATE_KEYS);
  return {
    connectionString: checkConnectionString(
      given.connectionString,
      `${MIGRATE_PREFIX}.connectionString`,
    ),
    schema: validateSchema(given.schema ?? DEFAULT_SCHEMA, `${MIGRATE_PREFIX}.schema`),
    dryRun: checkBoolean(given.dryRun ?? false, `${MIGRATE_PREFIX}.dryRun`),
  };
}

/** A non-blank string; what it says is left to `pg`, which parses it on connect. */
function checkConnectionString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid('CHOKAQ_INVALID_CONFIG', field, 'a PostgreSQL connection string', value);
  }
  return value;
}

/** An object with what the provider calls on a pool: `query()`, `connect()` and `options`. */
function checkPool(value: unknown, field: string): PostgresPool {
  const options = (value as { options?: unknown } | null)?.options;
  if (!hasMethods(value, ['query', 'connect']) || typeof options !== 'object' || options === null) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      field,
      'a connection pool such as a pg.Pool (query(), connect() and options)',
      value,
    );
  }
  return value as PostgresPool;
}
