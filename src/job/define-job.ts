import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ChokaQError } from '../errors.js';
import {
  checkBoolean,
  checkFunction,
  checkInteger,
  checkOptions,
  invalid,
  isPlainObject,
} from '../util/check.js';
import { MAX_TIMER_MS, toMs, type Duration } from '../util/duration.js';
import { validateQueueName, validateTypeKey, validatePriority } from './envelope.js';
import { resolveRetryPolicy, type RetryOptions } from './retry.js';
import { checkCircuitPolicy, resolveCircuitPolicy, type CircuitPolicy } from './circuit-policy.js';
import {
  checkConcurrencyKey,
  checkConcurrencyLimit,
  type ConcurrencyKeyOption,
} from './concurrency.js';
import { checkRateLimit, type RateLimit, type RateLimitOptions } from './rate-limit.js';
import { checkBatchSize, handleAsBatchOfOne, type BatchHandler } from './batch.js';
import type { JobContext } from './context.js';

/**
 * A handler for one job type. Return to succeed; throw to fail (see `classifyFailure`). What it
 * returns is kept with the archived job as JSON (up to 64 KiB; larger or unserialisable results
 * are dropped with a warning).
 */
export type JobHandler<P> = (payload: P, ctx: JobContext) => unknown;

/** The fields of {@link defineJob} besides the handler (see {@link JobSpec}). */
export interface JobSpecFields<P> {
  /** Stable type key stored with every job, for example `'email.send.v1'`. Keep it when renaming code. */
  type: string;
  /** Queue new jobs of this type go to unless enqueue says otherwise. Default: `'default'`. */
  queue?: string;
  /** Priority of new jobs (higher runs first). Default: `10`. */
  priority?: number;
  /** Retry settings; absent fields fall back to the ChokaQ-wide `retry` option. */
  retry?: RetryOptions;
  /** Handler time limit; the context signal fires when it passes. Default: the ChokaQ `timeout`. */
  timeout?: Duration;
  /**
   * What happens when a run is lost (its worker died, heartbeats expired): `false` sends the job to
   * the DLQ as `Zombie` for an operator to decide; `true` runs it again (refunding the lost run)
   * up to `retry.maxAttempts` lost runs; a number sets that limit. Only opt in for handlers that
   * are safe to run twice. Default: `false`.
   */
  retryZombies?: boolean | number;
  /**
   * Record each run's start durably before the handler is called (one write on the run's path).
   * By default a worker records starts with its next settle round, so a process that dies within
   * that round (a few ms) leaves its just-started runs fetched, and they run again later, with no
   * attempt used; with `strictStart`, such a run is a zombie instead (the DLQ, or again with
   * `retryZombies`). For handlers that must never run twice. Default: `false`.
   */
  strictStart?: boolean;
  /**
   * Whether succeeded jobs of this type get archive rows: `false` deletes each one once it is
   * counted (lifetime counters, metric buckets and metrics stay exact; failures still go to the
   * DLQ). The queue's `keepSucceeded` applies as well: a job is archived only when both keep.
   * Default: `true`.
   */
  keepSucceeded?: boolean;
  /** This type's circuit breaker settings; absent fields use the ChokaQ `circuitBreaker`. Default: none. */
  circuit?: CircuitPolicy;
  /**
   * The concurrency key of new jobs (a tenant, a customer): one key for every job, or a function
   * of the payload as enqueued (`null` or `undefined`: no key). Jobs of one key in one queue take
   * turns with other keys' jobs; the enqueue option `concurrencyKey` wins. Default: none.
   */
  concurrencyKey?: ConcurrencyKeyOption<P>;
  /**
   * Most jobs of one concurrency key fetched or running at once in their queue, across every
   * process (1–1,000,000; needs `concurrencyKey`). Default: none (keys only take turns).
   */
  concurrencyLimit?: number;
  /**
   * At most `limit` starts per `per` across every process, drawn from a token bucket in the
   * database (see {@link RateLimitOptions}); a handler can block the bucket for everyone by
   * throwing `RateLimitedError`. Default: none.
   */
  rateLimit?: RateLimitOptions<P>;
}

/** A job type run one job per call: `handle`. */
export interface SingleJobSpec<P> extends JobSpecFields<P> {
  handle: JobHandler<P>;
  handleBatch?: undefined;
  batchSize?: undefined;
}

/** A job type run in batches: `handleBatch` with up to `batchSize` jobs per call. */
export interface BatchJobSpec<P> extends JobSpecFields<P> {
  handle?: undefined;
  /**
   * Runs up to `batchSize` jobs of this type and one queue in one call; each job still succeeds,
   * retries or dies on its own. See the README, "Batch handlers".
   */
  handleBatch: BatchHandler<P>;
  /**
   * Most jobs per call (1–1,000). A batch is what the worker holds of this type when a slot frees,
   * never more than its free slots: each job of a batch takes a slot. Default: `100`.
   */
  batchSize?: number;
}

/** The fields of {@link defineJob}: a job type has either `handle` or `handleBatch`. */
export type JobSpec<P> = SingleJobSpec<P> | BatchJobSpec<P>;

/** A typed job definition, made by {@link defineJob}. `In` is what enqueue takes, `Out` what the handler gets. */
export interface JobDefinition<In = unknown, Out = In> {
  readonly type: string;
  readonly queue: string;
  readonly priority: number;
  readonly retry: RetryOptions | undefined;
  /** Timeout in ms, or `undefined` for the ChokaQ default. */
  readonly timeoutMs: number | undefined;
  /** Lost runs after which a zombie goes to the DLQ instead of running again; `0` = never retry zombies. */
  readonly maxLostRuns: number;
  /** Whether each run's start is written before the handler is called (see {@link JobSpec.strictStart}). */
  readonly strictStart: boolean;
  /** Whether succeeded jobs of this type get archive rows (see {@link JobSpec.keepSucceeded}). */
  readonly keepSucceeded: boolean;
  /** This type's circuit breaker settings, if any. */
  readonly circuit: CircuitPolicy | undefined;
  /** The concurrency key of new jobs, if any (see {@link JobSpec.concurrencyKey}). */
  readonly concurrencyKey: ConcurrencyKeyOption<unknown> | undefined;
  /** Most jobs of one key fetched or running at once; `null`: no limit. */
  readonly concurrencyLimit: number | null;
  /** The checked rate limit, if any. */
  readonly rateLimit: RateLimit | undefined;
  /** Standard Schema that payloads are validated with at enqueue and before the handler runs. */
  readonly schema: StandardSchemaV1<In, Out> | undefined;
  /** Runs one job; for a batch type, `handleBatch` with a batch of one. */
  readonly handle: JobHandler<Out>;
  /** The batch handler, or `undefined` for a type run one job per call. */
  readonly handleBatch: BatchHandler<Out> | undefined;
  /** Most jobs per batch call: the checked `batchSize` of a batch type, `1` for the others. */
  readonly batchSize: number;
}

/**
 * Defines a job type. With `payload` (any Standard Schema: zod, valibot, arktype…) payloads are
 * validated when enqueued and again before the handler runs, and the handler's payload is typed
 * from the schema. Without it, name the payload type: `defineJob<{ to: string }>({ … })`.
 * @throws ChokaQError `CHOKAQ_INVALID_JOB_TYPE`, `CHOKAQ_INVALID_QUEUE`, `CHOKAQ_INVALID_PRIORITY`,
 *   `CHOKAQ_INVALID_DURATION`, `CHOKAQ_INVALID_CONCURRENCY_KEY` or `CHOKAQ_INVALID_CONFIG` (retry,
 *   concurrency or rate settings, both or neither of `handle` and `handleBatch`, a `batchSize`
 *   without `handleBatch` or out of bounds, unknown fields).
 */
export function defineJob<S extends StandardSchemaV1>(
  spec: JobSpec<StandardSchemaV1.InferOutput<S>> & { payload: S },
): JobDefinition<StandardSchemaV1.InferInput<S>, StandardSchemaV1.InferOutput<S>>;
export function defineJob<P = unknown>(
  spec: JobSpec<P> & { payload?: undefined },
): JobDefinition<P, P>;
// The implementation is untyped on purpose: the overloads above carry the types.
/* eslint-disable @typescript-eslint/no-explicit-any */
export function defineJob(
  spec: JobSpec<any> & { payload?: StandardSchemaV1 | undefined },
): JobDefinition<any, any> {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  if (!isPlainObject(spec))
    throw invalid('CHOKAQ_INVALID_CONFIG', 'defineJob(spec)', 'an object', spec);
  validateTypeKey(spec.type, 'defineJob(spec).type');
  const field = `job '${spec.type}'`;
  checkOptions(spec, field, SPEC_KEYS);
  const queue = spec.queue ?? 'default';
  validateQueueName(queue, `${field}.queue`);
  const priority = spec.priority ?? 10;
  validatePriority(priority, `${field}.priority`);
  const policy = resolveRetryPolicy(spec.retry, undefined, `${field}.retry`); // fail now, not at the first failure
  const retryZombies = spec.retryZombies ?? false;
  const maxLostRuns =
    retryZombies === true
      ? policy.maxAttempts
      : retryZombies === false
        ? 0
        : checkInteger(retryZombies, `${field}.retryZombies`, { min: 0, max: 1_000_000 });
  if (spec.circuit !== undefined) {
    resolveCircuitPolicy(
      [checkCircuitPolicy(spec.circuit, `${field}.circuit`)],
      `${field}.circuit`,
    );
  }
  if (spec.payload !== undefined && !isStandardSchema(spec.payload)) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      `${field}.payload`,
      'a Standard Schema (zod, valibot, arktype, …)',
      spec.payload,
    );
  }
  const handlers = checkHandlers(spec, field);
  const concurrency = checkConcurrency(spec, field);
  return Object.freeze({
    ...concurrency,
    rateLimit: checkRateLimit(spec.rateLimit, `${field}.rateLimit`),
    type: spec.type,
    queue,
    priority,
    retry: spec.retry,
    timeoutMs:
      spec.timeout === undefined
        ? undefined
        : toMs(spec.timeout, `${field}.timeout`, { min: 1, max: MAX_TIMER_MS }),
    maxLostRuns,
    strictStart: checkBoolean(spec.strictStart ?? false, `${field}.strictStart`),
    keepSucceeded: checkBoolean(spec.keepSucceeded ?? true, `${field}.keepSucceeded`),
    circuit: spec.circuit,
    schema: spec.payload,
    ...handlers,
  });
}

const SPEC_KEYS = [
  'type',
  'queue',
  'priority',
  'retry',
  'timeout',
  'retryZombies',
  'strictStart',
  'keepSucceeded',
  'circuit',
  'concurrencyKey',
  'concurrencyLimit',
  'rateLimit',
  'payload',
  'handle',
  'handleBatch',
  'batchSize',
] as const;

/**
 * The checked handler fields of a spec: `handle`, or `handleBatch` with its `batchSize`.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` for both or neither handler, a handler that is not a
 *   function, or a bad `batchSize`.
 */
function checkHandlers(
  spec: JobSpec<unknown>,
  field: string,
): Pick<JobDefinition, 'handle' | 'handleBatch' | 'batchSize'> {
  // Checked as given: a JavaScript caller may pass any mix of the three.
  const { handle, handleBatch, batchSize } = spec as {
    [K in keyof BatchJobSpec<unknown>]?: unknown;
  };
  if (handleBatch === undefined) {
    if (batchSize !== undefined) {
      throw invalid(
        'CHOKAQ_INVALID_CONFIG',
        `${field}.batchSize`,
        'set with handleBatch',
        batchSize,
      );
    }
    return {
      handle: checkFunction(handle, `${field}.handle`) as JobHandler<unknown>,
      handleBatch: undefined,
      batchSize: 1,
    };
  }
  if (handle !== undefined) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      `${field}.handle`,
      'left out when handleBatch is set (a job type has one handler)',
      handle,
    );
  }
  const batch = checkFunction(handleBatch, `${field}.handleBatch`) as BatchHandler<unknown>;
  return {
    handle: handleAsBatchOfOne(spec.type, batch),
    handleBatch: batch,
    batchSize: checkBatchSize(batchSize, `${field}.batchSize`),
  };
}

/**
 * The checked concurrency fields of a spec.
 * @throws ChokaQError `CHOKAQ_INVALID_CONCURRENCY_KEY` for a bad key, `CHOKAQ_INVALID_CONFIG` for
 *   a bad limit or a limit without a key.
 */
function checkConcurrency(
  spec: JobSpec<unknown>,
  field: string,
): Pick<JobDefinition, 'concurrencyKey' | 'concurrencyLimit'> {
  const key = spec.concurrencyKey as unknown;
  if (typeof key === 'number') {
    throw invalid(
      'CHOKAQ_INVALID_CONCURRENCY_KEY',
      `${field}.concurrencyKey`,
      'a string or a function',
      key,
    );
  }
  if (typeof key !== 'function') checkConcurrencyKey(key, `${field}.concurrencyKey`);
  const limit = checkConcurrencyLimit(
    spec.concurrencyLimit,
    `${field}.concurrencyLimit`,
    'CHOKAQ_INVALID_CONFIG',
  );
  if (limit !== null && key === undefined) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      `${field}.concurrencyLimit`,
      'set with a concurrencyKey',
      limit,
    );
  }
  return {
    concurrencyKey: spec.concurrencyKey,
    concurrencyLimit: limit,
  };
}

/** Whether `value` implements Standard Schema v1 (`~standard.validate`). */
function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const standard = (value as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  return typeof standard?.validate === 'function';
}

/**
 * Validates `value` with a definition's schema and returns the schema's output.
 * @throws ChokaQError `CHOKAQ_PAYLOAD_INVALID` listing the issues.
 */
export async function parsePayload<In, Out>(
  definition: JobDefinition<In, Out>,
  value: unknown,
  field = 'payload',
): Promise<Out> {
  if (!definition.schema) return value as Out;
  const result = await definition.schema['~standard'].validate(value);
  if (result.issues) {
    const issues = result.issues
      .map((issue) => {
        const path = issue.path
          ?.map((p) => (typeof p === 'object' ? String(p.key) : String(p)))
          .join('.');
        return path ? `${path}: ${issue.message}` : issue.message;
      })
      .join('; ');
    throw new ChokaQError(
      'CHOKAQ_PAYLOAD_INVALID',
      `${field} of '${definition.type}' is invalid: ${issues}`,
      { field },
    );
  }
  return result.value;
}
