/**
 * Applies the schema migrations compiled into `generated.ts`. Each pending migration runs in its
 * own transaction together with its ledger row, after a transaction-scoped advisory lock on the
 * schema, so any number of processes may migrate the same database at once.
 */
import { ChokaQError } from '../../errors.js';
import type { Executor } from './executor.js';
import { MIGRATIONS, QUERIES, type Migration } from './generated.js';
import { bindQueries, validateSchema, withSchema, type BoundQueries } from './schema.js';
import * as run from './statements.js';

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /**
   * Report what would run without changing anything.
   * @default false
   */
  dryRun?: boolean;
}

/** A migration that was applied (or, in a dry run, would be), with its SQL bound to the schema. */
export interface MigrationStep {
  readonly version: number;
  readonly name: string;
  /** The script as run, with `:SCHEMA` replaced. */
  readonly sql: string;
}

/** Lets tests and future releases pass their own list; defaults to the compiled migrations. */
export interface MigrationSource {
  readonly migrations: readonly Migration[];
}

/**
 * Brings `schema` up to the newest migration: creates the schema and its ledger when missing,
 * then applies each pending migration in its own transaction. Safe to run from several
 * processes at once: each transaction first takes `pg_advisory_xact_lock` on the schema and
 * re-reads the ledger, so every version is applied exactly once.
 *
 * @returns The migrations applied, in order (empty when up to date). With `dryRun`, the
 *   migrations that would be applied, and nothing is changed.
 * @throws `CHOKAQ_INVALID_CONFIG` for an invalid schema name; `CHOKAQ_MIGRATION_FAILED` when a
 *   migration fails (its transaction is rolled back); `CHOKAQ_STORAGE_UNAVAILABLE` when the
 *   database cannot be reached; `CHOKAQ_STORAGE_ERROR` when the server refuses the ledger steps
 *   (for example no CREATE privilege on the database).
 */
export async function migrate(
  executor: Executor,
  schema: string,
  options: MigrateOptions = {},
  source: MigrationSource = { migrations: MIGRATIONS },
): Promise<MigrationStep[]> {
  validateSchema(schema);
  const ordered = [...source.migrations].sort((a, b) => a.version - b.version);
  const bind = (migration: Migration): MigrationStep => ({
    version: migration.version,
    name: migration.name,
    sql: withSchema(migration.sql, schema),
  });

  const sql = bindQueries(QUERIES, schema);
  if (options.dryRun === true) {
    const applied = await executor.transaction(async (tx) => {
      await run.migrateLock(tx, sql, { schema });
      return appliedVersions(tx, sql, schema, false);
    }, 'migration');
    return ordered.filter((m) => !applied.has(m.version)).map(bind);
  }

  const done: MigrationStep[] = [];
  for (;;) {
    const step = await executor.transaction(async (tx) => {
      await run.migrateLock(tx, sql, { schema });
      const applied = await appliedVersions(tx, sql, schema, true);
      const next = ordered.find((m) => !applied.has(m.version));
      if (next === undefined) return null;
      const bound = bind(next);
      try {
        await tx.run(bound.sql);
        await run.migrateRecord(tx, sql, { version: next.version, name: next.name });
      } catch (error) {
        // An outage stays CHOKAQ_STORAGE_UNAVAILABLE (retryable); a statement the server refused
        // is the migration's failure, with the driver error as its cause.
        const refused = error instanceof ChokaQError && error.code === 'CHOKAQ_STORAGE_ERROR';
        if (error instanceof ChokaQError && !refused) throw error;
        throw new ChokaQError(
          'CHOKAQ_MIGRATION_FAILED',
          `Migration ${next.version} (${next.name}) of schema "${schema}" failed: ${
            error instanceof Error ? error.message : String(error)
          }`,
          { cause: refused ? error.cause : error },
        );
      }
      return bound;
    }, 'migration');
    if (step === null) return done;
    done.push(step);
  }
}

/** Versions in the ledger; creates the schema and ledger first unless `create` is false. */
async function appliedVersions(
  tx: Executor,
  sql: BoundQueries,
  schema: string,
  create: boolean,
): Promise<Set<number>> {
  const [row] = await run.migrateLedgerExists(tx, sql, { schema });
  if (row?.present !== true) {
    if (!create) return new Set();
    // Only when missing: CREATE SCHEMA needs the CREATE privilege even with IF NOT EXISTS.
    await run.migrateCreateSchema(tx, sql);
    await run.migrateCreateLedger(tx, sql);
  }
  const rows = await run.migrateApplied(tx, sql);
  return new Set(rows.map((r) => r.version));
}

/**
 * Checks, reading only, that `schema` has every migration of this release (a newer ledger is
 * fine). Takes no lock and creates nothing, so a read-only tool never changes what it reads.
 *
 * @throws `CHOKAQ_SCHEMA_NOT_MIGRATED` when the schema has no ledger or misses a migration; its
 *   message names the schema, what is missing and the schemas that do hold ChokaQ's tables.
 */
export async function checkMigrated(
  executor: Executor,
  schema: string,
  source: MigrationSource = { migrations: MIGRATIONS },
): Promise<void> {
  // Statements without `:SCHEMA` until the ledger is found: the schema's name is only a value.
  const [row] = await run.migrateLedgerExists(executor, QUERIES, { schema });
  let detail: string;
  if (row?.present === true) {
    const sql = { migrate_applied: withSchema(QUERIES.migrate_applied, schema) };
    const applied = new Set((await run.migrateApplied(executor, sql)).map((r) => r.version));
    const pending = source.migrations
      .map((m) => m.version)
      .filter((version) => !applied.has(version))
      .sort((a, b) => a - b);
    if (pending.length === 0) return;
    detail = `schema "${schema}" misses migration${pending.length === 1 ? '' : 's'} ${pending.join(', ')}`;
  } else {
    const found = await run.migrateLedgerSchemas(executor, QUERIES);
    const others = found.map((r) => r.schema).filter((name) => name !== schema);
    detail =
      `schema "${schema}" has no ChokaQ tables` +
      (others.length === 0
        ? ' (no schema here has them)'
        : ` (schemas with ChokaQ tables: ${others.join(', ')})`);
  }
  throw new ChokaQError('CHOKAQ_SCHEMA_NOT_MIGRATED', `The ${detail}; nothing was created.`, {
    field: 'schema',
  });
}
