import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { ChokaQError } from './errors.js';
import type { AnyJobDefinition } from './job/registry.js';
import { resolveRetryPolicy, type RetryOptions, type RetryPolicy } from './job/retry.js';
import { validateQueueName } from './job/envelope.js';
import { consoleLogger, type Logger } from './observability/logger.js';
import type { CircuitPolicy } from './runtime/circuit-breaker.js';
import type { PipeHandler } from './runtime/executor.js';
import type { Middleware } from './runtime/middleware.js';
import type { Store } from './storage/contract.js';
import { systemClock, type Clock } from './util/clock.js';
import { toMs, type Duration } from './util/duration.js';

/** Per-queue settings applied when ChokaQ starts. */
export interface QueueSettings {
  /** Cap on this queue's running + prefetched jobs across all processes; `null` = none. Default: unchanged. */
  maxWorkers?: number | null;
  /** Handler time limit for jobs of this queue (a job type's own `timeout` wins). Default: the ChokaQ `timeout`. */
  timeout?: Duration;
  /** Heartbeat age after which a running job of this queue is a zombie (applied at start). Default: `zombieTimeout`. */
  zombieTimeout?: Duration;
}

/** Options of {@link ChokaQ}. */
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
  /** Queues this process works on. Default: all queues. */
  workerQueues?: readonly string[];
  /** Whether `start()` runs workers; `false` makes an enqueue-only client. Default: `true`. */
  worker?: boolean;
  /** Jobs run at once in this process; change later with `setConcurrency`. Default: `10`. */
  concurrency?: number;
  /**
   * Jobs claimed ahead of free slots, so a freed slot starts the next job without waiting for a
   * claim. Each prefetched job costs one more write (its start), so it pays only when the
   * database is far away; nearby, claims that start jobs in free slots at once are faster.
   * Default: `0`.
   */
  prefetch?: number;
  /** Idle poll interval (wake-ups usually come sooner through notifications). Default: `'1s'`. */
  pollInterval?: Duration;
  /** Default handler time limit. Default: `'15m'`. */
  timeout?: Duration;
  /** Default retry settings for every job type. Default: see {@link RetryOptions}. */
  retry?: RetryOptions;
  /** How long `stop()` waits for running handlers before aborting their signals. Default: `'30s'`. */
  shutdownGracePeriod?: Duration;
  /**
   * How long a handler whose signal was aborted (timeout, cancel, failing heartbeats) may take to
   * return before ChokaQ abandons it and finalises the job. Default: `'5s'`.
   */
  abortGracePeriod?: Duration;
  /** Mean interval of the running jobs' heartbeat (±20 % jitter). Default: `'10s'`. */
  heartbeatInterval?: Duration;
  /** Consecutive failed heartbeat writes before a run counts as degraded. Default: `10`. */
  heartbeatFailureThreshold?: number;
  /** Abort a run whose heartbeats keep failing (DLQ `HeartbeatFailure`) instead of warning. Default: `false`. */
  cancelOnHeartbeatFailure?: boolean;
  /**
   * Default circuit breaker of every job type (a type's own `circuit` wins); `false` turns circuit
   * breakers off. Default: `{}` (5 failures within 60 s open it for 30 s, then 1 probe).
   */
  circuitBreaker?: CircuitPolicy | false;
  /** Delay of a claimed job whose circuit is open (no attempt used). Default: `'5s'`. */
  circuitBreakerDelay?: Duration;
  /** Mean interval of the recovery loop (±20 % jitter). Default: `'1m'`. */
  rescueInterval?: Duration;
  /** A claimed job not started for this long goes back to pending. Default: `'10m'`. */
  fetchedTimeout?: Duration;
  /** A running job whose heartbeat is older than this is a zombie (per queue: `queues.<name>.zombieTimeout`). Default: `'10m'`. */
  zombieTimeout?: Duration;
  /** Largest serialized payload accepted by enqueue, in UTF-8 bytes. Default: `1_000_000`. */
  maxPayloadBytes?: number;
  /** Identity stamped on claimed jobs. Default: `<hostname>-<pid>-<4 hex>`. */
  workerId?: string;
  /** Default: {@link consoleLogger} at level `info`. */
  logger?: Logger;
  /** Time source for durations and retry decisions. Default: the system clock. */
  clock?: Clock;
}

/** Options after defaults and validation. */
export interface ResolvedConfig {
  storage: Store;
  jobs: readonly AnyJobDefinition[];
  pipe: PipeHandler | undefined;
  middleware: readonly Middleware[];
  queues: Readonly<Record<string, QueueSettings>>;
  workerQueues: readonly string[] | null;
  worker: boolean;
  concurrency: number;
  prefetch: number;
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
  /** Per-queue zombie timeouts in seconds, from `queues.<name>.zombieTimeout`. */
  queueZombieTimeoutsS: Readonly<Record<string, number>>;
  maxPayloadBytes: number;
  workerId: string;
  logger: Logger;
  clock: Clock;
}

/**
 * Applies defaults and validates every option once.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` (or a more specific code) naming the option.
 */
export function resolveConfig(options: ChokaQOptions): ResolvedConfig {
  if (!options?.storage) throw new ChokaQError('CHOKAQ_INVALID_CONFIG', 'storage is required');
  const concurrency = options.concurrency ?? 10;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_CONFIG',
      `concurrency must be an integer ≥ 1, got ${concurrency}`,
    );
  }
  const prefetch = options.prefetch ?? 0;
  if (!Number.isInteger(prefetch) || prefetch < 0) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_CONFIG',
      `prefetch must be an integer ≥ 0, got ${prefetch}`,
    );
  }
  const maxPayloadBytes = options.maxPayloadBytes ?? 1_000_000;
  if (!Number.isInteger(maxPayloadBytes) || maxPayloadBytes < 1) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_CONFIG',
      `maxPayloadBytes must be an integer ≥ 1, got ${maxPayloadBytes}`,
    );
  }
  const queues = options.queues ?? {};
  const queueTimeoutsMs: Record<string, number> = {};
  const queueZombieTimeoutsS: Record<string, number> = {};
  for (const [name, settings] of Object.entries(queues)) {
    validateQueueName(name);
    const cap = settings.maxWorkers;
    if (cap !== undefined && cap !== null && (!Number.isInteger(cap) || cap < 1)) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_CONFIG',
        `queues.${name}.maxWorkers must be an integer ≥ 1 or null`,
      );
    }
    if (settings.zombieTimeout !== undefined) {
      const ms = positive(
        toMs(settings.zombieTimeout, `queues.${name}.zombieTimeout`),
        `queues.${name}.zombieTimeout`,
      );
      queueZombieTimeoutsS[name] = Math.max(1, Math.round(ms / 1000));
    }
    if (settings.timeout !== undefined) {
      queueTimeoutsMs[name] = positive(
        toMs(settings.timeout, `queues.${name}.timeout`),
        `queues.${name}.timeout`,
      );
    }
  }
  for (const name of options.workerQueues ?? []) validateQueueName(name);
  return {
    storage: options.storage,
    jobs: options.jobs ?? [],
    pipe: options.pipe,
    middleware: options.middleware ?? [],
    queues,
    workerQueues: options.workerQueues ?? null,
    worker: options.worker ?? true,
    concurrency,
    prefetch,
    pollIntervalMs: positive(toMs(options.pollInterval ?? '1s', 'pollInterval'), 'pollInterval'),
    timeoutMs: positive(toMs(options.timeout ?? '15m', 'timeout'), 'timeout'),
    queueTimeoutsMs,
    retry: resolveRetryPolicy(options.retry),
    shutdownGraceMs: toMs(options.shutdownGracePeriod ?? '30s', 'shutdownGracePeriod'),
    abortGraceMs: toMs(options.abortGracePeriod ?? '5s', 'abortGracePeriod'),
    heartbeatIntervalMs: positive(
      toMs(options.heartbeatInterval ?? '10s', 'heartbeatInterval'),
      'heartbeatInterval',
    ),
    heartbeatFailureThreshold: atLeastOne(
      options.heartbeatFailureThreshold ?? 10,
      'heartbeatFailureThreshold',
    ),
    cancelOnHeartbeatFailure: options.cancelOnHeartbeatFailure ?? false,
    circuitBreaker: options.circuitBreaker ?? {},
    circuitDelayMs: positive(
      toMs(options.circuitBreakerDelay ?? '5s', 'circuitBreakerDelay'),
      'circuitBreakerDelay',
    ),
    rescueIntervalMs: positive(
      toMs(options.rescueInterval ?? '1m', 'rescueInterval'),
      'rescueInterval',
    ),
    fetchedTimeoutMs: positive(
      toMs(options.fetchedTimeout ?? '10m', 'fetchedTimeout'),
      'fetchedTimeout',
    ),
    zombieTimeoutMs: positive(
      toMs(options.zombieTimeout ?? '10m', 'zombieTimeout'),
      'zombieTimeout',
    ),
    queueZombieTimeoutsS,
    maxPayloadBytes,
    workerId: options.workerId ?? `${hostname()}-${process.pid}-${randomBytes(2).toString('hex')}`,
    logger: options.logger ?? consoleLogger(),
    clock: options.clock ?? systemClock,
  };
}

function atLeastOne(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new ChokaQError('CHOKAQ_INVALID_CONFIG', `${name} must be an integer ≥ 1, got ${value}`);
  }
  return value;
}

function positive(ms: number, name: string): number {
  if (ms <= 0) throw new ChokaQError('CHOKAQ_INVALID_CONFIG', `${name} must be greater than 0`);
  return ms;
}
