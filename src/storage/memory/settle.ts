/**
 * Settlements for the memory provider: each one guarded by its lease and expected state, moving
 * the row and updating counters and buckets in the same synchronous step.
 *
 * @internal
 */
import type { ArchivedJob, DeadJob, HotJob, Settlement } from '../contract.js';
import { heldRow } from './claim.js';
import { recordFailure, recordRetry, recordSuccess } from './counters.js';
import type { Tables } from './tables.js';

/** Hot → pending: clears the claim; `runAt` is left to the caller. */
function toPending(row: HotJob, now: Date): void {
  row.state = 'pending';
  row.workerId = null;
  row.leaseToken = null;
  row.heartbeatAt = null;
  row.updatedAt = new Date(now);
}

/** The archive row a succeeded hot row becomes. */
function toArchived(row: HotJob, now: Date, durationMs: number): ArchivedJob {
  return {
    id: row.id,
    queue: row.queue,
    type: row.type,
    payload: row.payload,
    tags: row.tags,
    attempts: row.attempts,
    workerId: row.workerId,
    createdBy: row.createdBy,
    lastModifiedBy: row.lastModifiedBy,
    createdAt: new Date(row.createdAt),
    startedAt: row.startedAt === null ? null : new Date(row.startedAt),
    finishedAt: new Date(now),
    durationMs,
  };
}

/** The DLQ row a failed hot row becomes. */
function toDead(
  row: HotJob,
  now: Date,
  settlement: Extract<Settlement, { kind: 'dead' }>,
): DeadJob {
  return {
    id: row.id,
    queue: row.queue,
    type: row.type,
    payload: row.payload,
    tags: row.tags,
    reason: settlement.reason,
    errorDetails: settlement.error,
    attempts: row.attempts,
    workerId: row.workerId,
    createdBy: row.createdBy,
    lastModifiedBy: row.lastModifiedBy,
    createdAt: new Date(row.createdAt),
    failedAt: new Date(now),
  };
}

/** Applies one settlement; `false` (nothing changed) when its lease or expected state is gone. */
export function settleOne(tables: Tables, settlement: Settlement, now: Date): boolean {
  switch (settlement.kind) {
    case 'archive': {
      const row = heldRow(tables, settlement.lease, 'processing');
      if (row === undefined) return false;
      tables.deleteHot(row);
      tables.archive.set(row.id, toArchived(row, now, settlement.durationMs));
      recordSuccess(tables, now, row.queue, settlement.durationMs);
      return true;
    }
    case 'retry': {
      const row = heldRow(tables, settlement.lease, settlement.from);
      if (row === undefined) return false;
      toPending(row, now);
      row.runAt = new Date(now.getTime() + settlement.delayMs);
      row.lastError = settlement.error;
      recordRetry(tables, now, row.queue);
      return true;
    }
    case 'dead': {
      const row = heldRow(tables, settlement.lease, 'processing');
      if (row === undefined) return false;
      tables.deleteHot(row);
      tables.dead.set(row.id, toDead(row, now, settlement));
      recordFailure(tables, now, row.queue, settlement.reason);
      return true;
    }
    case 'release': {
      const row = heldRow(tables, settlement.lease, 'fetched');
      if (row === undefined) return false;
      toPending(row, now);
      return true;
    }
  }
}
