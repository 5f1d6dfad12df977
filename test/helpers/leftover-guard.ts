/**
 * Vitest global setup: fails the run when a test left a schema or database behind in the shared
 * test PostgreSQL. Each run gets a tag that every name from `uniqueSchema`/`uniqueDatabase`
 * carries, so only this run's objects count (other runs may share the database at the same
 * time). Leftovers are named, dropped, and the run fails. Without a reachable PostgreSQL there
 * is nothing to check.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { TEST_DATABASE_URL } from './pg.js';
import { RUN_TAG_KEY, madeInRun } from './run-tag.js';

/** A new run tag: 6 characters of [a-z0-9]. */
function newTag(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(6)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

/** Connects to the test PostgreSQL, or resolves `undefined` when it does not answer. */
async function connect(): Promise<pg.Client | undefined> {
  const client = new pg.Client({
    connectionString: TEST_DATABASE_URL,
    connectionTimeoutMillis: 3000,
  });
  try {
    await client.connect();
    return client;
  } catch {
    await client.end().catch(() => undefined);
    return undefined;
  }
}

/** This run's leftover schemas and databases (as `schema name` / `database name`), dropped. */
async function dropLeftovers(tag: string): Promise<string[]> {
  const client = await connect();
  if (!client) return [];
  try {
    const schemas = (
      await client.query<{ name: string }>(
        `select nspname as name from pg_namespace where nspname like 'chokaq\\_%'`,
      )
    ).rows
      .map((row) => row.name)
      .filter((name) => madeInRun(name, tag));
    const databases = (
      await client.query<{ name: string }>(
        `select datname as name from pg_database where datname like 'chokaq\\_%'`,
      )
    ).rows
      .map((row) => row.name)
      .filter((name) => madeInRun(name, tag));
    for (const schema of schemas) await client.query(`drop schema if exists "${schema}" cascade`);
    for (const database of databases) {
      await client.query(`drop database if exists "${database}" with (force)`);
    }
    return [
      ...schemas.map((name) => `schema ${name}`),
      ...databases.map((name) => `database ${name}`),
    ];
  } finally {
    await client.end();
  }
}

/**
 * Provides the run tag. The returned teardown fails the run (exit code 1) when leftovers were
 * found; vitest only logs an error thrown from a teardown, so it sets the exit code itself.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const tag = newTag();
  project.provide(RUN_TAG_KEY, tag);
  return async () => {
    const leftovers = await dropLeftovers(tag);
    if (leftovers.length === 0) return;
    console.error(
      `\n!!! LEFTOVERS: tests left ${leftovers.join(', ')} behind in ${TEST_DATABASE_URL}; ` +
        `dropped now, but a test's cleanup is missing\n`,
    );
    process.exitCode = 1;
  };
}
