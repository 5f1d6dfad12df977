/**
 * `chokaq/testing`: helpers for testing code that uses ChokaQ, on the memory store with an
 * optional fake clock.
 */
export { memory } from '../storage/memory/index.js';
export { FakeClock } from '../util/clock.js';
export { drain, type DrainOptions } from './drain.js';
