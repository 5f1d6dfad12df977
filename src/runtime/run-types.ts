/**
 * The shapes a run passes between the executor, batch runs, the grace timer and the worker: the
 * executor's dependencies, a pipe handler, and how a run and a handler call ended. Apart from
 * executor.ts so that batch-run.ts and grace-timer.ts, which executor.ts uses, need not import it.
 */
import type { DependencyReader } from './dependency-reader.js';
import type { StepSource } from './steps.js';
import type { BatchReader } from './batch-reader.js';
import type { RunTracer } from '../observability/tracing/spans.js';
import type { JobContext } from '../job/context.js';
import type { JobRegistry } from '../job/registry.js';
import type { RetryPolicy } from '../job/retry.js';
import type { Logger } from '../observability/logging/logger.js';
import type { ClaimedJob } from '../storage/model.js';
import type { Clock } from '../util/clock.js';
import type { ActiveRuns } from './active-runs.js';
import type { Completer } from './completer.js';
import type { ChokaQEvents } from './events.js';
import type { Middleware } from './middleware.js';

/**
 * Pipe mode: one raw handler for every type key, called with the stored type and payload text.
 * What it returns is kept with the archived job, as with {@link JobHandler}.
 */
export type PipeHandler = (type: string, payload: string, ctx: JobContext) => unknown;

/** Dependencies of an {@link Executor}. */
export interface ExecutorOptions {
  registry: JobRegistry;
  pipe: PipeHandler | undefined;
  middleware: readonly Middleware[];
  retry: RetryPolicy;
  /** Default handler time limit in ms. */
  timeoutMs: number;
  /** Per-queue handler time limits in ms; a job type's own timeout wins over them. */
  queueTimeoutsMs: Readonly<Record<string, number>>;
  completer: Completer;
  events: ChokaQEvents;
  logger: Logger;
  clock: Clock;
  /** Registry of runs in progress, shared with the heartbeater, local cancels and shutdown. */
  runs: ActiveRuns;
  /** How long an aborted handler may take to return before it is abandoned, in ms. */
  abortGraceMs: number;
  /** Starts each run's span (none while no OpenTelemetry tracer provider is registered). */
  tracer: RunTracer;
  /** Reads a job's dependencies for `ctx.dependencies()`. */
  dependencies: DependencyReader;
  /** Makes a run's durable steps (`ctx.step`, `ctx.sleep`, `ctx.waitForEvent`). */
  steps: StepSource;
  /** Reads a job's batch for `ctx.batch()`. Default: none (`null`). */
  batch?: BatchReader;
  /**
   * Called when a handler threw `RateLimitedError`, with the wait in ms (blocks the job's rate
   * bucket for every process). Default: none.
   */
  onRateLimited?: (job: ClaimedJob, waitMs: number) => Promise<void>;
}

/** How a run ended, as far as the circuit breaker is concerned. */
export type RunOutcome = 'succeeded' | 'failed' | 'neutral';

/** How a run ended, handed back as soon as the handler is done. */
export interface RunResult {
  outcome: RunOutcome;
  /**
   * Resolves `true` once the run's settlement was written, `false` on a conflict, a failed write
   * or when there was nothing to write. The outcome counts (for the circuit breaker) only then:
   * a success is not a success before its archive commits.
   */
  settled: Promise<boolean>;
}

/** What a finished or abandoned handler call produced. */
export type CallResult = { done: true; error?: unknown; value?: unknown } | { done: false };

/** A handler call that returned `value`. */
export function callReturned(value: unknown): CallResult {
  return { done: true, value };
}

/** A handler call that threw `error` (a throw of nothing still counts as a failure). */
export function callThrew(error: unknown): CallResult {
  return { done: true, error: error ?? new Error('handler threw undefined') };
}
