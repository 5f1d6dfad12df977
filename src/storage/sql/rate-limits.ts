/**
 * Rate buckets over SQL, in the `rate_buckets` table of the store's schema (migration 0015):
 * each call is one statement, on the database clock.
 *
 * @internal Reach it through `SqlStore.rateLimits`.
 */
import { checkBucket, checkDraw } from '../rate-input.js';
import type { RateBucket, RateDraw, RateGrant, RateLimits } from '../rate-limits.js';
import { checkInteger } from '../../util/check.js';
import type { Executor } from './executor.js';
import type { QueryName } from './generated.js';
import { toDate, toDateOrNull, toNumber } from './rows.js';
import * as run from './statements.js';

/** The statements {@link SqlRateLimits} runs, bound to the store's schema. */
export type RateStatements = Pick<
  Readonly<Record<QueryName, string>>,
  'rate_take' | 'rate_block' | 'rate_list'
>;

/** The SQL {@link RateLimits}. */
export class SqlRateLimits implements RateLimits {
  /**
   * @param db Returns the store's open executor (opening the store on first use).
   * @param sql The statements, bound to the store's schema.
   * @param now The time statements read, `null` for the database's (`SqlContext.now`).
   */
  constructor(
    private readonly db: () => Promise<Executor>,
    private readonly sql: RateStatements,
    private readonly now: () => Date | null,
  ) {}

  /** {@inheritDoc RateLimits.take} */
  async take(draw: RateDraw): Promise<RateGrant> {
    checkDraw(draw);
    const db = await this.db();
    const [row] = await run.rateTake(db, this.sql, {
      name: draw.name,
      limit: draw.limit,
      perMs: draw.perMs,
      count: draw.count,
      now: this.now(),
    });
    if (row === undefined) throw new Error('rate_take returned no row');
    return {
      granted: row.granted,
      waitMs: Math.max(0, Math.ceil(toNumber(row.wait_ms))),
    };
  }

  /** {@inheritDoc RateLimits.block} */
  async block(name: string, limit: number, perMs: number, forMs: number): Promise<void> {
    checkBucket(name, limit, perMs);
    const db = await this.db();
    await run.rateBlock(db, this.sql, {
      name,
      limit,
      perMs,
      forMs: Math.max(0, forMs),
      now: this.now(),
    });
  }

  /** {@inheritDoc RateLimits.list} */
  async list(limit: number): Promise<RateBucket[]> {
    checkInteger(limit, 'limit', { min: 1, max: 1000 }, 'CHOKAQ_INVALID_ARGUMENT');
    const db = await this.db();
    const rows = await run.rateList(db, this.sql, { limit, now: this.now() });
    return rows.map((row) => ({
      name: row.name,
      limit: row.rate_limit,
      perMs: toNumber(row.per_ms),
      tokens: row.tokens,
      blockedUntil: toDateOrNull(row.blocked_until),
      grantedTotal: toNumber(row.granted_total),
      throttledTotal: toNumber(row.throttled_total),
      updatedAt: toDate(row.refilled_at),
    }));
  }
}
