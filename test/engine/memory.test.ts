import { memory } from '../../src/index.js';
import { describeEngine } from './suite.js';

describeEngine('memory', {
  make: () => Promise.resolve(memory()),
  // A closed memory store keeps its data readable, so it can inspect itself.
  reopen: (store) => Promise.resolve(store),
});
