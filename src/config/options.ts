/**
 * The options of `new ChokaQ(options)`, composed from the engine's own and each feature's: the
 * shapes, defaults and bounds of a feature's options live beside it (`RetryOptions` in
 * job/retry.ts, `Schedule` in schedule/, `HealthOptions` in observability/health/,
 * `TelemetryOptions` in observability/, `RetentionOptions` and the worker's defaults in
 * runtime/, the `maxWorkers` bounds in operator/queues-api.ts). `resolve.ts` checks them once and
 * turns them into the runtime's settings.
 */
import type { CircuitPolicy } from '../job/circuit-policy.js';
import type { AnyJobDefinition } from '../job/registry.js';
import type { RetryOptions } from '../job/retry.js';
import type { Logger } from '../observability/logging/logger.js';
import type { PipeHandler } from '../runtime/run-types.js';
import type { Middleware } from '../runtime/middleware.js';
import type { Schedule } from '../schedule/definition.js';
import type { Store } from '../storage/store.js';
import type { Clock } from '../util/clock.js';
import type { Duration } from '../util/duration.js';
import type { HealthOptions } from '../observability/health/options.js';
import type { QueueRetention, RetentionOptions } from '../runtime/retention-options.js';
import type { TelemetryOptions } from '../observability/options.js';

/** Per-queue settings applied when ChokaQ starts. */
export interface QueueSettings {
  /**
   * Cap on this queue's running + prefetched jobs across all processes (1–1,000,000); `null`
   * removes it. Default: unchanged.
   */
  maxWorkers?: number | null;
  /**
   * Handler time limit for jobs of this queue (a job type's own `timeout` wins); 1 ms to 24.8 days.
   * Default: the ChokaQ `timeout`.
   */
  timeout?: Duration;
  /**
   * Heartbeat age after which a running job of this queue is a zombie (applied at start); whole
   * seconds, more than `heartbeatInterval`. Default: `zombieTimeout`.
   */
  zombieTimeout?: Duration;
  /**
   * Whether this queue's succeeded jobs get archive rows (applied at start, for every process):
   * `false` deletes a succeeded job once it is counted, for high-volume queues whose history
   * nobody reads; lifetime counters, metric buckets, metrics and the DLQ stay exact. Default:
   * unchanged (a new queue keeps them).
   */
  keepSucceeded?: boolean;
  /** `chokaq_queue_saturation` is degraded past this lag of the queue. Default: `health.lagDegraded`. */
  lagDegraded?: Duration;
  /** … and unhealthy past this one. Default: `health.lagUnhealthy`. */
  lagUnhealthy?: Duration;
  /** How long this queue's succeeded and dead jobs are kept. Default: `retention.archive` / `dlq`. */
  retention?: QueueRetention;
}

/** Options of `new ChokaQ(options)`. Unknown option names are an error. */
export interface ChokaQOptions {
  /** Where jobs live: `memory()`, `embedded()` from `chokaq/embedded`, or `postgres()` from `chokaq/postgres`. */
  storage: Store;
  /** Typed job definitions (bus mode). Default: none. */
  jobs?: readonly AnyJobDefinition[];
  /** One raw handler for every type key without a definition (pipe mode). Default: none. */
  pipe?: PipeHandler;
  /** Middleware around every run, outermost first. Default: none. */
  middleware?: readonly Middleware[];
  /** Per-queue settings, keyed by queue name. Default: none. */
  queues?: Readonly<Record<string, QueueSettings>>;
  /** Queues this process works on (up to 1,000 names). Default: all queues. */
  workerQueues?: readonly string[];
  /** Whether `start()` runs workers; `false` makes an enqueue-only client. Default: `true`. */
  worker?: boolean;
  /** Jobs run at once in this process (1–10,000); change later with `setConcurrency`. Default: `10`. */
  concurrency?: number;
  /**
   * Jobs claimed ahead of free slots (the worker's local queue), so a freed slot starts the next
   * job without waiting for a claim: 0–10,000, or `'auto'`: as many as this process finishes in
   * about 100 ms at its recent rate, at most 500 (short jobs are claimed hundreds at a time, long
   * ones only for the free slots). Claimed jobs cost no write of their own: a run's start is
   * recorded with the next settle round. Default: `'auto'`.
   */
  prefetch?: number | 'auto';
  /**
   * Idle poll interval, 1 ms to 24.8 days (wake-ups usually come sooner through notifications).
   * Default: `'1s'`.
   */
  pollInterval?: Duration;
  /** Default handler time limit, 1 ms to 24.8 days. Default: `'15m'`. */
  timeout?: Duration;
  /** Default retry settings for every job type. Default: see {@link RetryOptions}. */
  retry?: RetryOptions;
  /**
   * How long `stop()` waits for running handlers before aborting their signals, 0 to 24.8 days.
   * Default: `'30s'`.
   */
  shutdownGracePeriod?: Duration;
  /**
   * How long a handler whose signal was aborted (timeout, cancel, failing heartbeats) may take to
   * return before ChokaQ abandons it and finalises the job, 0 to 24.8 days. Default: `'5s'`.
   */
  abortGracePeriod?: Duration;
  /**
   * Mean interval of the running jobs' heartbeat (±20 % jitter), 1 ms to 24.8 days, less than
   * every zombie timeout. Default: `'10s'`.
   */
  heartbeatInterval?: Duration;
  /** Consecutive failed heartbeat writes before a run counts as degraded (1–1,000,000). Default: `10`. */
  heartbeatFailureThreshold?: number;
  /** Abort a run whose heartbeats keep failing (DLQ `HeartbeatFailure`) instead of warning. Default: `false`. */
  cancelOnHeartbeatFailure?: boolean;
  /**
   * Default circuit breaker of every job type (a type's own `circuit` wins); `false` turns circuit
   * breakers off. Default: `{}` (5 failures within 60 s open it for 30 s, then 1 probe).
   */
  circuitBreaker?: CircuitPolicy | false;
  /** Delay of a claimed job whose circuit is open (no attempt used); more than 0. Default: `'5s'`. */
  circuitBreakerDelay?: Duration;
  /** Mean interval of the recovery loop (±20 % jitter), 1 ms to 24.8 days. Default: `'1m'`. */
  rescueInterval?: Duration;
  /** A claimed job not started for this long goes back to pending; more than 0. Default: `'10m'`. */
  fetchedTimeout?: Duration;
  /**
   * A running job whose heartbeat is older than this is a zombie (per queue:
   * `queues.<name>.zombieTimeout`); whole seconds, more than `heartbeatInterval`. Default: `'10m'`.
   */
  zombieTimeout?: Duration;
  /** Largest serialized payload accepted by enqueue, in UTF-8 bytes (1 to 100,000,000). Default: `1_000_000`. */
  maxPayloadBytes?: number;
  /** Identity stamped on claimed jobs (1–100 characters). Default: `<hostname>-<pid>-<4 hex>`. */
  workerId?: string;
  /** Where ChokaQ logs; also handed to the storage provider. Default: `consoleLogger()` at level `info`. */
  logger?: Logger;
  /** Time source and timers for durations, retries, polls and heartbeats. Default: the system clock. */
  clock?: Clock;
  /** Metrics on or off, and the OpenTelemetry providers to use. Default: metrics on, global providers. */
  telemetry?: TelemetryOptions;
  /** When the health checks turn degraded or unhealthy (`chokaq.health`). */
  health?: HealthOptions;
  /**
   * Events across processes (`cluster:activity`, and other processes' `queue:updated` and
   * `operator:action`): this process's activity is sent through the store once per `interval`
   * (10 ms – 1 minute). `false` turns them off. Default: on, `{ interval: '250ms' }`.
   */
  clusterEvents?: false | { interval?: Duration };
  /**
   * How long finished and dead jobs, metric buckets, audit entries and bulk actions are kept, and
   * how the background purge runs; `false` turns the purge off. Default: see {@link RetentionOptions}.
   */
  retention?: RetentionOptions | false;
  /**
   * Recurring jobs (up to 1,000), saved in the store at `start()` so every process sees them;
   * each tick enqueues one job across all processes (docs/recurring-jobs.md). Manage them at run
   * time with `chokaq.schedules`. Default: none.
   */
  schedules?: readonly Schedule[];
}
