export { ChokaQ, type EnqueueItem, type EnqueueOptions, type PayloadOf } from './chokaq.js';
export type { ChokaQOptions, QueueSettings } from './config.js';
export { ChokaQError, ERROR_CODES, type ErrorCode } from './errors.js';
export { FatalError, ThrottledError } from './job/errors.js';
export {
  defineJob,
  type JobContext,
  type JobDefinition,
  type JobHandler,
  type JobSpec,
} from './job/define-job.js';
export type { RetryOptions } from './job/retry.js';
export { classifyFailure, type FailureClass } from './job/classify.js';
export {
  FAILURE_REASON_CODE,
  TRANSITIONS,
  type FailureReason,
  type HotState,
  type JobState,
} from './job/state.js';
export type { Middleware } from './runtime/middleware.js';
export type {
  CircuitEvent,
  CircuitPolicy,
  CircuitState,
  CircuitStats,
} from './runtime/circuit-breaker.js';
export {
  idempotency,
  type IdempotencyOptions,
  type IdempotencyOutcome,
} from './idempotency/middleware.js';
export type { PipeHandler } from './runtime/executor.js';
export type { ChokaQEventMap, ChokaQEventName } from './observability/events.js';
export type { EngineCounters } from './observability/counters.js';
export {
  consoleLogger,
  fromPino,
  silentLogger,
  type Logger,
  type LogLevel,
} from './observability/logger.js';
export { memory } from './storage/memory/index.js';
export type * from './storage/contract.js';
export type { Duration } from './util/duration.js';
export { FakeClock, systemClock, type Clock } from './util/clock.js';
export type { WorkerModule } from './cli/worker-module.js';
