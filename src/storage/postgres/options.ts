/** The options of `postgres()` and of the PostgreSQL `migrate()`, and their checks. */
import { ChokaQError } from '../../errors.js';
import type { Logger } from '../../observability/logging/logger.js';
import type { Clock } from '../../util/clock.js';
import { checkBoolean, checkInteger, checkOptions, hasMethods, invalid } from '../../util/check.js';
import { MAX_TIMER_MS, toMs, type Duration } from '../../util/duration.js';
import { DEFAULT_SCHEMA, validateSchema } from '../sql/schema.js';
import {
  checkSqlProviderOptions,
  type MigrateOnOpen,
  type SqlProviderSettings,
} from '../sql/provider-options.js';
import { parseMultiHostUrl, type MultiHostUrl } from './multi-host-url.js';
import type { PostgresPool } from './pool.js';

/** Bounds of `poolSize`. */
const POOL_SIZE_RANGE = { min: 1, max: 1000 } as const;

/** Options of `postgres()`. Give `connectionString` or `pool`. */
export interface PostgresOptions {
  /**
   * A PostgreSQL URL; the provider creates (and closes) its own pool. `undefined` counts as not
   * given, so `process.env.CHOKAQ_DATABASE_URL` can be passed as it is. libpq's multi-host form
   * (`postgres://user@h1:5432,h2:5432/db?target_session_attrs=read-write`) is taken too: every
   * new connection goes to the host found writable (not in recovery, not read-only), tried in
   * order, and moves on when that host fails or stops taking writes (a failover).
   * `target_session_attrs` may be `read-write` or `primary` (the default for several hosts).
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
   * Apply pending migrations in `open()`. `'check'` applies none and creates nothing: `open()`
   * reads the migration ledger and fails with `CHOKAQ_SCHEMA_NOT_MIGRATED` when the schema is
   * missing or behind (for tools that only read); `false` skips migrations without checking.
   * @default true
   */
  migrate?: MigrateOnOpen;
  /**
   * Size of the pool the provider creates (ignored with `pool`); 1 to 1000. In a pool of 4 or more
   * (this one or a given `pool`), a worker keeps two connections: one for its claims, one for its
   * settle rounds, so PostgreSQL plans those statements once per process, not per connection.
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
   * Wake workers and deliver cross-process events through LISTEN/NOTIFY. The LISTEN connection
   * listens only on a server session of its own (the server process answering it is the one it
   * connected to); behind a pooler it is not, and the store warns once and workers poll.
   * `false` never listens.
   * @default true
   */
  listen?: boolean;
  /**
   * Longest a statement of ChokaQ's may run on the server (`statement_timeout`): a statement
   * stuck behind a lock or on an overloaded server ends with the retryable
   * `CHOKAQ_STORAGE_TIMEOUT` instead of hanging its worker. Set on every ChokaQ transaction
   * (`SET LOCAL`) and, on the pool the provider creates, for every statement (the `options`
   * startup parameter); that pool's client also gives up on an answer 10 s after it (the server
   * stopped, or the network is gone). Migrations are exempt. `0` turns it off.
   * @default '60s'
   */
  statementTimeout?: Duration;
  /**
   * Longest an operator statement (cancel, resurrect, purge, edit, queue changes, bulk batches)
   * waits for a row lock (`lock_timeout`, per transaction): an operator action never queues
   * behind a stuck transaction; it fails with the retryable `CHOKAQ_STORAGE_TIMEOUT` and nothing
   * of it is kept. `0` turns it off.
   * @default '5s'
   */
  lockTimeout?: Duration;
  /**
   * Longest a ChokaQ transaction may sit idle between two of its statements before the server
   * ends its session (`idle_in_transaction_session_timeout`, per transaction). This bounds how
   * long a process that vanished mid-transaction (a host cut off, a frozen or killed process)
   * can hold the rescue lock, the queue rows of a capped or keyed claim, a schedule row or a
   * bulk batch's rows: the server ends the session, its locks go, and the others take over.
   * ChokaQ never waits on anything but the database inside its transactions. `0` turns it off
   * (then a vanished holder keeps its locks until TCP gives up, minutes to hours).
   * @default '30s'
   */
  idleInTransactionTimeout?: Duration;
  /**
   * Where the store logs.
   * @default ChokaQ's `logger` (scoped `postgres`) once the store is given to `new ChokaQ()`;
   *   `consoleLogger()` before that.
   */
  logger?: Logger;
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

/**
 * Where the provider's connections come from; `hosts` when the URL names several hosts (libpq's
 * multi-host form): the provider then connects to the writable one itself.
 */
export type PostgresSource =
  { pool: PostgresPool } | { connectionString: string; hosts: MultiHostUrl | null };

/** `postgres()` options, checked, with defaults applied. */
export interface PostgresSettings extends SqlProviderSettings {
  source: PostgresSource;
  poolSize: number;
  prepareStatements: boolean;
  listen: boolean;
  /** The session limits, in ms (`0`: off). */
  timeouts: SessionTimeouts;
}

/** The server-side limits the provider sets, in ms; `0` is off. */
export interface SessionTimeouts {
  statementMs: number;
  lockMs: number;
  idleInTransactionMs: number;
}

/** Defaults of the session limits, in ms. */
export const DEFAULT_TIMEOUTS: SessionTimeouts = {
  statementMs: 60_000,
  lockMs: 5_000,
  idleInTransactionMs: 30_000,
};

const PREFIX = 'postgres(options)';

const OPTION_KEYS = [
  'connectionString',
  'pool',
  'schema',
  'migrate',
  'poolSize',
  'prepareStatements',
  'listen',
  'statementTimeout',
  'lockTimeout',
  'idleInTransactionTimeout',
  'logger',
  'clock',
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
    timeouts: {
      statementMs: checkTimeout(given.statementTimeout, 'statementTimeout', 'statementMs'),
      lockMs: checkTimeout(given.lockTimeout, 'lockTimeout', 'lockMs'),
      idleInTransactionMs: checkTimeout(
        given.idleInTransactionTimeout,
        'idleInTransactionTimeout',
        'idleInTransactionMs',
      ),
    },
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
  const field = `${PREFIX}.connectionString`;
  const connectionString = checkConnectionString(given.connectionString, field);
  return {
    ...common,
    source: { connectionString, hosts: parseMultiHostUrl(connectionString, field) },
  };
}

/** The PostgreSQL `migrate()` options, checked, with defaults applied. */
export interface PostgresMigrateSettings {
  connectionString: string;
  /** The hosts of a multi-host URL, else `null`. */
  hosts: MultiHostUrl | null;
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
  const field = `${MIGRATE_PREFIX}.connectionString`;
  const connectionString = checkConnectionString(given.connectionString, field);
  return {
    connectionString,
    hosts: parseMultiHostUrl(connectionString, field),
    schema: validateSchema(given.schema ?? DEFAULT_SCHEMA, `${MIGRATE_PREFIX}.schema`),
    dryRun: checkBoolean(given.dryRun ?? false, `${MIGRATE_PREFIX}.dryRun`),
  };
}

/**
 * A session limit in ms: a {@link Duration} from 0 (off) to {@link MAX_TIMER_MS}, whole
 * milliseconds as PostgreSQL takes them; the default when not given.
 * @throws ChokaQError `CHOKAQ_INVALID_DURATION` naming the option and the value.
 */
function checkTimeout(
  value: Duration | undefined,
  option: string,
  key: keyof SessionTimeouts,
): number {
  if (value === undefined) return DEFAULT_TIMEOUTS[key];
  return toMs(value, `${PREFIX}.${option}`, { min: 0, max: MAX_TIMER_MS });
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
