import { ChokaQError } from '../errors.js';
import { toMs, type Duration } from '../util/duration.js';

/** Retry settings as a user writes them (on a job definition or as the ChokaQ default). */
export interface RetryOptions {
  /** Total runs including the first. Default: `3`. */
  maxAttempts?: number;
  /** Delay after the first failed run. Default: `'3s'`. */
  baseDelay?: Duration;
  /** Growth factor per further failed run. Default: `2`. */
  multiplier?: number;
  /** Cap on any delay, jitter and retry-after included. Default: `'1h'`. */
  maxDelay?: Duration;
  /** Largest random amount added to a backoff delay (clipped to `maxDelay`). Default: `'1s'`. */
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

/**
 * Resolves user options on top of `base` and validates them.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` naming the offending option, or
 *   `CHOKAQ_INVALID_DURATION` for an unparseable duration.
 */
export function resolveRetryPolicy(
  options: RetryOptions | undefined,
  base: RetryPolicy = DEFAULT_RETRY_POLICY,
): RetryPolicy {
  const policy: RetryPolicy = {
    maxAttempts: options?.maxAttempts ?? base.maxAttempts,
    baseDelayMs:
      options?.baseDelay === undefined
        ? base.baseDelayMs
        : toMs(options.baseDelay, 'retry.baseDelay'),
    multiplier: options?.multiplier ?? base.multiplier,
    maxDelayMs:
      options?.maxDelay === undefined ? base.maxDelayMs : toMs(options.maxDelay, 'retry.maxDelay'),
    jitterMs: options?.jitter === undefined ? base.jitterMs : toMs(options.jitter, 'retry.jitter'),
    maxAgeMs:
      options?.maxAge === undefined
        ? base.maxAgeMs
        : options.maxAge === null
          ? null
          : toMs(options.maxAge, 'retry.maxAge'),
  };
  const problems: string[] = [];
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1)
    problems.push('retry.maxAttempts must be an integer ≥ 1');
  if (!(policy.multiplier >= 1)) problems.push('retry.multiplier must be ≥ 1');
  if (policy.baseDelayMs <= 0) problems.push('retry.baseDelay must be > 0');
  if (policy.maxDelayMs < policy.baseDelayMs)
    problems.push('retry.maxDelay must be ≥ retry.baseDelay');
  if (policy.maxDelayMs > 2_147_483_647) problems.push('retry.maxDelay must be ≤ 2147483647 ms');
  if (policy.maxAgeMs !== null && policy.maxAgeMs <= 0)
    problems.push('retry.maxAge must be > 0 or null');
  if (problems.length > 0) throw new ChokaQError('CHOKAQ_INVALID_CONFIG', problems.join('; '));
  return policy;
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
