/**
 * What an operator needs to know of a running engine's configuration (`chokaq.configuration()`):
 * the options after defaults and checks, durations in ms, as plain JSON. Nothing secret is in
 * it: the storage appears as its kind only (never a connection string), and functions, loggers,
 * clocks and telemetry providers only as whether they were given.
 */
import { resolveCircuitPolicy, type ResolvedCircuitPolicy } from '../job/circuit-policy.js';
import type { RetryPolicy } from '../job/retry.js';
import type { EngineSettings, LagThresholds } from '../runtime/settings.js';
import type { RetentionTable } from '../storage/retention.js';

/** The settings one queue runs with, in ms (an age of `null` keeps rows for good). */
export interface QueueConfiguration {
  name: string;
  /** Handler time limit of its jobs (a job type's own `timeout` wins). */
  timeoutMs: number;
  /** Zombie timeout this process applies at start, or the engine's `zombieTimeout`. */
  zombieTimeoutMs: number;
  /** `maxWorkers` this process sets at start; `undefined` when it leaves the stored cap. */
  maxWorkersAtStart?: number | null;
  /** `chokaq_queue_saturation` thresholds. */
  lagDegradedMs: number;
  lagUnhealthyMs: number;
  /** How long its succeeded and dead jobs are kept. */
  retention: { archiveMs: number | null; dlqMs: number | null };
}

/** A running engine's configuration (see {@link ChokaQ.configuration}). */
export interface EngineConfiguration {
  /** This process's worker id. */
  workerId: string;
  /** The storage provider's kind: `memory`, `embedded` or `postgres`. */
  storage: string;
  /** Whether `start()` runs workers here. */
  worker: boolean;
  /** Queues this process works on; `null`: every queue. */
  workerQueues: string[] | null;
  /** Jobs run at once here now (after any `setConcurrency`). */
  concurrency: number;
  prefetch: number | 'auto';
  pollIntervalMs: number;
  maxPayloadBytes: number;
  /** The job types this process defines, with their queues, by type key. */
  jobTypes: { type: string; queue: string }[];
  /** Whether a pipe handler runs the types without a definition. */
  pipe: boolean;
  /** How many middleware wrap every run. */
  middleware: number;
  /** The default retry settings of every job type. */
  retry: RetryPolicy;
  /** Timers of runs, leases and recovery. */
  timing: {
    timeoutMs: number;
    shutdownGraceMs: number;
    abortGraceMs: number;
    heartbeatIntervalMs: number;
    heartbeatFailureThreshold: number;
    cancelOnHeartbeatFailure: boolean;
    rescueIntervalMs: number;
    fetchedTimeoutMs: number;
    zombieTimeoutMs: number;
  };
  /** The default circuit breaker of every job type, or `false` when breakers are off. */
  circuitBreaker: ResolvedCircuitPolicy | false;
  circuitBreakerDelayMs: number;
  /** Metrics on or off, and whether providers were given (otherwise the global ones serve). */
  telemetry: { metrics: boolean; meterProvider: boolean; tracerProvider: boolean };
  /** When the health checks turn degraded or unhealthy (the lag ones by default). */
  health: { dbTimeoutMs: number; stallTimeoutMs: number } & LagThresholds;
  /** Interval of the cross-process events; `null` when they are off. */
  clusterEventsIntervalMs: number | null;
  /** The background purge: whether it runs, how often, how much at once, and the ages it keeps. */
  retention: {
    enabled: boolean;
    intervalMs: number;
    batchSize: number;
    ages: Record<RetentionTable, number | null>;
  };
  /** Every queue named in the options, with the settings it runs with. */
  queues: QueueConfiguration[];
  /** The settings of a queue the options do not name. */
  queueDefaults: Omit<QueueConfiguration, 'name' | 'maxWorkersAtStart'>;
  /** How many schedules the options declare (`chokaq.schedules.list()` has them all). */
  declaredSchedules: number;
}

/**
 * The configuration report of `settings`, with `concurrency` as the engine runs now and the
 * number of schedules the options declare (which the facade holds, not the engine's settings).
 */
export function engineConfiguration(
  settings: EngineSettings,
  concurrency: number,
  declaredSchedules: number,
): EngineConfiguration {
  const s = settings;
  const queueDefaults = {
    timeoutMs: s.timeoutMs,
    zombieTimeoutMs: s.zombieTimeoutMs,
    lagDegradedMs: s.health.lag.degradedMs,
    lagUnhealthyMs: s.health.lag.unhealthyMs,
    retention: { archiveMs: s.retention.ages.archive, dlqMs: s.retention.ages.dlq },
  };
  const named = new Set([
    ...Object.keys(s.queueStart),
    ...Object.keys(s.queueTimeoutsMs),
    ...Object.keys(s.health.queueLag),
    ...Object.keys(s.retention.queueAges),
  ]);
  const queues = [...named].sort().map((name): QueueConfiguration => {
    const start = s.queueStart[name];
    const lag = s.health.queueLag[name];
    const ages = s.retention.queueAges[name] ?? {};
    const queue: QueueConfiguration = {
      name,
      timeoutMs: s.queueTimeoutsMs[name] ?? s.timeoutMs,
      zombieTimeoutMs:
        start?.zombieTimeoutSeconds === undefined
          ? s.zombieTimeoutMs
          : start.zombieTimeoutSeconds * 1000,
      lagDegradedMs: lag?.degradedMs ?? queueDefaults.lagDegradedMs,
      lagUnhealthyMs: lag?.unhealthyMs ?? queueDefaults.lagUnhealthyMs,
      retention: {
        archiveMs: ages.archive === undefined ? queueDefaults.retention.archiveMs : ages.archive,
        dlqMs: ages.dlq === undefined ? queueDefaults.retention.dlqMs : ages.dlq,
      },
    };
    if (start?.maxWorkers !== undefined) queue.maxWorkersAtStart = start.maxWorkers;
    return queue;
  });
  return {
    workerId: s.workerId,
    storage: s.storage.kind,
    worker: s.worker,
    workerQueues: s.workerQueues === null ? null : [...s.workerQueues],
    concurrency,
    prefetch: s.prefetch,
    pollIntervalMs: s.pollIntervalMs,
    maxPayloadBytes: s.maxPayloadBytes,
    jobTypes: s.jobs.map((job) => ({ type: job.type, queue: job.queue })),
    pipe: s.pipe !== undefined,
    middleware: s.middleware.length,
    retry: { ...s.retry },
    timing: {
      timeoutMs: s.timeoutMs,
      shutdownGraceMs: s.shutdownGraceMs,
      abortGraceMs: s.abortGraceMs,
      heartbeatIntervalMs: s.heartbeatIntervalMs,
      heartbeatFailureThreshold: s.heartbeatFailureThreshold,
      cancelOnHeartbeatFailure: s.cancelOnHeartbeatFailure,
      rescueIntervalMs: s.rescueIntervalMs,
      fetchedTimeoutMs: s.fetchedTimeoutMs,
      zombieTimeoutMs: s.zombieTimeoutMs,
    },
    circuitBreaker:
      s.circuitBreaker === false
        ? false
        : resolveCircuitPolicy([s.circuitBreaker], 'circuitBreaker'),
    circuitBreakerDelayMs: s.circuitDelayMs,
    telemetry: {
      metrics: s.telemetry.metrics,
      meterProvider: s.telemetry.meterProvider !== undefined,
      tracerProvider: s.telemetry.tracerProvider !== undefined,
    },
    health: {
      dbTimeoutMs: s.health.dbTimeoutMs,
      stallTimeoutMs: s.health.stallTimeoutMs,
      degradedMs: s.health.lag.degradedMs,
      unhealthyMs: s.health.lag.unhealthyMs,
    },
    clusterEventsIntervalMs: s.clusterEventsIntervalMs,
    retention: {
      enabled: s.retention.enabled,
      intervalMs: s.retention.intervalMs,
      batchSize: s.retention.batchSize,
      ages: { ...s.retention.ages },
    },
    queues,
    queueDefaults,
    declaredSchedules,
  };
}
