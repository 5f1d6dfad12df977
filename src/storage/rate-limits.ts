/**
 * Rate buckets behind `defineJob({ rateLimit })`: token buckets kept in the store's database, so
 * every process sharing it draws from the same buckets. Every provider offers one through
 * `Store.rateLimits`.
 */

/** A draw of tokens from one bucket. */
export interface RateDraw {
  /** The bucket: the rate limit's key, or the job type when it has none (≤ 255 characters). */
  name: string;
  /** Starts allowed per interval; also the bucket's size (the burst). */
  limit: number;
  /** The interval in ms. */
  perMs: number;
  /** Tokens wanted (jobs about to start); at least 1. */
  count: number;
}

/** What a draw got. */
export interface RateGrant {
  /** Tokens granted, 0 to `count`: that many jobs may start now. */
  granted: number;
  /** When none (or not all) were granted: ms until the next token, or until the block ends. */
  waitMs: number;
}

/** One bucket as stored, for operators. */
export interface RateBucket {
  name: string;
  limit: number;
  perMs: number;
  /** Tokens left at the last draw (refilled since, up to `limit`). */
  tokens: number;
  /** Until when a handler's `RateLimitedError` blocks the bucket; `null` when not blocked. */
  blockedUntil: Date | null;
  /** Starts granted since the bucket was made. */
  grantedTotal: number;
  /** Draws refused (throttled starts) since the bucket was made. */
  throttledTotal: number;
  /** When a draw last touched the bucket. */
  updatedAt: Date;
}

/** Token buckets shared by every process of one store. */
export interface RateLimits {
  /**
   * Takes up to `count` tokens, refilling at `limit` per `perMs` (a new bucket starts full), none
   * while the bucket is blocked. Atomic across processes. The bucket's limit and interval become
   * the draw's.
   */
  take(draw: RateDraw): Promise<RateGrant>;
  /**
   * Blocks the bucket `name` for `forMs` from now (store clock), for every process: draws get
   * nothing until then. A longer block already in place stays. Makes the bucket if missing, with
   * `limit` per `perMs`.
   */
  block(name: string, limit: number, perMs: number, forMs: number): Promise<void>;
  /** The buckets, most throttled first, at most `limit` (1–1000). */
  list(limit: number): Promise<RateBucket[]>;
}
