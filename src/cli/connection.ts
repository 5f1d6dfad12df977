import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from '../observability/logger.js';
import type { Store } from '../storage/store.js';
// The options module only, not the provider: PGlite is loaded when a command needs it.
import { DEFAULT_DATA_DIR } from '../storage/embedded/options.js';
import { DEFAULT_SCHEMA } from '../storage/sql/schema.js';
import { CliError } from './io.js';

/** Where a command's jobs live: PostgreSQL when a URL is given, else the embedded store. */
export interface ConnectionOptions {
  /** `--database-url`, else `CHOKAQ_DATABASE_URL`. */
  databaseUrl: string | undefined;
  /** `--data-dir`, else `CHOKAQ_DATA_DIR`, else {@link DEFAULT_DATA_DIR}. */
  dataDir: string;
  /** Whether `dataDir` came from `--data-dir` or `CHOKAQ_DATA_DIR` rather than the default. */
  dataDirGiven: boolean;
  /** `--schema`. Default: `chokaq`. */
  schema: string | undefined;
}

/** Reads connection flags, falling back to the environment. */
export function connectionFrom(
  values: {
    'database-url'?: string | undefined;
    'data-dir'?: string | undefined;
    schema?: string | undefined;
  },
  env: Readonly<Record<string, string | undefined>>,
): ConnectionOptions {
  const dataDir = values['data-dir'] ?? env.CHOKAQ_DATA_DIR;
  return {
    databaseUrl: values['database-url'] ?? env.CHOKAQ_DATABASE_URL,
    dataDir: dataDir ?? DEFAULT_DATA_DIR,
    dataDirGiven: dataDir !== undefined,
    schema: values.schema,
  };
}

/** Opens the store a connection points at (loading only the provider it needs). */
export async function openStore(connection: ConnectionOptions, logger: Logger): Promise<Store> {
  const schema = connection.schema === undefined ? {} : { schema: connection.schema };
  if (connection.databaseUrl) {
    const { postgres } = await import('../storage/postgres/index.js');
    return postgres({ connectionString: connection.databaseUrl, logger, ...schema });
  }
  const { embedded } = await import('../storage/embedded/index.js');
  return embedded({ dataDir: connection.dataDir, logger, ...schema });
}

/**
 * Operator commands read and change an existing store: an embedded folder that does not exist
 * is a mistyped path or a forgotten URL, not a store to create.
 * @throws CliError naming the folder and both ways to choose a store.
 */
export function requireExistingStore(connection: ConnectionOptions): void {
  if (connection.databaseUrl || existsSync(resolve(connection.dataDir))) return;
  throw new CliError(
    `no embedded store in ${connection.dataDir}: pass --database-url URL (or set ` +
      `CHOKAQ_DATABASE_URL) for PostgreSQL, or --data-dir DIR (or CHOKAQ_DATA_DIR) of an existing store`,
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
