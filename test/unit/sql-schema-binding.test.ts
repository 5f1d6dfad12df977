import { describe, expect, it } from 'vitest';
import { wakeChannel, withSchema } from '../../src/storage/sql/schema.js';

describe('withSchema', () => {
  it('puts the quoted schema and its wake-up channel, as a string literal, into a statement', () => {
    const sql = 'SELECT pg_notify(:WAKE_CHANNEL, q) FROM :SCHEMA.queues, :SCHEMA.jobs_hot';
    expect(withSchema(sql, 'shop_jobs')).toBe(
      `SELECT pg_notify('chokaq_shop_jobs', q) FROM "shop_jobs".queues, "shop_jobs".jobs_hot`,
    );
    expect(wakeChannel('shop_jobs')).toBe('chokaq_shop_jobs');
  });

  it('refuses a schema name that could leave the identifier or the literal', () => {
    for (const schema of ["a'b", 'a"b', 'A b', 'pg_catalog', '1st']) {
      expect(() => withSchema(':SCHEMA :WAKE_CHANNEL', schema)).toThrow(/schema/);
    }
  });
});
