/** A schema migrated by the PostgreSQL store, for tests that fill its tables and plan statements. */
import pg from 'pg';
import { silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema } from './pg.js';

/** Migrates `schema` with the PostgreSQL store; returns a connected client for the test's own SQL. */
export async function openMigratedSchema(schema: string): Promise<pg.Client> {
  const store = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
  await store.open();
  await store.close();
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  return client;
}

/** Ends `client` (if it was opened) and drops `schema`, even when ending the client fails. */
export async function closeMigratedSchema(
  client: pg.Client | undefined,
  schema: string,
): Promise<void> {
  try {
    await client?.end();
  } finally {
    await dropSchema(schema);
  }
}
