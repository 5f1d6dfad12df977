import pg from 'pg';
import { inject } from 'vitest';
import { RUN_TAG_KEY } from './run-tag.js';

/** Connection string of the PostgreSQL used by tests. */
export const TEST_DATABASE_URL =
  process.env.CHOKAQ_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let reachable: boolean | undefined;

/**
 * Whether the test PostgreSQL answers. Under `CI=true` an unreachable server is an error; locally
 * the PostgreSQL suites are skipped with one loud line.
 */
export async function postgresAvailable(): Promise<boolean> {
  if (reachable !== undefined) return reachable;
  const client = new pg.Client({
    connectionString: TEST_DATABASE_URL,
    connectionTimeoutMillis: 3000,
  });
  try {
    await client.connect();
    await client.query('select 1');
    reachable = true;
  } catch (error) {
    if (process.env.CI === 'true') {
      throw new Error(`PostgreSQL at ${TEST_DATABASE_URL} is unreachable under CI=true`, {
        cause: error,
      });
    }
    console.warn(`\n!!! SKIPPING PostgreSQL tests: ${TEST_DATABASE_URL} is unreachable\n`);
    reachable = false;
  } finally {
    await client.end().catch(() => undefined);
  }
  return reachable;
}

/**
 * A fresh `chokaq_…` name, unique across parallel runs. It carries the run's tag (see
 * test/helpers/leftover-guard.ts), so the guard can tell this run's leftovers from other runs'
 * objects in the shared database; outside that setup the tag is `untagged`.
 */
function uniqueName(prefix: string): string {
  const tag = inject(RUN_TAG_KEY) ?? 'untagged';
  return `chokaq_${prefix}_${tag}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** A fresh schema name for one test file or test; drop it with {@link dropSchema}. */
export function uniqueSchema(prefix = 't'): string {
  return uniqueName(prefix);
}

/** A fresh database name for one test file; the test drops the database itself. */
export function uniqueDatabase(prefix: string): string {
  return uniqueName(prefix);
}

/** Tries of one schema's drop when the server's lock table is full. */
const DROP_TRIES = 8;

/**
 * Drops schemas created by a test, one after another over one connection. A cascading drop
 * takes a lock per object (~150 for a migrated schema), so a file's hundred schemas dropped at
 * once would fill the server's shared lock table (`max_locks_per_transaction` × connections) and
 * fail with "out of shared memory" (53200). Other test files may still drop theirs at the same
 * moment: a drop refused so is tried again after a pause.
 */
export async function dropSchemas(schemas: readonly string[]): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    for (const schema of schemas) await dropOne(client, schema);
  } finally {
    await client.end();
  }
}

/** Drops one schema created by a test (see {@link dropSchemas}). */
export async function dropSchema(schema: string): Promise<void> {
  await dropSchemas([schema]);
}

async function dropOne(client: pg.Client, schema: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.query(`drop schema if exists "${schema}" cascade`);
      return;
    } catch (error) {
      const full = (error as { code?: unknown }).code === '53200';
      if (!full || attempt === DROP_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
  }
}
