/**
 * The LISTEN connection listens only on a server session of its own, and it knows one however it
 * reached the server: over TCP and over a Unix socket (where the server sees no client address).
 * Behind a transaction-mode pooler it listens on nothing: test/pg/pgbouncer.test.ts.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgListener } from '../../src/storage/postgres/listener.js';
import type { Logger } from '../../src/index.js';
import { TEST_DATABASE_URL, postgresAvailable } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';

const pgUp = await postgresAvailable();

/** The server's first Unix socket directory, or `null` when it has none. */
async function socketDirectory(db: pg.Client): Promise<string | null> {
  const { rows } = await db.query<{ dirs: string }>(
    "SELECT current_setting('unix_socket_directories') AS dirs",
  );
  const first = rows[0]?.dirs.split(',')[0]?.trim();
  return first === undefined || first === '' ? null : first;
}

describe.skipIf(!pgUp)('LISTEN connection (PostgreSQL)', () => {
  let db: pg.Client;
  let socketDir: string | null = null;
  const warnings: string[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => warnings.push(message),
    error: (message) => warnings.push(message),
    child: () => logger,
  };

  beforeAll(async () => {
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    socketDir = await socketDirectory(db);
  });

  afterAll(async () => {
    await db?.end();
  });

  /** Listens through `client` settings and checks a notification from another session arrives. */
  async function hears(client: pg.ClientConfig): Promise<void> {
    const channel = `listener_session_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const listener = new PgListener({ client, logger });
    const heard: string[] = [];
    try {
      await listener.add(channel, (payload) => heard.push(payload));
      const listening = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity a
         WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
           AND a.query LIKE 'LISTEN "${channel}"'`,
      );
      expect(listening.rows[0]?.n).toBe(1);
      await db.query('SELECT pg_notify($1, $2)', [channel, 'hello']);
      await waitFor(() => heard.length > 0, { message: 'the notification' });
      expect(heard).toEqual(['hello']);
    } finally {
      await listener.stop();
    }
    expect(warnings).toEqual([]);
  }

  it('listens on a direct TCP session', async () => {
    await hears({ connectionString: TEST_DATABASE_URL });
  });

  it('listens on a Unix-socket session, where the server sees no client address', async (ctx) => {
    if (socketDir === null) ctx.skip();
    const url = new URL(TEST_DATABASE_URL);
    await hears({
      host: socketDir ?? undefined,
      user: decodeURIComponent(url.username) || undefined,
      database: url.pathname.slice(1) || undefined,
    });
  });
});
