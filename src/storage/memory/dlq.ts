/**
 * Operator moves on the dead-letter queue for the memory provider: resurrect (DLQ → pending) and
 * purge. Lifetime counters are left alone by both.
 *
 * @internal
 */
import { appendHistory } from '../history.js';
import { MAX_HISTORY_ERROR, type DeadJob, type HotJob } from '../model.js';
import type { ResurrectRequest } from '../store.js';
import type { Tables } from './tables.js';

/** Default priority of a resurrected job. */
export const RESURRECT_PRIORITY = 10;

/**
 * The pending hot row a DLQ row becomes when resurrected with `options`: a fresh start, with no
 * lost runs and no cancel request, that remembers its failure as `lastError`.
 */
function toResurrected(row: DeadJob, options: ResurrectRequest, now: Date): HotJob {
  return {
    id: row.id,
    queue: row.queue,
    type: row.type,
    payload: options.payload ?? row.payload,
    tags: options.tags !== undefined ? options.tags : row.tags,
    idempotencyKey: null,
    priority: options.priority ?? RESURRECT_PRIORITY,
    state: 'pending',
    attempts: 0,
    lostAttempts: 0,
    cancelRequestedAt: null,
    cancelRequestedBy: null,
    workerId: null,
    leaseToken: null,
    runAt: new Date(now),
    createdAt: new Date(row.createdAt),
    startedAt: null,
    heartbeatAt: null,
    updatedAt: new Date(now),
    createdBy: row.createdBy,
    lastModifiedBy: options.actor,
    lastError: row.errorDetails, // the failure it was resurrected from, until the next run
    history: appendHistory(
      row.history,
      {
        kind: 'run',
        attempt: row.attempts,
        startedAt: row.startedAt === null ? null : new Date(row.startedAt),
        endedAt: new Date(row.failedAt),
        workerId: row.workerId,
        outcome: 'dead',
        reason: row.reason,
        error: row.errorDetails === null ? null : row.errorDetails.slice(0, MAX_HISTORY_ERROR),
      },
      { kind: 'action', action: 'resurrect', actor: options.actor, at: new Date(now) },
    ),
    progress: null,
  };
}

/** What one resurrect moved. */
export interface ResurrectOutcome {
  /** Ids moved back to the hot table, in input order, each once. */
  moved: string[];
  /** Distinct queues of the moved rows, in input order. */
  wokenQueues: string[];
}

/**
 * Moves DLQ rows back to pending. Ids not in the DLQ, and ids that are already hot (a new job
 * reused the id), are skipped and their DLQ rows kept.
 */
export function resurrectJobs(
  tables: Tables,
  ids: readonly string[],
  options: ResurrectRequest,
  now: Date,
): ResurrectOutcome {
  const moved: string[] = [];
  const wokenQueues = new Set<string>();
  for (const id of ids) {
    const row = tables.dead.get(id);
    if (row === undefined || tables.hot.has(id)) continue;
    tables.dead.delete(id);
    tables.removeFromGroup(row);
    tables.ensureQueue(row.queue, now);
    tables.insertHot(toResurrected(row, options, now));
    moved.push(id);
    wokenQueues.add(row.queue);
  }
  return { moved, wokenQueues: [...wokenQueues] };
}

/** Deletes the listed DLQ rows, taking them out of their error groups; returns how many existed. */
export function purgeDeadJobs(tables: Tables, ids: readonly string[]): number {
  let deleted = 0;
  for (const id of ids) {
    const row = tables.dead.get(id);
    if (row === undefined) continue;
    tables.dead.delete(id);
    tables.removeFromGroup(row);
    deleted += 1;
  }
  return deleted;
}
