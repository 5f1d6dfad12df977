import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { CircuitPolicy } from '../job/circuit-policy.js';
import type { AnyJobDefinition } from '../job/registry.js';
import type { RetryPolicy } from '../job/retry.js';
import type { Logger } from '../observability/logging/logger.js';
import type { RetentionTable } from '../storage/retention.js';
import type { Store } from '../storage/store.js';
import type { Clock } from '../util/clock.js';
import type { PipeHandler } from './run-types.js';
import type { Middleware } from './middleware.js';

/** The `telemetry` option checked, with defaults applied. */
export interface TelemetrySettings {
  metrics: boolean;
  meterProvider: MeterProvider | undefined;
  tracerProvider: TracerProvider | undefined;
}

/** Lag thresholds of one queue, in ms. */
export interface LagThresholds {
  degradedMs: number;
  unhealthyMs: number;
}

/** The `health` option checked, in ms. */
export interface HealthSettings {
  dbTimeoutMs: number;
  stallTimeoutMs: number;
  lag: LagThresholds;
  /** Per-queue lag thresholds (`queues.<name>.lagDegraded` / `lagUnhealthy`), by queue name. */
  queueLag: Readonly<Record<string, LagThresholds>>;
}

/** The `retention` option checked, in ms (an age of `null` keeps rows for good). */
export interface RetentionSettings {
  /** Whether the background purge runs (`retention: false` turns it off). */
  enabled: boolean;
  intervalMs: number;
  batchSize: number;
  ages: Readonly<Record<RetentionTable, number | null>>;
  /** Queues' own archive and DLQ ages, by queue name. */
  queueAges: Readonly<Record<string, Partial<Record<'archive' | 'dlq', number | null>>>>;
}

/** Per-queue settings the engine applies at start. */
export interface QueueStartSettings {
  /** Cap to set; `null` removes it; `undefined` leaves it. */
  maxWorkers: number | null | undefined;
  /** Zombie timeout to set, in whole seconds; `undefined` leaves it. */
  zombieTimeoutSeconds: number | undefined;
  /** Whether succeeded jobs get archive rows; `undefined` leaves it. */
  keepSucceeded: boolean | undefined;
}

/**
 * The engine's settings: `ChokaQOptions` after defaults and checks (config/resolve.ts), durations
 * in ms. The runtime reads only these.
 */
export interface EngineSettings {
  storage: Store;
  jobs: readonly AnyJobDefinition[];
  pipe: PipeHandler | undefined;
  middleware: readonly Middleware[];
  /** Settings applied to queues at start, by queue name. */
  queueStart: Readonly<Record<string, QueueStartSettings>>;
  workerQueues: readonly string[] | null;
  worker: boolean;
  concurrency: number;
  prefetch: number | 'auto';
  pollIntervalMs: number;
  timeoutMs: number;
  /** Per-queue handler time limits from `queues.<name>.timeout`. */
  queueTimeoutsMs: Readonly<Record<string, number>>;
  retry: RetryPolicy;
  shutdownGraceMs: number;
  abortGraceMs: number;
  heartbeatIntervalMs: number;
  heartbeatFailureThreshold: number;
  cancelOnHeartbeatFailure: boolean;
  circuitBreaker: CircuitPolicy | false;
  circuitDelayMs: number;
  rescueIntervalMs: number;
  fetchedTimeoutMs: number;
  zombieTimeoutMs: number;
  maxPayloadBytes: number;
  workerId: string;
  logger: Logger;
  clock: Clock;
  telemetry: TelemetrySettings;
  health: HealthSettings;
  /** Interval of the cross-process events in ms; `null` when they are off. */
  clusterEventsIntervalMs: number | null;
  retention: RetentionSettings;
}
