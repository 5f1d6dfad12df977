/**
 * Deep copies of stored rows. Every value the memory store returns goes through one of these, so
 * a caller mutating a result (including its `Date`s) never changes the store.
 *
 * @internal
 */
import type { ArchivedJob, DeadJob, HotJob, QueueInfo } from '../model.js';
import { copyHistory } from '../history.js';
import type { MetricBucket } from '../queue-store.js';

/** Copies a `Date | null`. */
function copyDate(value: Date | null): Date | null {
  return value === null ? null : new Date(value);
}

/** A detached copy of a hot row. */
export function copyHot(row: HotJob): HotJob {
  return {
    ...row,
    runAt: new Date(row.runAt),
    createdAt: new Date(row.createdAt),
    startedAt: copyDate(row.startedAt),
    heartbeatAt: copyDate(row.heartbeatAt),
    updatedAt: new Date(row.updatedAt),
    cancelRequestedAt: copyDate(row.cancelRequestedAt),
    history: copyHistory(row.history),
  };
}

/** A detached copy of an archive row. */
export function copyArchived(row: ArchivedJob): ArchivedJob {
  return {
    ...row,
    createdAt: new Date(row.createdAt),
    startedAt: copyDate(row.startedAt),
    finishedAt: new Date(row.finishedAt),
    history: copyHistory(row.history),
  };
}

/** A detached copy of a DLQ row. */
export function copyDead(row: DeadJob): DeadJob {
  return {
    ...row,
    createdAt: new Date(row.createdAt),
    startedAt: copyDate(row.startedAt),
    failedAt: new Date(row.failedAt),
    editedAt: copyDate(row.editedAt),
    history: copyHistory(row.history),
  };
}

/** A detached copy of a queue row. */
export function copyQueue(row: QueueInfo): QueueInfo {
  return { ...row, updatedAt: new Date(row.updatedAt) };
}

/** A detached copy of a metric bucket. */
export function copyBucket(row: MetricBucket): MetricBucket {
  return { ...row, bucketStart: new Date(row.bucketStart) };
}
