import { checkInteger, checkOptions, invalid } from '../util/check.js';
import { toMs, type Duration } from '../util/duration.js';

/** Retry settings as a user writes them (on a job definition or as the ChokaQ default). */
export interface RetryOptions {
  /** Total runs including the first (1–1,000,000). Default: `3`. */
  maxAttempts?: number;
  /** Delay after the first failed run (1 ms to 24.8 days). Default: `'3s'`. */
  baseDelay?: Duration;
  /** Growth factor per further failed run (1–1000). Default: `2`. */
  multiplier?: number;
  /** Cap on any delay, jitter and retry-after included (at least `baseDelay`, at most 24.8 days). Default: `'1h'`. */
  maxDelay?: Duration;
  /** Largest random amount added to a backoff delay (clipped to `maxDelay`; 0 to 24.8 days). Default: `'1s'`. */
  jitter?: Duration;
  /**
   * Retry budget from the job's creation: a retry that would start later goes to the DLQ with
   * reason `RetryLifetimeExpired`. `null` disables it. Default: `'1d'`.
   */
  maxAge?: Duration | null;
}

/** Retry settings resolved to milliseconds. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly multiplier: number;
  readonly maxDelayMs: number;
  readonly jitterMs: number;
  readonly maxAgeMs: number | null;
}

/** The defaults listed on {@link RetryOptions}. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 3000,
  multiplier: 2,
  maxDelayMs: 3_600_000,
  jitterMs: 1000,
  maxAgeMs: 86_400_000,
};

/** The names of {@link RetryOptions}, for the unknown-name check wherever they are taken. */
export const RETRY_KEYS = [
  'maxAttempts',
  'baseDelay',
  'multiplier',
  'maxDelay',
  'jitter',
  'maxAge',
] as const satisfies readonly (keyof RetryOptions)[];

/** Largest `maxDelay` (about 24.8 days). */
const MAX_RETRY_DELAY_MS = 2_147_483_647;

/**
 * Resolves user options on top of `base` and checks them; `field` names them in errors.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG`, `CHOKAQ_UNKNOWN_OPTION` or
 *   `CHOKAQ_INVALID_DURATION` naming the offending option.
 */
export function resolveRetryPolicy(
  options: RetryOptions | undefined,
  base: RetryPolicy = DEFAULT_RETRY_POLICY,
  field = 'retry',
): RetryPolicy {
  const given = checkOptions(options, field, RETRY_KEYS);
  const ms = (value: Duration | undefined, name: keyof RetryOptions, fallback: number, min = 1) =>
    value === undefined
      ? fallback
      : toMs(value, `${field}.${name}`, { min, max: MAX_RETRY_DELAY_MS });
  const policy: RetryPolicy = {
    maxAttempts:
      given.maxAttempts === undefined
        ? base.maxAttempts
        : checkInteger(given.maxAttempts, `${field}.maxAttempts`, { min: 1, max: 1_000_000 }),
    baseDelayMs: ms(given.baseDelay, 'baseDelay', base.baseDelayMs),
    multiplier:
      given.multiplier === undefined ? base.multiplier : checkMultiplier(given.multiplier, field),
    maxDelayMs: ms(given.maxDelay, 'maxDelay', base.maxDelayMs),
    jitterMs: ms(given.jitter, 'jitter', base.jitterMs, 0),
    maxAgeMs:
      given.maxAge === undefined
        ? base.maxAgeMs
        : given.maxAge === null
          ? null
          : toMs(given.maxAge, `${field}.maxAge`, { min: 1 }),
  };
  if (policy.maxDelayMs < policy.baseDelayMs) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      `${field}.maxDelay`,
      `at least baseDelay (${policy.baseDelayMs} ms)`,
      given.maxDelay ?? policy.maxDelayMs,
    );
  }
  return policy;
}

function checkMultiplier(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1 || value > 1000) {
    throw invalid('CHOKAQ_INVALID_CONFIG', `${field}.multiplier`, 'a number from 1 to 1000', value);
  }
  return value;
}

/**
 * Delay before the next run after the `failedRuns`-th failed run (1-based):
 * `min(base × multiplier^(failedRuns−1), maxDelay)` plus jitter in `[0, min(jitter, maxDelay − capped))`.
 * With the defaults and no jitter: 3 s, 6 s, 12 s, … capped at 1 h.
 * @param random Returns a number in [0, 1). Default: `Math.random`.
 */
export function backoffDelayMs(
  policy: RetryPolicy,
  failedRuns: number,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, failedRuns - 1);
  const capped = Math.min(policy.baseDelayMs * policy.multiplier ** exponent, policy.maxDelayMs);
  const jitterRoom = Math.min(policy.jitterMs, policy.maxDelayMs - capped);
  return Math.round(capped + (jitterRoom > 0 ? random() * jitterRoom : 0));
}
