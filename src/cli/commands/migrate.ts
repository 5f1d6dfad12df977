import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SCHEMA } from '../../storage/sql/schema.js';
import { connectionFrom, describeConnection, type ConnectionOptions } from '../connection.js';
import { CliError, type CliIo } from '../io.js';

/** Usage text of `chokaq migrate`. */
export const MIGRATE_USAGE = `chokaq migrate [--dry-run] (--database-url URL | --data-dir DIR) [--schema NAME]

Applies pending schema migrations (safe while other processes migrate too). The store it
targets is printed first, on stderr.
  --database-url URL   PostgreSQL (default: CHOKAQ_DATABASE_URL)
  --data-dir DIR       embedded store folder, created if missing (default: CHOKAQ_DATA_DIR;
                       ./.chokaq only when it already exists)
  --schema NAME        schema holding ChokaQ's tables (default: chokaq)
  --dry-run            print the SQL of pending migrations; change nothing`;

/** `chokaq migrate`: applies or prints pending migrations. Resolves to the exit code. */
export async function migrateCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'dry-run': { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      schema: { type: 'string' },
    },
    strict: true,
  });
  const connection = connectionFrom(values, io.env);
  requireChosenStore(connection);
  const dryRun = values['dry-run'] ?? false;
  io.stderr.write(
    `chokaq migrate: ${describeConnection(connection)}${dryRun ? ' (dry run: nothing is changed)' : ''}\n`,
  );
  const options = { schema: connection.schema ?? DEFAULT_SCHEMA, dryRun };
  const result = connection.databaseUrl
    ? await (
        await import('../../storage/postgres/index.js')
      ).migrate({ connectionString: connection.databaseUrl, ...options })
    : await (
        await import('../../storage/embedded/index.js')
      ).migrate({ dataDir: connection.dataDir, ...options });
  if (dryRun) {
    if (result.length === 0) io.stdout.write('-- schema is up to date; nothing to apply\n');
    for (const migration of result)
      io.stdout.write(`-- migration ${migration.version}: ${migration.name}\n${migration.sql}\n`);
    return 0;
  }
  io.stderr.write(
    result.length === 0 ? 'up to date\n' : `applied ${result.map((m) => m.version).join(', ')}\n`,
  );
  return 0;
}

/**
 * Migrating creates the embedded folder, so the default one is only used when it already exists:
 * a migrate run in the wrong directory (or with a forgotten URL) must not leave a new store behind.
 */
function requireChosenStore(connection: ConnectionOptions): void {
  if (connection.databaseUrl || connection.dataDirGiven) return;
  if (existsSync(resolve(connection.dataDir))) return;
  throw new CliError(
    `no store chosen: pass --database-url URL (or set CHOKAQ_DATABASE_URL) for PostgreSQL, ` +
      `or --data-dir DIR (or set CHOKAQ_DATA_DIR) for the embedded store; ` +
      `--data-dir ${connection.dataDir} creates the default one`,
  );
}
