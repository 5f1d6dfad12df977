import type { Logger } from '../observability/logger.js';
import type { Store } from '../storage/store.js';

/** Where a command's jobs live: PostgreSQL when a URL is given, else the embedded store. */
export interface ConnectionOptions {
  /** `--database-url`, else `CHOKAQ_DATABASE_URL`. */
  databaseUrl: string | undefined;
  /** `--data-dir`, else `CHOKAQ_DATA_DIR`, else `./.chokaq`. */
  dataDir: string;
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
  return {
    databaseUrl: values['database-url'] ?? env.CHOKAQ_DATABASE_URL,
    dataDir: values['data-dir'] ?? env.CHOKAQ_DATA_DIR ?? './.chokaq',
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

/** Human description of where the data lives, with any password hidden. */
export function describeConnection(connection: ConnectionOptions): string {
  if (!connection.databaseUrl) return `embedded store in ${connection.dataDir}`;
  return `PostgreSQL ${connection.databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')}`;
}
