import { DEFAULT_SCHEMA } from '../../storage/sql/schema.js';
import { connectionFrom, describeConnection, requireChosenStore } from '../connection.js';
import type { CliIo } from '../io.js';
import { parseFlags } from '../args.js';

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
  const { values } = parseFlags({
    args,
    options: {
      'dry-run': { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      schema: { type: 'string' },
    },
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
