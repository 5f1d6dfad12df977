import { memory } from '../../src/index.js';
import { describeDeckApi } from './api.js';

describeDeckApi('memory', () =>
  Promise.resolve({ storage: memory(), cleanup: () => Promise.resolve() }),
);
