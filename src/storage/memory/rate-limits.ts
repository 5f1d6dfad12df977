/**
 * Rate buckets of the memory provider: one map per store, on the injected clock. Each call does
 * its work synchronously before its promise settles, so it is atomic like one SQL statement.
 *
 * @internal Reach it through `memory().rateLimits`.
 */
import type { Clock } from '../../util/clock.js';
import { checkInteger } from '../../util/check.js';
import { checkBucket, checkDraw } from '../rate-input.js';
import type { RateBucket, RateDraw, RateGrant, RateLimits } from '../rate-limits.js';

/** The memory {@link RateLimits}. */
export class MemoryRateLimits implements RateLimits {
  private readonly buckets = new Map<string, RateBucket>();

  /** @param clock Source of "now"; the owning store's clock. */
  constructor(private readonly clock: Clock) {}

  /** The bucket `name`, made full at `nowMs` with `limit` per `perMs` when missing. */
  private bucket(name: string, limit: number, perMs: number, nowMs: number): RateBucket {
    let bucket = this.buckets.get(name);
    if (bucket === undefined) {
      bucket = {
        name,
        limit,
        perMs,
        tokens: limit,
        blockedUntil: null,
        grantedTotal: 0,
        throttledTotal: 0,
        updatedAt: new Date(nowMs),
      };
      this.buckets.set(name, bucket);
    }
    return bucket;
  }

  /** {@inheritDoc RateLimits.take} */
  take(draw: RateDraw): Promise<RateGrant> {
    checkDraw(draw);
    const now = Math.max(this.clock.now(), this.buckets.get(draw.name)?.updatedAt.getTime() ?? 0);
    // The same "now" makes a new bucket and draws from it: a later clock reading would date the
    // bucket after the draw and take back a fraction of its first token.
    const bucket = this.bucket(draw.name, draw.limit, draw.perMs, now);
    const elapsed = now - bucket.updatedAt.getTime();
    const refilled = Math.min(draw.limit, bucket.tokens + (elapsed * draw.limit) / draw.perMs);
    const blockedMs = bucket.blockedUntil === null ? 0 : bucket.blockedUntil.getTime() - now;
    const granted = blockedMs > 0 ? 0 : Math.min(draw.count, Math.floor(refilled));
    Object.assign(bucket, {
      limit: draw.limit,
      perMs: draw.perMs,
      tokens: refilled - granted,
      updatedAt: new Date(now),
      grantedTotal: bucket.grantedTotal + granted,
      throttledTotal: bucket.throttledTotal + (granted < draw.count ? 1 : 0),
    });
    const waitMs =
      granted >= draw.count
        ? 0
        : Math.max(blockedMs, ((1 - bucket.tokens) * draw.perMs) / draw.limit);
    return Promise.resolve({ granted, waitMs: Math.max(0, Math.ceil(waitMs)) });
  }

  /** {@inheritDoc RateLimits.block} */
  block(name: string, limit: number, perMs: number, forMs: number): Promise<void> {
    checkBucket(name, limit, perMs);
    const now = this.clock.now();
    const bucket = this.bucket(name, limit, perMs, now);
    const until = now + Math.max(0, forMs);
    if (bucket.blockedUntil === null || bucket.blockedUntil.getTime() < until) {
      bucket.blockedUntil = new Date(until);
    }
    return Promise.resolve();
  }

  /** {@inheritDoc RateLimits.list} */
  list(limit: number): Promise<RateBucket[]> {
    checkInteger(limit, 'limit', { min: 1, max: 1000 }, 'CHOKAQ_INVALID_ARGUMENT');
    const now = this.clock.now();
    const rows = [...this.buckets.values()]
      .sort(
        (a, b) =>
          b.throttledTotal - a.throttledTotal || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
      )
      .slice(0, limit)
      .map((bucket) => ({
        ...bucket,
        blockedUntil:
          bucket.blockedUntil !== null && bucket.blockedUntil.getTime() > now
            ? new Date(bucket.blockedUntil)
            : null,
        updatedAt: new Date(bucket.updatedAt),
      }));
    return Promise.resolve(rows);
  }
}
