/**
 * Retention of the DLQ error-group trend on PostgreSQL: a DLQ purge batch deletes trend hours past
 * the 49 hours move_to_dlq.sql keeps, also of groups that stopped failing (whose hours nothing
 * else would ever delete), and leaves the recent ones. The old hours are written directly, so no
 * test waits two days.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/index.js';
import type { Store } from '../../src/storage/store.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { validateSchema } from '../../src/storage/sql/schema.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';

const pgUp = await postgresAvailable();

describe.skipIf(!pgUp)('retention of error-group trend hours', { timeout: 60_000 }, () => {
  let schema: string;
  let store: Store;
  let admin: pg.Client;

  beforeEach(async () => {
    schema = validateSchema(uniqueSchema('groups'));
    store = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
    await store.open();
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
  });

  afterEach(async () => {
    await store.close();
    await dropSchema(schema);
    await admin.end();
  });

  it('deletes hours past 49 hours in a DLQ batch, whatever the rule, and keeps the rest', async () => {
    await admin.query(
      `INSERT INTO "${schema}".dlq_error_group_hours (fingerprint, hour_start, dead_count)
       SELECT f, date_trunc('hour', now()) - h * interval '1 hour', 1
       FROM unnest(ARRAY['quiet', 'busy']) AS f, generate_series(0, 60) AS h`,
    );
    // Nothing in the DLQ is old enough for a week's rule, yet the stale trend hours go.
    expect(
      await store.retention.purgeBatch({ table: 'dlq', olderThanMs: 7 * 86_400_000 }, 1000),
    ).toBe(0);
    const { rows } = await admin.query<{ fingerprint: string; n: string; oldest: string }>(
      `SELECT fingerprint, count(*) AS n,
              extract(epoch FROM now() - min(hour_start)) / 3600 AS oldest
       FROM "${schema}".dlq_error_group_hours GROUP BY fingerprint ORDER BY fingerprint`,
    );
    expect(rows.map((row) => row.fingerprint)).toEqual(['busy', 'quiet']);
    for (const row of rows) {
      expect(Number(row.n)).toBeGreaterThanOrEqual(49);
      expect(Number(row.n)).toBeLessThanOrEqual(50);
      expect(Number(row.oldest)).toBeLessThan(49);
    }
  });

  it('deletes at most the batch size of old hours per batch', async () => {
    await admin.query(
      `INSERT INTO "${schema}".dlq_error_group_hours (fingerprint, hour_start, dead_count)
       SELECT 'old', now() - interval '3 days' - h * interval '1 hour', 1
       FROM generate_series(1, 30) AS h`,
    );
    await store.retention.purgeBatch({ table: 'dlq', olderThanMs: 1000 }, 10);
    const count = async (): Promise<number> => {
      const { rows } = await admin.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${schema}".dlq_error_group_hours`,
      );
      return Number(rows[0]?.n);
    };
    expect(await count()).toBe(20);
    await store.retention.purgeBatch({ table: 'dlq', olderThanMs: 1000 }, 100);
    expect(await count()).toBe(0);
  });
});
