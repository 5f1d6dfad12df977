/**
 * A job type's rate limit (`defineJob({ rateLimit })`): its checks, and the bucket a job draws
 * from.
 */
import { checkInteger, checkOptions, invalid, isPlainObject } from '../util/check.js';
import { MAX_DURATION_MS, toMs, type Duration } from '../util/duration.js';
import { checkConcurrencyKey, type ConcurrencyKeyOption } from './concurrency.js';

/** Longest bucket name: the size of the stores' column. */
export const MAX_BUCKET_NAME = 255;

/** Largest limit of a rate bucket. */
export const MAX_RATE_LIMIT = 1_000_000;

/** The `rateLimit` field of `defineJob`. */
export interface RateLimitOptions<P> {
  /** Starts allowed per `per`, across every process (1–1,000,000); also the burst. */
  limit: number;
  /** The interval, for example `'1s'` or `'1m'` (1 ms – 100 years). */
  per: Duration;
  /**
   * The bucket the job draws from: one name, or a function of the payload as enqueued (a string
   * of at most 255 characters or an integer; `null` or `undefined` for the type's bucket). Buckets
   * are shared by name: job types that name the same bucket share its rate (a queue-wide limit).
   * Default: the job type key, so the whole type shares one bucket.
   */
  key?: ConcurrencyKeyOption<P>;
}

/** A checked rate limit. */
export interface RateLimit {
  limit: number;
  perMs: number;
  /** The bucket name or its function; `undefined`: the job type. */
  key: ConcurrencyKeyOption<unknown> | undefined;
}

/**
 * Checks a definition's `rateLimit`.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` or `CHOKAQ_UNKNOWN_OPTION` naming the field, or
 *   `CHOKAQ_INVALID_DURATION` for `per`.
 */
export function checkRateLimit(value: unknown, field: string): RateLimit | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw invalid('CHOKAQ_INVALID_CONFIG', field, 'an object', value);
  const options = checkOptions(value as Partial<RateLimitOptions<unknown>>, field, [
    'limit',
    'per',
    'key',
  ]);
  const limit = checkInteger(options.limit, `${field}.limit`, { min: 1, max: MAX_RATE_LIMIT });
  if (options.per === undefined)
    throw invalid('CHOKAQ_INVALID_CONFIG', `${field}.per`, 'a duration', undefined);
  const perMs = toMs(options.per, `${field}.per`, { min: 1, max: MAX_DURATION_MS });
  const key = options.key as unknown;
  if (typeof key === 'string') {
    if (key.trim() === '' || key.length > MAX_BUCKET_NAME) {
      throw invalid(
        'CHOKAQ_INVALID_CONFIG',
        `${field}.key`,
        `a non-blank string of at most ${MAX_BUCKET_NAME} characters, or a function`,
        key,
      );
    }
  } else if (key !== undefined && typeof key !== 'function') {
    throw invalid('CHOKAQ_INVALID_CONFIG', `${field}.key`, 'a string or a function', key);
  }
  return { limit, perMs, key: options.key };
}

/**
 * The bucket a job of type `type` with `payload` (as enqueued) draws from under `rate`.
 * @throws ChokaQError `CHOKAQ_INVALID_CONCURRENCY_KEY` when the key function gives a bad key.
 */
export function bucketOf(rate: RateLimit, type: string, payload: unknown, field: string): string {
  const { key } = rate;
  if (key === undefined) return type;
  if (typeof key === 'string') return key;
  return (
    checkConcurrencyKey(key(payload), `${field} (from the definition's rateLimit.key)`) ?? type
  );
}
