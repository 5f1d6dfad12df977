/**
 * The SQL claim: one autocommit statement when no capped queue is wanted (the fast path), else
 * the same statement over every wanted queue in a transaction that first locks the capped
 * queues' rows, so their `maxWorkers` caps are exact and the claim order (priority, run-at, id)
 * holds across capped and uncapped queues alike.
 */
import type { ClaimedJob } from '../model.js';
import type { ClaimRequest } from '../store.js';
import type { BackgroundRefresh } from '../../util/background-refresh.js';
import { uuidv7 } from '../../util/uuid.js';
import type { Executor } from './executor.js';
import { claimedJobOf, type Row } from './rows.js';
import type { BoundQueries } from './schema.js';

/** Claims due pending jobs for `request` (see `Store.claim`). */
export async function claimJobs(
  db: Executor,
  sql: BoundQueries,
  capped: BackgroundRefresh<string[]>,
  request: ClaimRequest,
): Promise<ClaimedJob[]> {
  const queues = request.queues === null ? null : [...request.queues];
  const types = request.types?.map((type) => type.toLowerCase()) ?? null;
  if ((queues !== null && queues.length === 0) || types?.length === 0 || request.limit < 1) {
    return [];
  }
  const startCount = Math.max(0, Math.floor(request.startCount ?? 0));
  const cappedNames = await capped.get();
  const lockCapped =
    queues === null ? cappedNames : cappedNames.filter((name) => queues.includes(name));
  const params = (withCapped: boolean): unknown[] => [
    request.workerId,
    request.limit,
    queues,
    uuidv7(),
    withCapped,
    startCount,
    types,
  ];
  if (lockCapped.length === 0) {
    return (await db.query<Row>(sql.claim, params(false))).map(claimedJobOf);
  }
  const rows = await db.transaction(async (tx) => {
    // Two statements on purpose: see the header of claim_lock_capped_queues.sql.
    await tx.query(sql.claim_lock_capped_queues, [lockCapped]);
    return tx.query<Row>(sql.claim, params(true));
  });
  return rows.map(claimedJobOf);
}
