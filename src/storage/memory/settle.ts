/**
 * Settlements for the memory provider: each one guarded by its lease and expected state, moving
 * the row and updating counters and buckets in the same synchronous step. The row moves shared
 * with rescue and cancel (`toPending`, `moveToDead`) live here too.
 *
 * @internal
 */
import type { FailureReason } from '../../job/state.js';
import { errorSignature } from '../../job/fingerprint.js';
import { appendHistory, runEntry } from '../history.js';
import type { ArchivedJob, DeadJob, HotJob } from '../model.js';
import type { Settlement } from '../job-store.js';
import { heldRow } from './claim.js';
import { recordFailure, recordRetry, recordSuccess } from './counters.js';
import { waitingStateOf } from './promote.js';
import type { Tables } from './tables.js';

/**
 * The states a run can be in while it runs: processing, or fetched under a start the worker
 * records with its next settle round.
 */
export const CLAIMED: readonly HotJob['state'][] = ['fetched', 'processing'];

/** Hot → pending: clears the claim and stamps `updatedAt`; `runAt` is left to the caller. */
export function toPending(row: HotJob, now: Date): void {
  row.state = 'pending';
  row.workerId = null;
  row.leaseToken = null;
  row.heartbeatAt = null;
  row.updatedAt = new Date(now);
}

/** Refunds a lost run: `attempts − 1` (never below 0), `lostAttempts + 1`. */
export function refundRun(row: HotJob): void {
  row.attempts = Math.max(0, row.attempts - 1);
  row.lostAttempts += 1;
}

/** The archive row a succeeded hot row becomes. */
function toArchived(
  row: HotJob,
  now: Date,
  settlement: Extract<Settlement, { kind: 'archive' }>,
): ArchivedJob {
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
    durationMs: settlement.durationMs,
    lostAttempts: row.lostAttempts,
    note: settlement.note ?? null,
    history: row.history,
    result: settlement.result ?? null,
    concurrencyKey: row.concurrencyKey,
  };
}

/**
 * The DLQ row a failed hot row becomes. `startedAt` is kept only for a row moved from processing
 * (a pending or fetched row did not run now). A cancel — a row carrying a cancel request, or
 * `reason` `Cancelled` — appends a `cancel` action to the history (the requester, else `actor`, at
 * the request time, else now) and makes the requester `lastModifiedBy` unless `actor` is given.
 */
function toDead(
  row: HotJob,
  now: Date,
  reason: FailureReason,
  error: string,
  fingerprint: string,
  actor: string | null,
): DeadJob {
  const cancel = row.cancelRequestedAt !== null || reason === 'Cancelled';
  const requester = row.cancelRequestedBy ?? actor ?? 'unknown';
  return {
    id: row.id,
    queue: row.queue,
    type: row.type,
    payload: row.payload,
    tags: row.tags,
    reason,
    errorDetails: error,
    attempts: row.attempts,
    lostAttempts: row.lostAttempts,
    workerId: row.workerId,
    createdBy: row.createdBy,
    lastModifiedBy:
      actor ?? (reason === 'Cancelled' ? row.cancelRequestedBy : null) ?? row.lastModifiedBy,
    createdAt: new Date(row.createdAt),
    startedAt:
      row.state === 'processing' && row.startedAt !== null ? new Date(row.startedAt) : null,
    failedAt: new Date(now),
    editedAt: null,
    fingerprint,
    history: cancel
      ? appendHistory(row.history, {
          kind: 'action',
          action: 'cancel',
          actor: requester,
          at: new Date(row.cancelRequestedAt ?? now),
        })
      : row.history,
    progress: row.progress,
    concurrencyKey: row.concurrencyKey,
    concurrencyLimit: row.concurrencyLimit,
  };
}

/**
 * Hot → DLQ with `reason` and `error`: deletes the hot row (freeing its idempotency key), inserts
 * the DLQ row, adds one to the failed counter, the failure bucket of `reason` and the row's error
 * group. `actor` (default: none) is recorded as `lastModifiedBy`. A member of a batch counts as
 * cancelled (reason `Cancelled`) or dead, firing the callbacks that makes due.
 */
export function moveToDead(
  tables: Tables,
  row: HotJob,
  now: Date,
  reason: FailureReason,
  error: string,
  actor: string | null = null,
): void {
  const signature = errorSignature(error);
  tables.deleteHot(row);
  tables.dead.set(row.id, toDead(row, now, reason, error, signature.fingerprint, actor));
  tables.addToGroup(signature, row.queue, row.type, now);
  recordFailure(tables, now, row.queue, reason);
  const cancelled = reason === 'Cancelled' ? 1 : 0;
  tables.countBatch(row.id, { succeeded: 0, died: 1 - cancelled, cancelled }, now);
}

/** Applies one settlement; `false` (nothing changed) when its lease or expected state is gone. */
export function settleOne(tables: Tables, settlement: Settlement, now: Date): boolean {
  switch (settlement.kind) {
    case 'archive': {
      const row = heldRow(tables, settlement.lease, CLAIMED);
      if (row === undefined) return false;
      if (row.state === 'fetched') {
        // A run whose start was not recorded yet: recorded with its end.
        row.attempts += 1;
        row.startedAt = new Date(now.getTime() - settlement.durationMs);
      }
      tables.deleteHot(row);
      // Counted while its batch still knows it: a member that keeps no row is forgotten below.
      tables.countBatch(row.id, { succeeded: 1, died: 0, cancelled: 0 }, now);
      const kept = tables.queues.get(row.queue)?.keepSucceeded ?? true;
      // A job others depend on keeps its row: they read its success (and result) there.
      if ((settlement.keep !== false && kept) || row.hasDependents) {
        tables.archive.set(row.id, toArchived(row, now, settlement));
      } else {
        tables.forgetSteps(row.id);
        tables.batches.forget(row.id); // no row left
      }
      recordSuccess(tables, now, row.queue, settlement.durationMs);
      return true;
    }
    case 'retry': {
      const row = heldRow(tables, settlement.lease, settlement.from);
      if (row === undefined) return false;
      if (settlement.from === 'processing') {
        const outcome = settlement.lost === true ? 'lost' : 'retried';
        row.history = appendHistory(row.history, runEntry(row, now, outcome, settlement.error));
      }
      toPending(row, now);
      row.state = waitingStateOf(settlement.delayMs);
      if (settlement.lost === true) refundRun(row);
      row.runAt = new Date(now.getTime() + settlement.delayMs);
      row.lastError = settlement.error;
      row.progress = null;
      recordRetry(tables, now, row.queue);
      return true;
    }
    case 'dead': {
      const row = heldRow(tables, settlement.lease, settlement.from ?? 'processing');
      if (row === undefined) return false;
      moveToDead(tables, row, now, settlement.reason, settlement.error);
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
