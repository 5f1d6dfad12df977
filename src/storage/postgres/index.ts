/**
 * The PostgreSQL provider (`chokaq/postgres`): a `pg` pool, the shared SQL store, LISTEN/NOTIFY
 * wake-ups and transactional enqueue. Works with PostgreSQL ≥ 13.
 */
import { logEvent } from '../../observability/logging/log-events.js';
import pg from 'pg';
import { invalid } from '../../util/check.js';
import type { Logger } from '../../observability/logging/logger.js';
import { providerLogger } from '../../observability/logging/provider-logger.js';
import { clientExecutor, type Executor, type Lane, type QueryableClient } from '../sql/executor.js';
import { migrate as migrateSchema, type MigrationStep } from '../sql/migrator.js';
import { SqlStore, type SqlBackend, type Unlisten } from '../sql/sql-store.js';
import { PgListener } from './listener.js';
import {
  checkPostgresMigrateOptions,
  checkPostgresOptions,
  DEFAULT_TIMEOUTS,
  type PostgresMigrateOptions,
  type PostgresOptions,
  type PostgresSettings,
  type SessionTimeouts,
} from './options.js';
import { HostLocator, locatedClient } from './hosts.js';
import type { MultiHostUrl } from './multi-host-url.js';
import { pgExecutor } from './pg-executor.js';
import type { PostgresPool } from './pool.js';

export type { MigrationStep } from '../sql/migrator.js';
export type { PostgresMigrateOptions, PostgresOptions } from './options.js';
export type { SqlStore } from '../sql/sql-store.js';
export type {
  PostgresPool,
  PostgresPoolClient,
  PostgresQueryable,
  PostgresQueryResult,
  PostgresStatement,
} from './pool.js';

/**
 * The PostgreSQL store: the SQL store over a `pg` pool, whose `jobs.enqueueWithin` enqueues on a
 * caller's `pg` client inside their open transaction.
 */
export class PostgresStore extends SqlStore {}

/**
 * A PostgreSQL store. Nothing connects until `open()` (or the first call), which also applies
 * migrations unless `migrate: false`.
 *
 * @throws `CHOKAQ_UNKNOWN_OPTION` for an unknown option name; `CHOKAQ_INVALID_CONFIG` naming the
 *   option for a wrong type or value (`poolSize` outside 1–1000, a reserved schema name), or
 *   when neither (or both of) `connectionString` and `pool` is given.
 */
export function postgres(options: PostgresOptions): PostgresStore {
  const settings = checkPostgresOptions(options);
  const logger = providerLogger(settings.logger, 'postgres');
  return new PostgresStore({
    kind: 'postgres',
    schema: settings.schema,
    migrate: settings.migrate,
    logger,
    clock: settings.clock,
    backend: postgresBackend(settings, logger),
  });
}

function postgresBackend(settings: PostgresSettings, logger: Logger): SqlBackend {
  const { source } = settings;
  let pool: PostgresPool | null = null;
  let ownedPool: pg.Pool | null = null;
  let executor: Executor | null = null;
  /** One LISTEN connection for every channel of the store, made on the first `listen`. */
  let listener: PgListener | null = null;
  /** The connection class that finds the writable host of a multi-host URL, else `null`. */
  const located = 'pool' in source ? null : locatedClientOf(source);
  const onIdleError = (error: Error): void => {
    logger.warn('idle PostgreSQL connection failed', {
      ...logEvent('IdleConnectionFailed'),
      error: error.message,
    });
  };
  return {
    open(): Promise<Executor> {
      if (executor !== null) return Promise.resolve(executor);
      if ('pool' in source) {
        pool = source.pool;
        executor = pgExecutor(pool, undefined, {
          prepare: settings.prepareStatements,
          timeouts: settings.timeouts,
          pinnable: keptLanes(poolMax(pool)),
        });
      } else {
        const owned = new pg.Pool({
          ...ownConnectionConfig(source, settings.timeouts),
          max: settings.poolSize,
        });
        owned.on('error', onIdleError);
        ownedPool = owned;
        pool = owned;
        executor = pgExecutor(owned, () => owned.end(), {
          prepare: settings.prepareStatements,
          timeouts: settings.timeouts,
          pinnable: keptLanes(settings.poolSize),
        });
      }
      return Promise.resolve(executor);
    },
    listen(channel: string, onPayload: (payload: string) => void): Promise<Unlisten> {
      if (!settings.listen) return Promise.resolve(() => Promise.resolve());
      const config: pg.ClientConfig =
        pool?.options ??
        ('pool' in source ? source.pool.options : { connectionString: source.connectionString });
      listener ??= new PgListener({
        client: config,
        ...(located === null ? {} : { Client: located }),
        logger,
      });
      return listener.add(channel, onPayload);
    },
    within(transaction: unknown): Executor {
      if (!isQueryable(transaction)) {
        throw invalid(
          'CHOKAQ_INVALID_ARGUMENT',
          'options.client',
          'a pg client (an object with query()) inside an open transaction',
          transaction,
        );
      }
      return clientExecutor(transaction);
    },
    async close(): Promise<void> {
      const open = listener;
      listener = null;
      await open?.stop();
      const current = executor;
      executor = null;
      ownedPool?.off('error', onIdleError);
      ownedPool = null;
      pool = null;
      await current?.close();
    },
  };
}

/**
 * The smallest pool a worker keeps two connections of (one for its claims, one for its settle
 * rounds; see `pinnedExecutor`): the other two or more serve heartbeats, maintenance and enqueues.
 */
const PIN_MIN_POOL_SIZE = 4;

/**
 * The smallest pool a process also keeps a connection of for its upkeep statements (see `Lane`),
 * so three or more stay for heartbeats, start marks, rescue and enqueues.
 */
const UPKEEP_PIN_MIN_POOL_SIZE = 6;

/** The lanes a pool of `size` connections keeps one connection for. */
function keptLanes(size: number): Lane[] {
  if (size >= UPKEEP_PIN_MIN_POOL_SIZE) return ['claim', 'settle', 'upkeep'];
  return size >= PIN_MIN_POOL_SIZE ? ['claim', 'settle'] : [];
}

/** `pg.Pool`'s size when none is set. */
const PG_DEFAULT_POOL_MAX = 10;

/** The most connections `pool` opens, as its options say (a `pg.Pool`'s `max`). */
function poolMax(pool: PostgresPool): number {
  const { max } = pool.options as { max?: unknown };
  return typeof max === 'number' ? max : PG_DEFAULT_POOL_MAX;
}

/** Idle time before the first TCP keepalive probe on the provider's own connections, in ms. */
const KEEPALIVE_DELAY_MS = 10_000;

/** How long after `statementTimeout` the client gives up on an answer itself, in ms. */
const CLIENT_GRACE_MS = 10_000;

/**
 * Connection settings of the pool the provider creates (its LISTEN connection copies them):
 * TCP keepalives, so a connection to a vanished server or across a cut network is noticed;
 * `statement_timeout` for every statement, sent as the `options` startup parameter after any
 * `options` the URL gives; and a client-side `query_timeout` of `statementTimeout` +
 * {@link CLIENT_GRACE_MS}, which ends the connection when the server does not answer at all (a
 * stopped server, a cut network), since the server's own limit cannot fire there.
 */
function ownConnectionConfig(
  source: { connectionString: string; hosts: MultiHostUrl | null },
  timeouts: SessionTimeouts,
): pg.PoolConfig {
  const connectionString = source.hosts?.base ?? source.connectionString;
  const config: pg.PoolConfig = {
    connectionString,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  };
  const located = locatedClientOf(source);
  if (located !== null) config.Client = located;
  if (timeouts.statementMs > 0) {
    const given = urlOption(connectionString, 'options');
    config.options = [given, `-c statement_timeout=${timeouts.statementMs}`]
      .filter((part) => part !== undefined && part !== '')
      .join(' ');
    config.query_timeout = timeouts.statementMs + CLIENT_GRACE_MS;
  }
  return config;
}

/**
 * The connection class for a multi-host URL's hosts (each use makes its own locator), else
 * `null` for a URL of one host.
 */
function locatedClientOf(source: {
  connectionString: string;
  hosts: MultiHostUrl | null;
}): typeof pg.Client | null {
  if (source.hosts === null) return null;
  return locatedClient(new HostLocator(source.hosts.hosts, source.hosts.base));
}

/** A query parameter of a `postgres://` URL; `undefined` when absent or not a URL. */
function urlOption(connectionString: string, name: string): string | undefined {
  try {
    return new URL(connectionString).searchParams.get(name) ?? undefined;
  } catch {
    return undefined;
  }
}

function isQueryable(value: unknown): value is QueryableClient {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { query?: unknown }).query === 'function'
  );
}

/**
 * Migrates a PostgreSQL schema to the newest version on its own short-lived connection (for
 * the CLI and deploy scripts). Safe to run from several processes at once.
 *
 * @returns The migrations applied, or with `dryRun` those that would be applied.
 * @throws `CHOKAQ_UNKNOWN_OPTION` or `CHOKAQ_INVALID_CONFIG` naming a bad option, before
 *   connecting.
 */
export async function migrate(options: PostgresMigrateOptions): Promise<MigrationStep[]> {
  const settings = checkPostgresMigrateOptions(options);
  const located = locatedClientOf(settings);
  const pool = new pg.Pool({
    connectionString: settings.hosts?.base ?? settings.connectionString,
    ...(located === null ? {} : { Client: located }),
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    max: 1,
  });
  pool.on('error', () => undefined);
  const executor = pgExecutor(pool, () => pool.end(), { timeouts: DEFAULT_TIMEOUTS });
  try {
    return await migrateSchema(executor, settings.schema, { dryRun: settings.dryRun });
  } finally {
    await executor.close();
  }
}
