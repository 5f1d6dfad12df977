/**
 * The idempotency claim store behind the `idempotency()` middleware. Every storage provider
 * offers one over its own database through `idempotencyClaims()`: the public door to it.
 */

/** Result of {@link IdempotencyClaims.begin}. */
export type ClaimBegin =
  | { status: 'claimed' }
  | { status: 'completed'; jobId: string; completedAt: Date }
  | { status: 'in-progress'; jobId: string };

/**
 * Per-key claims behind the idempotency middleware: at most one job runs the side effects of a
 * key at a time, and a completed key is remembered for its result TTL. Expired entries behave as
 * absent.
 */
export interface IdempotencyClaims {
  /** Claims `key` for `jobId` for `inProgressTtlMs`, unless a live claim or completion exists. */
  begin(key: string, jobId: string, inProgressTtlMs: number): Promise<ClaimBegin>;
  /** Marks the owner's in-progress claim completed for `resultTtlMs` (`null` = forever). `false` when not the owner. */
  complete(key: string, jobId: string, resultTtlMs: number | null): Promise<boolean>;
  /** Drops the owner's in-progress claim (the run failed). `false` when not the owner. */
  release(key: string, jobId: string): Promise<boolean>;
  /** Deletes expired entries; returns how many. */
  purgeExpired(): Promise<number>;
}
