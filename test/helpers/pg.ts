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

/** Drops a schema created by a test. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
