import { toMs, type Duration } from '../util/duration.js';

/**
 * Throw from a handler to fail the job at once: it goes to the dead-letter queue with reason
 * `Fatal` and is never retried. Use it for input that will never succeed.
 */
export class FatalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FatalError';
  }
}

/**
 * Throw from a handler when a dependency asks you to slow down (HTTP 429 and friends). The job is
 * retried after `retryAfter` (capped by the retry policy's `maxDelay`, no jitter) or, without it,
 * after the normal backoff. When attempts run out it lands in the DLQ with reason `Throttled`.
 */
export class ThrottledError extends Error {
  /** Delay in ms before the next attempt, or `null` to use the normal backoff. Default: `null`. */
  readonly retryAfterMs: number | null;

  constructor(message: string, options?: { retryAfter?: Duration; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ThrottledError';
    this.retryAfterMs =
      options?.retryAfter === undefined ? null : toMs(options.retryAfter, 'retryAfter');
  }
}

/**
 * Throw from a handler when a dependency says "rate limited until T" (HTTP 429 with
 * `Retry-After`). The job goes back to pending without using an attempt (the run counts as lost,
 * like one interrupted by a shutdown) and runs again after the wait; when its type has a
 * `rateLimit`, the job's bucket is blocked for the wait, so no process starts a job of that
 * bucket before it ends.
 */
export class RateLimitedError extends Error {
  /**
   * The wait in ms: until `until` (from this machine's clock when the error was made), else
   * `retryAfter`. Default: 1000 (one second).
   */
  readonly retryAfterMs: number;
  /** The time the wait ends, when given; the engine measures it with its own clock. */
  readonly until: Date | undefined;

  constructor(message: string, options?: { until?: Date; retryAfter?: Duration; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RateLimitedError';
    const until = options?.until;
    this.until = until instanceof Date && !Number.isNaN(until.getTime()) ? until : undefined;
    this.retryAfterMs =
      this.until !== undefined
        ? Math.max(0, this.until.getTime() - Date.now())
        : options?.retryAfter === undefined
          ? 1000
          : toMs(options.retryAfter, 'retryAfter');
  }

  /** The wait in ms at `nowMs`: until `until` when given, else `retryAfterMs`. */
  waitMs(nowMs: number): number {
    return this.until === undefined ? this.retryAfterMs : Math.max(0, this.until.getTime() - nowMs);
  }
}
