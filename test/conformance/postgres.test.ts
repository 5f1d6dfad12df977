/**
 * Runs the storage conformance suite (suite.ts: one file per capability of `Store`) on the
 * PostgreSQL store at `CHOKAQ_TEST_DATABASE_URL`, a schema per test; skipped when it is
 * unreachable, except under `CI=true`, where that fails.
 */
import { postgres } from '../../src/storage/postgres/index.js';
import type { Store } from '../../src/storage/store.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { describeStoreConformance } from './suite.js';

// A fresh schema per test, dropped afterwards.
const schemas = new WeakMap<Store, string>();

describeStoreConformance('postgres', {
  available: postgresAvailable,
  make(clock) {
    const schema = uniqueSchema('conf');
    const store = postgres({ connectionString: TEST_DATABASE_URL, schema, clock });
    schemas.set(store, schema);
    return Promise.resolve(store);
  },
  async cleanup(store) {
    const schema = schemas.get(store);
    if (schema) await dropSchema(schema);
  },
});
