/**
 * The SQL claim: claim_keyed.sql when a wanted queue holds keyed jobs, else claim_capped.sql when
 * one is capped, else claim.sql; each one autocommit statement. Caps (`maxWorkers`) and key
 * limits are exact across processes: the statement locks the capped or limited queues' rows
 * itself and claims them only when no claim of theirs committed since its snapshot; when one did
 * (another process claimed at the same moment) it says `stale`. A stale claim of capped queues
 * is tried alone once more (the other claim has committed by then); after that, or after a stale
 * keyed claim, the rest is claimed in a transaction that first locks the queues' rows in a
 * statement of its own (claim_lock_capped_queues.sql), so the claim's snapshot is fresh. A claim
 * that wants capped queues and keyed queues together always takes that transaction. The claim
 * order (priority, turn, run-at, id) holds across queues alike.
 */
import type { ClaimedJob } from '../model.js';
import type { ClaimRequest } from '../job-store.js';
import type { BackgroundRefresh } from '../../util/background-refresh.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { uuidv7 } from '../../util/uuid.js';
import type { Executor } from './executor.js';
import { toDate, toNumber, toStr } from './rows.js';
import * as run from './statements.js';
import type { ClaimParams, ClaimRow } from './statements.js';
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

/**
 * How many times a claim of capped queues (without keyed ones) runs alone while it comes back
 * stale, before the rest is claimed in the transaction. A stale try lost the queue's row to a
 * claim that has committed since, so the next try alone is usually fresh.
 */
export const CAPPED_TRIES_ALONE = 2;

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

/**
 * Claims due pending jobs for `request` (see `JobStore.claim`); `now` is the time the claim
 * reads (`null`: the database's).
 */
export async function claimJobs(
  db: Executor,
  sql: BoundQueries,
  locked: BackgroundRefresh<LockedQueues>,
  request: ClaimRequest,
  contention: ClaimContention,
  now: Date | null,
): Promise<ClaimedJob[]> {
  const queues = request.queues === null ? null : [...request.queues];
  const types = request.types?.map((type) => type.toLowerCase()) ?? null;
  if ((queues !== null && queues.length === 0) || types?.length === 0 || request.limit < 1) {
    return [];
  }
  const { capped, keyed, limited } = await locked.get();
  const wanted = (name: string): boolean => queues === null || queues.includes(name);
  const keyedWanted = keyed.filter(wanted);
  const cappedWanted = capped.filter(wanted);
  const lockLimited = limited.filter(wanted);
  const lockAll = [...new Set([...cappedWanted, ...lockLimited])];
  // Claims that want neither keep claim.sql's smaller plan; see claim_keyed.sql, claim_capped.sql.
  const send = async (on: Executor, limit: number, inLock: boolean): Promise<Claimed> => {
    const params = {
      workerId: request.workerId,
      limit,
      queues,
      leaseToken: uuidv7(),
      withCapped: inLock,
      types,
      now,
    };
    return claimedOf(await statement(on, params), params.workerId, params.leaseToken);
  };
  const statement = (on: Executor, params: ClaimParams): Promise<ClaimRow[]> => {
    if (keyedWanted.length > 0) {
      return run.claimKeyed(on, sql, {
        ...params,
        keyedQueues: keyedWanted,
        // In the transaction every queue it locked is named, so claims of capped ones count too.
        limitedQueues: orNull(params.withCapped ? lockAll : lockLimited),
      });
    }
    if (cappedWanted.length > 0) {
      return run.claimCapped(on, sql, { ...params, cappedQueues: cappedWanted });
    }
    return run.claim(on, sql, params);
  };
  const claimed: ClaimedJob[] = [];
  const inTransaction = async (): Promise<ClaimedJob[]> => {
    const result = await db.transaction(async (tx) => {
      // Two statements on purpose: see the header of claim_lock_capped_queues.sql.
      await run.claimLockCappedQueues(tx, sql, { queues: lockAll });
      return send(tx, request.limit - claimed.length, true);
    });
    return [...claimed, ...result.jobs];
  };
  if (
    (cappedWanted.length > 0 && keyedWanted.length > 0) ||
    (lockLimited.length > 0 && contention.recent)
  ) {
    return inTransaction();
  }
  for (let tries = keyedWanted.length === 0 ? CAPPED_TRIES_ALONE : 1; tries > 0; tries--) {
    const limit = request.limit - claimed.length;
    const result = await send(db, limit, false);
    claimed.push(...result.jobs);
    if (!result.stale || claimed.length >= request.limit) return claimed;
  }
  if (keyedWanted.length > 0) contention.stale();
  return inTransaction();
}

/** `names`, or `null` when empty (the statements read NULL as none). */
function orNull(names: readonly string[]): readonly string[] | null {
  return names.length === 0 ? null : names;
}

/** A claim's jobs and whether it should be made again (see claim_keyed.sql). */
interface Claimed {
  jobs: ClaimedJob[];
  stale: boolean;
}

/**
 * The jobs of a claim's rows (a row with a NULL id only carries the flag) and its `stale` flag.
 * Every job is fetched under the claim's worker id and lease token, which the rows do not repeat.
 */
function claimedOf(rows: readonly ClaimRow[], workerId: string, leaseToken: string): Claimed {
  const jobs: ClaimedJob[] = [];
  for (const row of rows) {
    if (row.id === null) continue;
    jobs.push({
      id: row.id,
      queue: toStr(row.queue),
      type: toStr(row.type),
      payload: row.payload ?? '',
      state: 'fetched',
      attempts: toNumber(row.attempts),
      workerId,
      leaseToken,
      runAt: toDate(row.run_at),
      createdAt: toDate(row.created_at),
      traceParent: row.trace_parent,
      hasDependents: row.has_dependents === true,
    });
  }
  return { jobs, stale: rows[0]?.stale === true };
}
