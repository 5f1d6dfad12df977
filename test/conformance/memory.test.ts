/**
 * Runs the storage conformance suite (suite.ts: one file per capability of `Store`) on the memory
 * store, a new one per test.
 */
import { memory } from '../../src/storage/memory/index.js';
import { describeStoreConformance } from './suite.js';

describeStoreConformance('memory', {
  make: (clock) => Promise.resolve(memory({ clock })),
});
