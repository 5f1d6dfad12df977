// Types of scripts/dump-schema.mjs, for test/pg/schema.test.ts.
import type pg from 'pg';

/** Absolute path of the committed snapshot, test/pg/schema.snapshot.sql. */
export declare const SNAPSHOT_FILE: string;

/**
 * Migrates the new schema `schema` with `migrate`, renders it with {@link renderSchema} and drops
 * it again, also when migrating or rendering fails.
 */
export declare function dumpFreshSchema(options: {
  connectionString: string;
  schema: string;
  migrate: (options: { connectionString: string; schema: string }) => Promise<unknown>;
}): Promise<string>;

/** The canonical dump of `schema`, every occurrence of its name replaced by `:SCHEMA`. */
export declare function renderSchema(client: pg.Client, schema: string): Promise<string>;
