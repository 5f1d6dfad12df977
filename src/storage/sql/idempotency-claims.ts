/**
 * Idempotency claims over SQL (SPEC F98, §4.8), in the `idempotency_claims` table of the store's
 * schema (migration 0003). Every method is one statement, except a `begin` that finds the key
 * taken: it then reads the live row with a second statement (a fresh snapshot, so it sees the
 * row a concurrent claimer just committed).
 *
 * @internal Reach it through `SqlStore.idempotencyClaims`.
 */
import { checkClaimKey, checkClaimTtl } from '../claim-input.js';
import type { ClaimBegin, IdempotencyClaims } from '../idempotency.js';
import type { Executor } from './executor.js';
import type { QueryName } from './generated.js';
import { toDate, toNumber } from './rows.js';
import * as run from './statements.js';

/** The statements {@link SqlIdempotencyClaims} runs, bound to the store's schema. */
export type IdempotencyStatements = Pick<
  Readonly<Record<QueryName, string>>,
  | 'idempotency_begin'
  | 'idempotency_get'
  | 'idempotency_complete'
  | 'idempotency_release'
  | 'idempotency_purge'
>;

/**
 * How many times `begin` retries when the row that blocked its claim is gone (released or
 * expired) before it could be read.
 * @default 5
 */
export const BEGIN_ATTEMPTS = 5;

/** The SQL {@link IdempotencyClaims}; expiry follows the database clock. */
export class SqlIdempotencyClaims implements IdempotencyClaims {
  private readonly db: () => Promise<Executor>;
  private readonly sql: IdempotencyStatements;
  private readonly now: () => Date | null;

  /**
   * @param db Returns the store's open executor (opening the store on first use).
   * @param sql The statements, bound to the store's schema.
   * @param now The time statements read, `null` for the database's (`SqlContext.now`).
   */
  constructor(db: () => Promise<Executor>, sql: IdempotencyStatements, now: () => Date | null) {
    this.db = db;
    this.sql = sql;
    this.now = now;
  }

  /** {@inheritDoc IdempotencyClaims.begin} */
  async begin(key: string, jobId: string, inProgressTtlMs: number): Promise<ClaimBegin> {
    checkClaimKey(key);
    checkClaimTtl(inProgressTtlMs, 'inProgressTtlMs');
    const db = await this.db();
    for (let attempt = 1; ; attempt++) {
      const claimed = await run.idempotencyBegin(db, this.sql, {
        key,
        jobId,
        ttlMs: inProgressTtlMs,
        now: this.now(),
      });
      if (claimed.length > 0) return { status: 'claimed' };
      const [live] = await run.idempotencyGet(db, this.sql, { key, now: this.now() });
      if (live !== undefined) {
        const holder = live.job_id;
        return live.state === 1
          ? { status: 'completed', jobId: holder, completedAt: toDate(live.updated_at) }
          : { status: 'in-progress', jobId: holder };
      }
      // The blocking row was released or expired between the two statements: claim again.
      if (attempt >= BEGIN_ATTEMPTS) {
        throw new Error(`idempotency key ${JSON.stringify(key)} kept changing while claiming it`);
      }
    }
  }

  /** {@inheritDoc IdempotencyClaims.complete} */
  async complete(key: string, jobId: string, resultTtlMs: number | null): Promise<boolean> {
    if (resultTtlMs !== null) checkClaimTtl(resultTtlMs, 'resultTtlMs');
    const db = await this.db();
    const rows = await run.idempotencyComplete(db, this.sql, {
      key,
      jobId,
      ttlMs: resultTtlMs,
      now: this.now(),
    });
    return rows.length > 0;
  }

  /** {@inheritDoc IdempotencyClaims.release} */
  async release(key: string, jobId: string): Promise<boolean> {
    const db = await this.db();
    const rows = await run.idempotencyRelease(db, this.sql, { key, jobId, now: this.now() });
    return rows.length > 0;
  }

  /** {@inheritDoc IdempotencyClaims.purgeExpired} */
  async purgeExpired(): Promise<number> {
    const db = await this.db();
    const [row] = await run.idempotencyPurge(db, this.sql, { now: this.now() });
    return toNumber(row?.deleted);
  }
}
