import { parseArgs } from 'node:util';
import { connectionFrom, describeConnection } from '../connection.js';
import type { CliIo } from '../io.js';

/** Usage text of `chokaq migrate`. */
export const MIGRATE_USAGE = `chokaq migrate [--dry-run] [--database-url URL | --data-dir DIR] [--schema NAME]

Applies pending schema migrations (safe while other processes migrate too).
  --dry-run   print the SQL of pending migrations; change nothing`;

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
  const dryRun = values['dry-run'] ?? false;
  const options = { schema: connection.schema ?? 'chokaq', dryRun };
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
    `${describeConnection(connection)}: ${result.length === 0 ? 'up to date' : `applied ${result.map((m) => m.version).join(', ')}`}\n`,
  );
  return 0;
}
