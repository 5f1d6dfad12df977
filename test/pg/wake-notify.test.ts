/**
 * The wake-up statement (notify.sql) on PostgreSQL. Its notification reaches a listening session,
 * and it commits with `synchronous_commit` off for its own transaction only: a NOTIFY gives its
 * transaction an id and a commit record, whose flush guards no data. The pooled connection it
 * ran on must keep the session's own setting for the statements that come after it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERIES } from '../../src/storage/sql/generated.js';
import { TEST_DATABASE_URL, postgresAvailable } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';

const pgUp = await postgresAvailable();

describe.skipIf(!pgUp)('wake-up statement (PostgreSQL)', () => {
  const channel = `wake_notify_test_${process.pid}`;
  let db: pg.Client;
  let listener: pg.Client;

  beforeAll(async () => {
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    listener = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    await listener.connect();
    await listener.query(`LISTEN ${channel}`);
  });

  afterAll(async () => {
    await listener?.end();
    await db?.end();
  });

  const setting = async (): Promise<string | undefined> =>
    (await db.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]
      ?.synchronous_commit;

  it('delivers the notification to a listening session', async () => {
    const heard: string[] = [];
    listener.on('notification', (message) => {
      if (message.channel === channel) heard.push(message.payload ?? '');
    });
    await db.query(QUERIES.notify, [channel, 'emails']);
    expect(await waitFor(() => heard.length > 0, { message: 'the notification' })).toBe(true);
    expect(heard).toEqual(['emails']);
  });

  it('turns synchronous_commit off for its own transaction only', async () => {
    const before = await setting(); // the server's own setting: `on` unless configured otherwise
    await db.query(QUERIES.notify, [channel, 'autocommit']);
    expect(await setting()).toBe(before);
    await db.query('BEGIN');
    await db.query(QUERIES.notify, [channel, 'in a transaction']);
    expect(await setting()).toBe('off');
    await db.query('COMMIT');
    expect(await setting()).toBe(before);
  });
});
