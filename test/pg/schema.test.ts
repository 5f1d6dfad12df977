/**
 * The schema every migration together produces must match the committed
 * test/pg/schema.snapshot.sql, so a DDL change is always seen (and reviewed) as a diff of that
 * file. The dump is rendered by scripts/dump-schema.mjs, the same code `npm run schema:dump`
 * runs; here it migrates with the sources instead of dist/.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { dumpFreshSchema, SNAPSHOT_FILE } from '../../scripts/dump-schema.mjs';
import { migrate } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, postgresAvailable, uniqueSchema } from '../helpers/pg.js';

const available = await postgresAvailable();

describe.skipIf(!available)('schema snapshot', () => {
  it('a freshly migrated schema matches test/pg/schema.snapshot.sql', async () => {
    const schema = uniqueSchema('snapshot');
    const dump = await dumpFreshSchema({ connectionString: TEST_DATABASE_URL, schema, migrate });

    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const left = await client.query('select 1 from pg_namespace where nspname = $1', [schema]);
      expect(left.rowCount, `the dump must drop its schema ${schema}`).toBe(0);
    } finally {
      await client.end();
    }
    expect(dump, 'the schema changed: run `npm run schema:dump` and review the diff').toBe(
      readFileSync(SNAPSHOT_FILE, 'utf8'),
    );
  });
});
