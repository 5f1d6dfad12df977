import { memory } from '../../src/storage/memory/index.js';
import { describeStoreConformance } from './suite.js';

describeStoreConformance('memory', {
  make: () => Promise.resolve(memory()),
});
