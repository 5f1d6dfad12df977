/**
 * Operator moves on the dead-letter queue for the memory provider: resurrect (DLQ → pending) and
 * purge. Lifetime counters are left alone by both.
 *
 * @internal
 */
import { appendHistory } from '../history.js';
import { MAX_HISTORY_ERROR, type DeadJob, type HotJob } from '../model.js';
import { deadVersion } from '../job-query.js';
import type { DeadEdit, ResurrectRequest } from '../operator-store.js';
import type { Tables } from './tables.js';

/** Default priority of a resurrected job. */
export const RESURRECT_PRIORITY = 10;

/**
 * The pending hot row a DLQ row becomes when resurrected with `options`: a fresh start, with no
 * lost runs and no cancel request, that remembers its failure as `lastError`.
 */
function toResurrected(
  row: DeadJob,
  options: ResurrectRequest,
  now: Date,
  payload: string | undefined,
  hasDependents: boolean,
): HotJob {
  return {
    id: row.id,
    queue: row.queue,
    type: row.type,
    payload: payload ?? options.payload ?? row.payload,
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
    traceParent: null, // the DLQ keeps no trace context: a resurrected run starts its own trace
    hasDependents,
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
    concurrencyKey: row.concurrencyKey,
    concurrencyLimit: row.concurrencyLimit,
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
 * A DLQ job to move: its id, and optionally the version it must still have (see
 * {@link deadVersion}, as a bulk action's snapshot holds it) and its own new payload.
 */
export interface DeadTarget {
  id: string;
  version?: number;
  payload?: string;
}

/** The DLQ row of `target`, if it is there with the version the target expects. */
function deadRowOf(tables: Tables, target: DeadTarget): DeadJob | undefined {
  const row = tables.dead.get(target.id);
  if (row === undefined) return undefined;
  if (target.version !== undefined && deadVersion(row) !== target.version) {
    return undefined;
  }
  return row;
}

/**
 * Moves DLQ rows back to pending. Ids not in the DLQ (or not at their expected version), and ids
 * that are already hot (a new job reused the id), are skipped and their DLQ rows kept.
 */
export function resurrectJobs(
  tables: Tables,
  targets: readonly DeadTarget[],
  options: ResurrectRequest,
  now: Date,
): ResurrectOutcome {
  const moved: string[] = [];
  const wokenQueues = new Set<string>();
  for (const target of targets) {
    const { id } = target;
    const row = deadRowOf(tables, target);
    if (row === undefined || tables.hot.has(id)) continue;
    tables.dead.delete(id);
    tables.removeFromGroup(row);
    tables.ensureQueue(row.queue, now);
    tables.insertHot(toResurrected(row, options, now, target.payload, tables.dependents.has(id)));
    uncountDeath(tables, row, now);
    moved.push(id);
    wokenQueues.add(row.queue);
  }
  reviveFailedDependents(tables, moved, options, now);
  return { moved, wokenQueues: [...wokenQueues] };
}

/**
 * Brings back, awaiting, the jobs that died as `DependencyFailed` waiting for one of `ids` (just
 * resurrected), and those that died so waiting for them, up their chains: the workflow resumes,
 * and the resolver decides them again (as resurrect.sql does). They keep their payload and tags.
 */
function reviveFailedDependents(
  tables: Tables,
  ids: readonly string[],
  options: ResurrectRequest,
  now: Date,
): void {
  const request: ResurrectRequest = {
    actor: options.actor,
    ...(options.priority === undefined ? {} : { priority: options.priority }),
  };
  const todo = [...ids];
  for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
    for (const waiting of tables.dependents.get(id) ?? []) {
      const row = tables.dead.get(waiting);
      if (row?.reason !== 'DependencyFailed' || tables.hot.has(waiting)) continue;
      tables.dead.delete(waiting);
      tables.removeFromGroup(row);
      const revived = toResurrected(row, request, now, undefined, tables.dependents.has(waiting));
      revived.state = 'awaiting';
      tables.insertHot(revived);
      uncountDeath(tables, row, now);
      todo.push(waiting);
    }
  }
}

/** A resurrected member of a batch: its batch counts one death (or cancel) fewer. */
function uncountDeath(tables: Tables, row: DeadJob, now: Date): void {
  const cancelled = row.reason === 'Cancelled' ? 1 : 0;
  tables.countBatch(row.id, { succeeded: 0, died: cancelled - 1, cancelled: -cancelled }, now);
}

/**
 * Deletes the listed DLQ rows (each at its expected version, when given), taking them out of
 * their error groups; returns the ids deleted.
 */
export function purgeDeadJobs(tables: Tables, targets: readonly DeadTarget[]): string[] {
  const deleted: string[] = [];
  for (const target of targets) {
    const row = deadRowOf(tables, target);
    if (row === undefined) continue;
    tables.dead.delete(row.id);
    tables.removeFromGroup(row);
    tables.forgetJob(row.id);
    deleted.push(row.id);
  }
  return deleted;
}

/** Edits a DLQ row in place and appends an `edit` action to its history; `false` when absent. */
export function editDeadJob(tables: Tables, id: string, edit: DeadEdit, now: Date): boolean {
  const row = tables.dead.get(id);
  if (row === undefined) return false;
  if (edit.payload !== undefined) row.payload = edit.payload;
  if (edit.tags !== undefined) row.tags = edit.tags;
  row.lastModifiedBy = edit.actor;
  // Always a new version, even on a clock that has not moved since the failure or last edit.
  row.editedAt = new Date(Math.max(now.getTime(), deadVersion(row) / 1000 + 1));
  row.history = appendHistory(row.history, {
    kind: 'action',
    action: 'edit',
    actor: edit.actor,
    at: new Date(now),
  });
  return true;
}
