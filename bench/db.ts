/** PostgreSQL helpers of the bench: the database it runs in, and short-lived admin queries. */
import pg from 'pg';

/** Creates the database named in `url` when it does not exist yet (connecting to `postgres`). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (name === '') throw new Error(`the database URL names no database: ${url}`);
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
  } catch (error) {
    // Another bench created it meanwhile.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
}

/** Quotes an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A small pool for the harness's own queries (resets, seeding, checks). */
export function adminPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Writes out what earlier runs left dirty (`CHECKPOINT`), so a run does not pay for the writes of
 * the runs before it. Resolves to `false` when the role may not (PostgreSQL 15: superusers and
 * members of `pg_checkpoint`).
 */
export async function checkpoint(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CHECKPOINT');
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '42501') return false;
    throw error;
  } finally {
    await client.end();
  }
}

/** Drops a schema and everything in it. */
export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
}

/** `count(*)` of a query, as a number. */
export async function count(
  pool: { query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }> },
  sql: string,
  params: unknown[] = [],
): Promise<number> {
  const { rows } = await pool.query(sql, params);
  const row = rows[0] as Record<string, unknown> | undefined;
  return Number(row === undefined ? 0 : Object.values(row)[0]);
}

/** The server's version string and key settings, for the report. */
export async function serverInfo(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings
       WHERE name IN ('server_version', 'shared_buffers', 'synchronous_commit', 'max_connections',
                      'fsync', 'wal_level')`,
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  } finally {
    await client.end();
  }
}
