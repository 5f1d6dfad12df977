import { memory } from '../../src/index.js';
import { describeDeckApi } from './api.js';
import { describeLiveControlsApi } from './api-live.js';
import { describeTriageApi } from './api-triage.js';
import { describeDeckTruth } from './api-truth.js';

describeDeckApi('memory', () =>
  Promise.resolve({ storage: memory(), cleanup: () => Promise.resolve() }),
);

describeTriageApi('memory', () =>
  Promise.resolve({ storage: memory(), cleanup: () => Promise.resolve() }),
);

describeDeckTruth('memory', () =>
  Promise.resolve({ storage: memory(), cleanup: () => Promise.resolve() }),
);

describeLiveControlsApi('memory', () =>
  Promise.resolve({ storage: memory(), cleanup: () => Promise.resolve() }),
);
