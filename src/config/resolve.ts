import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { ChokaQError } from '../errors.js';
import { checkCircuitPolicy, resolveCircuitPolicy } from '../job/circuit-policy.js';
import { LIMITS, validateQueueName } from '../job/envelope.js';
import { isJobDefinition, type AnyJobDefinition } from '../job/registry.js';
import { resolveRetryPolicy } from '../job/retry.js';
import { checkLogger, consoleLogger } from '../observability/logging/logger.js';
import { MAX_WORKERS_RANGE } from '../operator/queues-api.js';
import {
  CLUSTER_EVENTS_INTERVAL,
  DEFAULT_CLUSTER_EVENTS_INTERVAL,
} from '../runtime/cluster-events.js';
import type { EngineSettings, QueueStartSettings } from '../runtime/settings.js';
import { MAX_CONCURRENCY, WORKER_DEFAULTS } from '../runtime/worker-options.js';
import type { CheckedSchedule } from '../schedule/definition.js';
import type { Store } from '../storage/store.js';
import {
  checkArray,
  checkBoolean,
  checkFunction,
  checkInteger,
  checkOptions,
  checkString,
  describeValue,
  hasMethods,
  invalid,
  isPlainObject,
} from '../util/check.js';
import { checkClock, systemClock } from '../util/clock.js';
import { MAX_TIMER_MS, toMs, type Duration } from '../util/duration.js';
import { resolveHealth } from './health.js';
import { resolveRetention } from './retention.js';
import { resolveSchedules } from './schedules.js';
import { resolveTelemetry } from './telemetry.js';
import type { ChokaQOptions, QueueSettings } from './options.js';

/** Largest `maxPayloadBytes`. */
const MAX_PAYLOAD_BYTES = 100_000_000;

/** Most job definitions and most `workerQueues` names. */
const MAX_LIST = 10_000;

const OPTION_KEYS = [
  'storage',
  'jobs',
  'pipe',
  'middleware',
  'queues',
  'workerQueues',
  'worker',
  'concurrency',
  'prefetch',
  'pollInterval',
  'timeout',
  'retry',
  'shutdownGracePeriod',
  'abortGracePeriod',
  'heartbeatInterval',
  'heartbeatFailureThreshold',
  'cancelOnHeartbeatFailure',
  'circuitBreaker',
  'circuitBreakerDelay',
  'rescueInterval',
  'fetchedTimeout',
  'zombieTimeout',
  'maxPayloadBytes',
  'workerId',
  'logger',
  'clock',
  'telemetry',
  'health',
  'clusterEvents',
  'retention',
  'schedules',
] as const satisfies readonly (keyof ChokaQOptions)[];

const QUEUE_KEYS = [
  'maxWorkers',
  'timeout',
  'zombieTimeout',
  'keepSucceeded',
  'lagDegraded',
  'lagUnhealthy',
  'retention',
] as const satisfies readonly (keyof QueueSettings)[];

/** A duration that a timer waits on: 1 ms up to what `setTimeout` can wait. */
const TIMER = { min: 1, max: MAX_TIMER_MS };
/** A grace period: 0 up to what `setTimeout` can wait. */
const GRACE = { min: 0, max: MAX_TIMER_MS };
/** A duration compared with the database clock: more than 0. */
const POSITIVE = { min: 1 };

/**
 * Every option of `new ChokaQ` checked: the engine's settings and the declared schedules, which
 * the facade hands to the schedules API (the engine below it never sees them).
 */
export interface ChokaQSettings extends EngineSettings {
  /** The declared schedules, checked. Default: none. */
  schedules: readonly CheckedSchedule[];
}

/**
 * Applies defaults and checks every option once: types, bounds, unknown names.
 * @throws ChokaQError naming the option: `CHOKAQ_INVALID_CONFIG`, `CHOKAQ_UNKNOWN_OPTION`,
 *   `CHOKAQ_INVALID_DURATION`, `CHOKAQ_INVALID_QUEUE`.
 */
export function resolveConfig(options: ChokaQOptions): ChokaQSettings {
  if (!isPlainObject(options))
    throw invalid('CHOKAQ_INVALID_CONFIG', 'options', 'an object', options);
  checkOptions(options, 'options', OPTION_KEYS);
  const heartbeatIntervalMs = toMs(options.heartbeatInterval ?? '10s', 'heartbeatInterval', TIMER);
  const zombieTimeoutMs = longerThanHeartbeat(
    toMs(options.zombieTimeout ?? '10m', 'zombieTimeout', POSITIVE),
    options.zombieTimeout ?? '10m',
    'zombieTimeout',
    heartbeatIntervalMs,
  );
  const { queueStart, queueTimeoutsMs } = resolveQueues(options.queues, heartbeatIntervalMs);
  const circuitBreaker = options.circuitBreaker ?? {};
  if (circuitBreaker !== false) {
    resolveCircuitPolicy([checkCircuitPolicy(circuitBreaker, 'circuitBreaker')], 'circuitBreaker');
  }
  const maxPayloadBytes = checkInteger(options.maxPayloadBytes ?? 1_000_000, 'maxPayloadBytes', {
    min: 1,
    max: MAX_PAYLOAD_BYTES,
  });
  const clock = options.clock === undefined ? systemClock : checkClock(options.clock, 'clock');
  return {
    storage: checkStorage(options.storage),
    jobs: checkJobs(options.jobs),
    pipe: options.pipe === undefined ? undefined : checkFunction(options.pipe, 'pipe'),
    middleware: checkList(options.middleware, 'middleware').map((m, i) =>
      checkFunction(m, `middleware[${i}]`),
    ) as EngineSettings['middleware'],
    queueStart,
    workerQueues: options.workerQueues === undefined ? null : checkQueueNames(options.workerQueues),
    worker: checkBoolean(options.worker ?? true, 'worker'),
    concurrency: checkInteger(options.concurrency ?? WORKER_DEFAULTS.concurrency, 'concurrency', {
      min: 1,
      max: MAX_CONCURRENCY,
    }),
    prefetch: checkPrefetch(options.prefetch),
    pollIntervalMs: toMs(
      options.pollInterval ?? WORKER_DEFAULTS.pollInterval,
      'pollInterval',
      TIMER,
    ),
    timeoutMs: toMs(options.timeout ?? '15m', 'timeout', TIMER),
    queueTimeoutsMs,
    retry: resolveRetryPolicy(options.retry, undefined, 'retry'),
    shutdownGraceMs: toMs(options.shutdownGracePeriod ?? '30s', 'shutdownGracePeriod', GRACE),
    abortGraceMs: toMs(options.abortGracePeriod ?? '5s', 'abortGracePeriod', GRACE),
    heartbeatIntervalMs,
    heartbeatFailureThreshold: checkInteger(
      options.heartbeatFailureThreshold ?? 10,
      'heartbeatFailureThreshold',
      { min: 1, max: 1_000_000 },
    ),
    cancelOnHeartbeatFailure: checkBoolean(
      options.cancelOnHeartbeatFailure ?? false,
      'cancelOnHeartbeatFailure',
    ),
    circuitBreaker,
    circuitDelayMs: toMs(options.circuitBreakerDelay ?? '5s', 'circuitBreakerDelay', POSITIVE),
    rescueIntervalMs: toMs(options.rescueInterval ?? '1m', 'rescueInterval', TIMER),
    fetchedTimeoutMs: toMs(options.fetchedTimeout ?? '10m', 'fetchedTimeout', POSITIVE),
    zombieTimeoutMs,
    maxPayloadBytes,
    workerId:
      options.workerId === undefined
        ? `${hostname()}-${process.pid}-${randomBytes(2).toString('hex')}`.slice(
            0,
            LIMITS.createdByLength,
          )
        : checkString(options.workerId, 'workerId', LIMITS.createdByLength),
    logger: options.logger === undefined ? consoleLogger() : checkLogger(options.logger, 'logger'),
    clock,
    telemetry: resolveTelemetry(options.telemetry),
    health: resolveHealth(options.health, options.queues),
    clusterEventsIntervalMs: resolveClusterEvents(options.clusterEvents),
    retention: resolveRetention(options.retention, options.queues),
    schedules: resolveSchedules(options.schedules, maxPayloadBytes, clock.now()),
  };
}

/** `prefetch`: `'auto'` (the default) or a whole number of jobs from 0 to the concurrency cap. */
function checkPrefetch(value: unknown): number | 'auto' {
  if (value === undefined) return WORKER_DEFAULTS.prefetch;
  if (value === 'auto') return value;
  const bounds = { min: 0, max: MAX_CONCURRENCY };
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= bounds.max) {
    return value;
  }
  throw invalid(
    'CHOKAQ_INVALID_CONFIG',
    'prefetch',
    `'auto' or an integer from 0 to ${bounds.max}`,
    value,
  );
}

/** The interval of `clusterEvents` in ms, or `null` when they are off. */
function resolveClusterEvents(value: ChokaQOptions['clusterEvents']): number | null {
  if (value === false) return null;
  const options = checkOptions(value, 'clusterEvents', ['interval'] as const);
  return toMs(
    options.interval ?? DEFAULT_CLUSTER_EVENTS_INTERVAL,
    'clusterEvents.interval',
    CLUSTER_EVENTS_INTERVAL,
  );
}

/** Per-queue start settings and handler timeouts from `options.queues`. */
function resolveQueues(
  queues: ChokaQOptions['queues'],
  heartbeatIntervalMs: number,
): Pick<EngineSettings, 'queueStart' | 'queueTimeoutsMs'> {
  const queueStart: Record<string, QueueStartSettings> = {};
  const queueTimeoutsMs: Record<string, number> = {};
  if (queues !== undefined && !isPlainObject(queues)) {
    throw invalid('CHOKAQ_INVALID_CONFIG', 'queues', 'an object keyed by queue name', queues);
  }
  for (const [name, raw] of Object.entries(queues ?? {})) {
    const field = `queues.${name}`;
    validateQueueName(name, `${field} (queue name)`);
    const settings = checkOptions(raw, field, QUEUE_KEYS);
    const cap = settings.maxWorkers;
    queueStart[name] = {
      maxWorkers:
        cap === undefined || cap === null
          ? cap
          : checkInteger(cap, `${field}.maxWorkers`, MAX_WORKERS_RANGE),
      zombieTimeoutSeconds:
        settings.zombieTimeout === undefined
          ? undefined
          : queueZombieSeconds(
              settings.zombieTimeout,
              `${field}.zombieTimeout`,
              heartbeatIntervalMs,
            ),
      keepSucceeded:
        settings.keepSucceeded === undefined
          ? undefined
          : checkBoolean(settings.keepSucceeded, `${field}.keepSucceeded`),
    };
    if (settings.timeout !== undefined) {
      queueTimeoutsMs[name] = toMs(settings.timeout, `${field}.timeout`, TIMER);
    }
  }
  return { queueStart, queueTimeoutsMs };
}

/**
 * A queue's zombie timeout in seconds (it is stored in whole seconds), longer than the heartbeat
 * interval.
 * @throws ChokaQError `CHOKAQ_INVALID_DURATION` (not a whole number of seconds, unparseable) or
 *   `CHOKAQ_INVALID_CONFIG` (not longer than `heartbeatInterval`), naming `field`.
 */
export function queueZombieSeconds(
  value: Duration,
  field: string,
  heartbeatIntervalMs: number,
): number {
  const ms = toMs(value, field, { min: 1000 });
  if (ms % 1000 !== 0) {
    throw invalid('CHOKAQ_INVALID_DURATION', field, 'a whole number of seconds', value);
  }
  return longerThanHeartbeat(ms, value, field, heartbeatIntervalMs) / 1000;
}

/**
 * `ms` when it is longer than the heartbeat interval: a shorter zombie timeout would take every
 * running job for dead between two heartbeats.
 */
function longerThanHeartbeat(
  ms: number,
  value: Duration,
  field: string,
  heartbeatIntervalMs: number,
): number {
  if (ms <= heartbeatIntervalMs) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      field,
      `longer than heartbeatInterval (${heartbeatIntervalMs} ms)`,
      value,
    );
  }
  return ms;
}

/** An optional list option as an array. */
function checkList(value: unknown, field: string): readonly unknown[] {
  return value === undefined ? [] : checkArray(value, field, MAX_LIST, 'CHOKAQ_INVALID_CONFIG');
}

function checkJobs(value: unknown): readonly AnyJobDefinition[] {
  return checkList(value, 'jobs').map((job, i) => {
    if (!isJobDefinition(job)) {
      throw invalid(
        'CHOKAQ_INVALID_CONFIG',
        `jobs[${i}]`,
        'a job definition from defineJob()',
        job,
      );
    }
    return job;
  });
}

function checkQueueNames(value: unknown): readonly string[] {
  const names = checkList(value, 'workerQueues');
  names.forEach((name, i) => validateQueueName(name, `workerQueues[${i}]`));
  return names as readonly string[];
}

/** The storage option: a provider made by `memory()`, `embedded()` or `postgres()`. */
function checkStorage(value: unknown): Store {
  const isStore =
    hasMethods(value, ['open', 'close']) &&
    hasMethods((value as { jobs?: unknown }).jobs, ['enqueue', 'claim', 'settle', 'rescue']);
  if (!isStore) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_CONFIG',
      `storage must be a storage provider made by memory(), embedded() or postgres(), got ${describeValue(value)}`,
      { field: 'storage' },
    );
  }
  return value as Store;
}
