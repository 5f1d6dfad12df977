/**
 * The hand-off of freed capped slots to the settling worker (`JobStore.settleAndClaim`): which
 * queues a settle may take from, the parameters of settle_archive_claim.sql, and what its rows
 * say. The statement itself explains why caps stay exact.
 */
import type { ClaimedJob } from '../model.js';
import type { HandoffRequest } from '../job-store.js';
import { uuidv7 } from '../../util/uuid.js';
import type { LockedQueues } from './claim.js';
import { claimedJobOf } from './rows.js';
import type {
  SettleArchiveClaimParams,
  SettleArchiveClaimRow,
  SettleArchiveParams,
} from './statements.js';

/** What settle_archive_claim.sql returned. */
export interface HandoffRows {
  /** Archived job id → its queue. */
  moved: Map<string, string>;
  /** The archived jobs that others depend on. */
  dependents: string[];
  /** Jobs started for the worker, in claim order. */
  started: ClaimedJob[];
  /** Queues whose freed room was all taken by the worker: nobody else need be woken. */
  filled: Set<string>;
}

/**
 * The capped queues `handoff` may take from: those the worker serves, less any holding keyed
 * (or limited) jobs, whose claims take turns that only the claim statements follow.
 */
export function handoffQueues(locked: LockedQueues, handoff: HandoffRequest): string[] {
  const served = handoff.queues === null ? null : new Set(handoff.queues);
  return locked.capped.filter(
    (queue) =>
      (served === null || served.has(queue)) &&
      !locked.keyed.includes(queue) &&
      !locked.limited.includes(queue),
  );
}

/** The parameters of settle_archive_claim.sql: the archive's, then the hand-off's ($8–$12). */
export function handoffParams(
  archive: SettleArchiveParams,
  handoff: HandoffRequest,
  queues: readonly string[],
): SettleArchiveClaimParams {
  return {
    ...archive,
    types: handoff.types?.map((type) => type.toLowerCase()) ?? null,
    workerId: handoff.workerId,
    leaseToken: uuidv7(),
    limit: handoff.limit,
    cappedQueues: queues,
  };
}

/** Splits the rows of settle_archive_claim.sql by their part (see its header). */
export function readHandoffRows(rows: readonly SettleArchiveClaimRow[]): HandoffRows {
  const result: HandoffRows = { moved: new Map(), dependents: [], started: [], filled: new Set() };
  for (const row of rows) {
    if (row.part === 0) {
      result.moved.set(String(row.id), row.queue);
      if (row.has_dependents === true) result.dependents.push(String(row.id));
    } else if (row.part === 1) result.started.push(claimedJobOf(row));
    else result.filled.add(row.queue);
  }
  return result;
}
