import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll } from 'vitest';
import { embedded } from '../../src/storage/embedded/index.js';
import { uniqueSchema } from '../helpers/pg.js';
import { describeDeckApi } from './api.js';
import { describeLiveControlsApi } from './api-live.js';
import { describeTriageApi } from './api-triage.js';
import { describeDeckTruth } from './api-truth.js';

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
describeTriageApi('embedded', () =>
  Promise.resolve({
    storage: embedded({ dataDir: 'memory://', schema: uniqueSchema('triage'), pglite }),
    cleanup: () => Promise.resolve(),
  }),
);

describeDeckTruth('embedded', () =>
  Promise.resolve({
    storage: embedded({ dataDir: 'memory://', schema: uniqueSchema('deckt'), pglite }),
    cleanup: () => Promise.resolve(),
  }),
);

describeLiveControlsApi('embedded', () =>
  Promise.resolve({
    storage: embedded({ dataDir: 'memory://', schema: uniqueSchema('live'), pglite }),
    cleanup: () => Promise.resolve(),
  }),
);
