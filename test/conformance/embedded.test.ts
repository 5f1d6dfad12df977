/**
 * Runs the storage conformance suite (suite.ts: one file per capability of `Store`) on the
 * embedded store: one PGlite for the file, a schema per test.
 */
import { PGlite } from '@electric-sql/pglite';
import { embedded } from '../../src/storage/embedded/index.js';
import type { Store } from '../../src/storage/store.js';
import { uniqueSchema } from '../helpers/pg.js';
import { describeStoreConformance } from './suite.js';

// One PGlite per file (starting one costs seconds and hundreds of MB); one schema per test.
let pglite: PGlite | undefined;
const schemas = new WeakMap<Store, string>();

function shared(): PGlite {
  if (!pglite) throw new Error('PGlite was not started');
  return pglite;
}

describeStoreConformance('embedded', {
  async setup() {
    pglite = new PGlite();
    await pglite.waitReady;
  },
  async teardown() {
    await pglite?.close();
    pglite = undefined;
  },
  make(clock) {
    const schema = uniqueSchema('conf');
    const store = embedded({ dataDir: 'memory://', schema, pglite: shared(), clock });
    schemas.set(store, schema);
    return Promise.resolve(store);
  },
  async cleanup(store) {
    const schema = schemas.get(store);
    if (schema) await shared().exec(`drop schema if exists "${schema}" cascade`);
  },
});
