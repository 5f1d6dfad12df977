import type { FailureReason } from './state.js';
import { classifyFailure, describeError, limitErrorText } from './classify.js';
import { backoffDelayMs, type RetryPolicy } from './retry.js';

/** What happens to a job whose run failed. */
export type FailureDecision =
  | { kind: 'retry'; delayMs: number; error: string }
  | { kind: 'dead'; reason: FailureReason; error: string };

/** Inputs of {@link decideFailure}. */
export interface FailedRun {
  error: unknown;
  /** Runs so far, the failed one included. */
  attempts: number;
  policy: RetryPolicy;
  /** When the job was first enqueued, ms since the epoch. */
  createdAtMs: number;
  nowMs: number;
  /** Returns a number in [0, 1). Default: `Math.random`. */
  random?: () => number;
}

/**
 * The retry rule as a pure function: fatal → DLQ `Fatal`; attempts used up → DLQ `Throttled` or
 * `Transient`; a retry that would start after `createdAt + maxAge` → DLQ `RetryLifetimeExpired`;
 * otherwise retry after the throttle's retry-after (capped, no jitter) or the backoff.
 */
export function decideFailure(run: FailedRun): FailureDecision {
  const failure = classifyFailure(run.error);
  const text = describeError(run.error);
  if (failure.kind === 'fatal')
    return { kind: 'dead', reason: 'Fatal', error: limitErrorText(`FATAL: ${text}`) };
  if (run.attempts >= run.policy.maxAttempts) {
    return {
      kind: 'dead',
      reason: failure.kind === 'throttled' ? 'Throttled' : 'Transient',
      error: text,
    };
  }
  const delayMs =
    failure.kind === 'throttled' && failure.retryAfterMs !== null
      ? Math.min(failure.retryAfterMs, run.policy.maxDelayMs)
      : backoffDelayMs(run.policy, run.attempts, run.random);
  const { maxAgeMs } = run.policy;
  if (maxAgeMs !== null) {
    const deadline = run.createdAtMs + maxAgeMs;
    if (run.nowMs >= deadline || run.nowMs + delayMs > deadline) {
      const error =
        `Retry lifetime expired: created ${new Date(run.createdAtMs).toISOString()}, ` +
        `next run ${new Date(run.nowMs + delayMs).toISOString()}, maxAge ${maxAgeMs} ms. Last error: ${text}`;
      return { kind: 'dead', reason: 'RetryLifetimeExpired', error: limitErrorText(error) };
    }
  }
  return { kind: 'retry', delayMs, error: text };
}
