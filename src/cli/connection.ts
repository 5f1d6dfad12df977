import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ChokaQError } from '../errors.js';
import type { Logger } from '../observability/logging/logger.js';
import type { Store } from '../storage/store.js';
// The options module only, not the provider: PGlite is loaded when a command needs it.
import { DEFAULT_DATA_DIR } from '../storage/embedded/options.js';
import { DEFAULT_SCHEMA } from '../storage/sql/schema.js';
import { CliError } from './io.js';

/** Where a command's jobs live: PostgreSQL when a URL is given, else the embedded store. */
export interface ConnectionOptions {
  /** `--database-url`, else `CHOKAQ_DATABASE_URL`. */
  databaseUrl: string | undefined;
  /** Where {@link ConnectionOptions.databaseUrl} came from, for errors: a flag or a variable. */
  databaseUrlFrom: string;
  /** `--data-dir`, else `CHOKAQ_DATA_DIR`, else {@link DEFAULT_DATA_DIR}. */
  dataDir: string;
  /** Whether `dataDir` came from `--data-dir` or `CHOKAQ_DATA_DIR` rather than the default. */
  dataDirGiven: boolean;
  /** `--schema`. Default: `chokaq`. */
  schema: string | undefined;
}

/**
 * Reads connection flags, falling back to the environment (`CHOKAQ_DATABASE_URL`, the one
 * variable the README's examples read too, and `CHOKAQ_DATA_DIR`).
 * @throws CliError naming the flag or variable when the URL is not a PostgreSQL URL.
 */
export function connectionFrom(
  values: {
    'database-url'?: string | undefined;
    'data-dir'?: string | undefined;
    schema?: string | undefined;
  },
  env: Readonly<Record<string, string | undefined>>,
): ConnectionOptions {
  const dataDir = values['data-dir'] ?? env.CHOKAQ_DATA_DIR;
  const [databaseUrl, databaseUrlFrom] =
    values['database-url'] !== undefined
      ? [values['database-url'], '--database-url']
      : env.CHOKAQ_DATABASE_URL
        ? [env.CHOKAQ_DATABASE_URL, 'CHOKAQ_DATABASE_URL']
        : [undefined, '--database-url'];
  if (databaseUrl !== undefined) checkDatabaseUrl(databaseUrl, databaseUrlFrom);
  return {
    databaseUrl,
    databaseUrlFrom,
    dataDir: dataDir ?? DEFAULT_DATA_DIR,
    dataDirGiven: dataDir !== undefined,
    schema: values.schema,
  };
}

/**
 * `pg` reads any text as a URL relative to a dummy base, so `not-a-url` fails much later as
 * "ENOTFOUND base": refuse what is not a `postgres://` or `postgresql://` URL here.
 */
function checkDatabaseUrl(url: string, from: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol === 'postgres:' || parsed?.protocol === 'postgresql:') return;
  throw new CliError(
    `${from} must be a PostgreSQL URL such as postgres://user@localhost:5432/app, got '${hidePassword(url)}'`,
  );
}

/**
 * How a command opens its store: `migrate` (worker, demo) applies pending migrations; `check`
 * (every command that only reads or operates on an existing store) creates nothing and fails
 * when the schema is missing or behind.
 */
export type OpenMode = 'migrate' | 'check';

/**
 * Opens the store a connection points at (loading only the provider it needs).
 * @throws ChokaQError `CHOKAQ_SCHEMA_NOT_MIGRATED` in `check` mode when the schema is missing or
 *   behind, naming the store and the `chokaq migrate` command that fixes it.
 */
export async function openStore(
  connection: ConnectionOptions,
  logger: Logger,
  mode: OpenMode,
): Promise<Store> {
  const options = {
    logger,
    migrate: mode === 'migrate' ? true : ('check' as const),
    ...(connection.schema === undefined ? {} : { schema: connection.schema }),
  };
  let store: Store;
  if (connection.databaseUrl) {
    const { postgres } = await import('../storage/postgres/index.js');
    store = postgres({ connectionString: connection.databaseUrl, ...options });
  } else {
    const { embedded } = await import('../storage/embedded/index.js');
    store = embedded({ dataDir: connection.dataDir, ...options });
  }
  if (mode === 'migrate') return store;
  try {
    await store.open();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw notMigrated(error, connection) ?? error;
  }
  return store;
}

/** The store's `CHOKAQ_SCHEMA_NOT_MIGRATED` with where it happened and the command to fix it. */
function notMigrated(error: unknown, connection: ConnectionOptions): ChokaQError | undefined {
  if (!(error instanceof ChokaQError) || error.code !== 'CHOKAQ_SCHEMA_NOT_MIGRATED')
    return undefined;
  const where = connection.databaseUrl
    ? `PostgreSQL ${hidePassword(connection.databaseUrl)}`
    : `embedded store in ${connection.dataDir}`;
  const target = connection.databaseUrl
    ? `--database-url ${hidePassword(connection.databaseUrl)}`
    : `--data-dir ${connection.dataDir}`;
  const schema = connection.schema === undefined ? '' : ` --schema ${connection.schema}`;
  const what = error.message.replace(/^The /, '').replace(/; nothing was created\.$/, '');
  return new ChokaQError(
    'CHOKAQ_SCHEMA_NOT_MIGRATED',
    `${where}: ${what}; nothing was changed. Run 'chokaq migrate ${target}${schema}' to ` +
      `create or update it, or correct --schema`,
    { field: 'schema', cause: error },
  );
}

/**
 * Operator commands read and change an existing store: an embedded folder that does not exist
 * (or holds no database: PGlite would make one in it) is a mistyped path or a forgotten URL,
 * not a store to create.
 * @throws CliError naming the folder and both ways to choose a store.
 */
export function requireExistingStore(connection: ConnectionOptions): void {
  if (connection.databaseUrl) return;
  const dir = resolve(connection.dataDir);
  if (existsSync(join(dir, 'PG_VERSION'))) return;
  const what = existsSync(dir) ? 'is no embedded store' : 'does not exist';
  throw new CliError(
    `${connection.dataDir} ${what}: pass --database-url URL (or set ` +
      `CHOKAQ_DATABASE_URL) for PostgreSQL, or --data-dir DIR (or CHOKAQ_DATA_DIR) of an ` +
      `existing embedded store ('chokaq migrate --data-dir DIR' creates one)`,
  );
}

/**
 * Commands that create a store (`migrate`, `worker`) take the default folder only when it
 * already exists: run in the wrong directory, or with a forgotten URL, they must not leave a new
 * store behind.
 * @throws CliError saying how to choose a store.
 */
export function requireChosenStore(connection: ConnectionOptions): void {
  if (connection.databaseUrl || connection.dataDirGiven) return;
  if (existsSync(resolve(connection.dataDir))) return;
  throw new CliError(
    `no store chosen: pass --database-url URL (or set CHOKAQ_DATABASE_URL) ` +
      `for PostgreSQL, or --data-dir DIR (or set CHOKAQ_DATA_DIR) for the ` +
      `embedded store; --data-dir ${connection.dataDir} creates the default one`,
  );
}

/** Human description of where the data lives and in which schema, with any password hidden. */
export function describeConnection(connection: ConnectionOptions): string {
  const where = connection.databaseUrl
    ? `PostgreSQL ${hidePassword(connection.databaseUrl)}`
    : `embedded store in ${connection.dataDir}`;
  return `${where}, schema ${connection.schema ?? DEFAULT_SCHEMA}`;
}

/** `url` with the password (in the user part or a `password` parameter) replaced by `***`. */
export function hidePassword(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL (pg also takes other forms): hide whatever sits between `user:` and `@`.
    return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
  }
  if (parsed.password !== '') parsed.password = '***';
  if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
  return parsed.href;
}
