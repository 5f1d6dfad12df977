import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll } from 'vitest';
import { embedded } from '../../src/storage/embedded/index.js';
import { uniqueSchema } from '../helpers/pg.js';
import { describeDeckApi } from './api.js';

// One PGlite for the file (starting one costs seconds); a fresh schema per test.
let pglite: PGlite;
beforeAll(async () => {
  pglite = new PGlite();
  await pglite.waitReady;
});
afterAll(async () => {
  await pglite.close();
});

describeDeckApi('embedded', () =>
  Promise.resolve({
    storage: embedded({ dataDir: 'memory://', schema: uniqueSchema('deck'), pglite }),
    cleanup: () => Promise.resolve(),
  }),
);
