/**
 * The SQL claim. Without capped queues and queues with key limits it is one autocommit statement
 * (claim.sql, or claim_keyed.sql when a wanted queue holds pending keyed jobs). Key limits are
 * exact across processes: claim_keyed.sql locks the limited queues' rows itself and claims their
 * limited keys only when no claim of theirs committed since its snapshot; when one did (another
 * process claimed at the same moment) it says `stale`, and the rest is claimed in a transaction
 * that first locks the queues' rows in a statement of its own (claim_lock_capped_queues.sql), so
 * the claim's snapshot is fresh. Capped queues (`maxWorkers`) always take that transaction. The
 * claim order (priority, turn, run-at, id) holds across queues alike.
 */
import type { ClaimedJob } from '../model.js';
import type { ClaimRequest } from '../store.js';
import type { BackgroundRefresh } from '../../util/background-refresh.js';
import { systemClock, type Clock } from '../../util/clock.js';
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

/**
 * How long, in ms, a store claims limited queues through the transaction after one of its
 * one-statement claims came back stale: while other processes claim the same queues, the
 * transaction waits for the lock once, where a stale statement is claimed twice.
 */
export const STALE_BACKOFF_MS = 1000;

/** Per store: whether claims of limited queues go straight to the transaction for now. */
export class ClaimContention {
  private until = 0;

  /** @param clock Default: the system clock. */
  constructor(private readonly clock: Clock = systemClock) {}

  /** Whether a one-statement claim came back stale less than {@link STALE_BACKOFF_MS} ago. */
  get recent(): boolean {
    return this.clock.now() < this.until;
  }

  /** Records a stale one-statement claim. */
  stale(): void {
    this.until = this.clock.now() + STALE_BACKOFF_MS;
  }
}

/** Claims due pending jobs for `request` (see `Store.claim`). */
export async function claimJobs(
  db: Executor,
  sql: BoundQueries,
  locked: BackgroundRefresh<LockedQueues>,
  request: ClaimRequest,
  contention: ClaimContention,
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
  const cappedWanted = capped.filter(wanted);
  const lockLimited = limited.filter(wanted);
  // Claims that want no keyed queue keep claim.sql's smaller plan; see claim_keyed.sql.
  const statement = keyedWanted.length === 0 ? sql.claim : sql.claim_keyed;
  const params = (limit: number, starts: number, withCapped: boolean): unknown[] => {
    const base = [request.workerId, limit, queues, uuidv7(), withCapped, starts, types];
    return keyedWanted.length === 0
      ? base
      : [...base, keyedWanted, lockLimited.length === 0 ? null : lockLimited];
  };
  const inTransaction = async (limit: number, starts: number): Promise<ClaimedJob[]> => {
    const lockAll = [...new Set([...cappedWanted, ...lockLimited])];
    const rows = await db.transaction(async (tx) => {
      // Two statements on purpose: see the header of claim_lock_capped_queues.sql.
      await tx.query(sql.claim_lock_capped_queues, [lockAll]);
      return tx.query<Row>(statement, params(limit, starts, true));
    });
    return claimedOf(rows).jobs;
  };
  if (cappedWanted.length > 0 || (lockLimited.length > 0 && contention.recent)) {
    return inTransaction(request.limit, startCount);
  }
  const first = claimedOf(await db.query<Row>(statement, params(request.limit, startCount, false)));
  if (!first.stale || first.jobs.length >= request.limit) return first.jobs;
  contention.stale();
  const started = first.jobs.filter((job) => job.state === 'processing').length;
  const rest = await inTransaction(
    request.limit - first.jobs.length,
    Math.max(0, startCount - started),
  );
  return [...first.jobs, ...rest];
}

/** The jobs of a claim's rows (a row with a NULL id only carries the flag) and its `stale` flag. */
function claimedOf(rows: readonly Row[]): { jobs: ClaimedJob[]; stale: boolean } {
  const jobs: ClaimedJob[] = [];
  for (const row of rows) if (row.id !== null) jobs.push(claimedJobOf(row));
  return { jobs, stale: rows[0]?.stale === true };
}
