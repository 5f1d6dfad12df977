/**
 * The SQL claim: one autocommit statement when no capped queue and no queue with concurrency
 * limits is wanted (the fast path), else the same statement over every wanted queue in a
 * transaction that first locks those queues' rows, so their `maxWorkers` caps and key limits are
 * exact and the claim order (priority, turn, run-at, id) holds across queues alike. The statement
 * is claim.sql, or claim_keyed.sql when a wanted queue holds pending keyed jobs.
 */
import type { ClaimedJob } from '../model.js';
import type { ClaimRequest } from '../store.js';
import type { BackgroundRefresh } from '../../util/background-refresh.js';
import { uuidv7 } from '../../util/uuid.js';
import type { Executor } from './executor.js';
import { claimedJobOf, type Row } from './rows.js';
import type { BoundQueries } from './schema.js';

/** The queues a claim must lock first, as capped_queues.sql reads them. */
export interface LockedQueues {
  /** Queues with a `maxWorkers` cap. */
  capped: readonly string[];
  /** Queues holding pending jobs with a concurrency key. */
  keyed: readonly string[];
  /** Queues holding pending jobs with a concurrency limit (locked so the limit is exact). */
  limited: readonly string[];
}

/** Claims due pending jobs for `request` (see `Store.claim`). */
export async function claimJobs(
  db: Executor,
  sql: BoundQueries,
  locked: BackgroundRefresh<LockedQueues>,
  request: ClaimRequest,
): Promise<ClaimedJob[]> {
  const queues = request.queues === null ? null : [...request.queues];
  const types = request.types?.map((type) => type.toLowerCase()) ?? null;
  if ((queues !== null && queues.length === 0) || types?.length === 0 || request.limit < 1) {
    return [];
  }
  const startCount = Math.max(0, Math.floor(request.startCount ?? 0));
  const { capped, keyed, limited } = await locked.get();
  const wanted = (name: string): boolean => queues === null || queues.includes(name);
  const keyedWanted = keyed.filter(wanted);
  const lockLimited = limited.filter(wanted);
  const lockAll = [...new Set([...capped.filter(wanted), ...lockLimited])];
  // Claims that want no keyed queue keep claim.sql's smaller plan; see claim_keyed.sql.
  const statement = keyedWanted.length === 0 ? sql.claim : sql.claim_keyed;
  const params = (withCapped: boolean): unknown[] => {
    const base = [request.workerId, request.limit, queues, uuidv7(), withCapped, startCount, types];
    return keyedWanted.length === 0
      ? base
      : [...base, keyedWanted, withCapped ? lockLimited : null];
  };
  if (lockAll.length === 0) {
    return (await db.query<Row>(statement, params(false))).map(claimedJobOf);
  }
  const rows = await db.transaction(async (tx) => {
    // Two statements on purpose: see the header of claim_lock_capped_queues.sql.
    await tx.query(sql.claim_lock_capped_queues, [lockAll]);
    return tx.query<Row>(statement, params(true));
  });
  return rows.map(claimedJobOf);
}
