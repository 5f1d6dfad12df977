import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ChokaQError } from '../errors.js';
import {
  checkFunction,
  checkInteger,
  checkOptions,
  invalid,
  isPlainObject,
} from '../util/check.js';
import type { Logger } from '../observability/logger.js';
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

/** What a handler (and middleware) receives besides the payload. */
export interface JobContext {
  /** Job id. */
  readonly id: string;
  /** Stable type key. */
  readonly type: string;
  readonly queue: string;
  /** 1 for the first run, 2 for the first retry, … */
  readonly attempt: number;
  /** When the job was enqueued. */
  readonly createdAt: Date;
  /** Fires when the run must stop (shutdown, timeout, cancellation). */
  readonly signal: AbortSignal;
  /**
   * Reports progress 0–100 (clamped) to `job:progress` listeners; the last value is stored with
   * the job at its next heartbeat, so operators see it in the job's detail.
   */
  progress(percent: number): Promise<void>;
  /** Logger scoped to this job. */
  readonly log: Logger;
  /**
   * Marks the run as skipped on purpose (for example a duplicate): when the run then ends without
   * error, the job is archived with this note and a `job:skipped` event is emitted.
   */
  skip(reason: string): void;
}

/**
 * A handler for one job type. Return to succeed; throw to fail (see `classifyFailure`). What it
 * returns is kept with the archived job as JSON (up to 64 KiB; larger or unserialisable results
 * are dropped with a warning).
 */
export type JobHandler<P> = (payload: P, ctx: JobContext) => unknown;

/** The fields of {@link defineJob}. */
export interface JobSpec<P> {
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
  handle: JobHandler<P>;
}

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
  readonly handle: JobHandler<Out>;
}

/**
 * Defines a job type. With `payload` (any Standard Schema: zod, valibot, arktype…) payloads are
 * validated when enqueued and again before the handler runs, and the handler's payload is typed
 * from the schema. Without it, name the payload type: `defineJob<{ to: string }>({ … })`.
 * @throws ChokaQError `CHOKAQ_INVALID_JOB_TYPE`, `CHOKAQ_INVALID_QUEUE`, `CHOKAQ_INVALID_PRIORITY`,
 *   `CHOKAQ_INVALID_DURATION`, `CHOKAQ_INVALID_CONCURRENCY_KEY` or `CHOKAQ_INVALID_CONFIG` (retry,
 *   concurrency or rate settings, unknown fields).
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
  checkFunction(spec.handle, `${field}.handle`);
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
    circuit: spec.circuit,
    schema: spec.payload,
    handle: spec.handle,
  });
}

const SPEC_KEYS = [
  'type',
  'queue',
  'priority',
  'retry',
  'timeout',
  'retryZombies',
  'circuit',
  'concurrencyKey',
  'concurrencyLimit',
  'rateLimit',
  'payload',
  'handle',
] as const;

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
