/**
 * `chokaq/testing`: helpers for testing code that uses ChokaQ, on the memory store with an
 * optional fake clock.
 */
export { memory } from '../storage/memory/index.js';
export { FakeClock } from '../util/clock.js';
export { drain, type DrainOptions } from './drain.js';
export { assertEnqueued } from './assert-enqueued.js';
export { performJob, type PerformedJob, type PerformJobOptions } from './perform-job.js';
export { waitForJob, type JobInState, type WaitForJobOptions } from './wait-for-job.js';
