/**
 * The operator capability of the storage seam: reads of single jobs, lists, pages and counts of the
 * three tables, DLQ error groups, and the operator's edits, resurrections and purges.
 */
import type { FailureReason, HotState } from '../job/state.js';
import type { JobTable, TableCount, TablePage, TableQuery } from './job-query.js';
import type { ArchivedJob, DeadJob, ErrorGroup, FoundJob, HotJob } from './model.js';

/** Edits applied when resurrecting a DLQ job; absent fields keep the stored value. */
export interface ResurrectRequest {
  /** Recorded as `lastModifiedBy`. */
  actor: string;
  payload?: string;
  tags?: string | null;
  /** Default: 10. */
  priority?: number;
}

/** An edit of a waiting (pending or scheduled) job; absent fields keep the stored value. */
export interface PendingEdit {
  payload?: string;
  tags?: string | null;
  priority?: number;
  /** Due this many milliseconds from now (store clock). */
  delayMs?: number;
  /** Recorded as `lastModifiedBy` and in the history. */
  actor: string;
}

/** An edit of a DLQ job in place; absent fields keep the stored value. */
export interface DeadEdit {
  payload?: string;
  tags?: string | null;
  /** Recorded as `lastModifiedBy` and in the history. */
  actor: string;
}

/** Which error groups {@link OperatorStore.errorGroups} returns. */
export interface ErrorGroupFilter {
  queues?: readonly string[];
  types?: readonly string[];
  /** Most groups. */
  limit: number;
}

/** One hour of one error group's trend (`dlq_error_group_hours`). */
export interface GroupHour {
  fingerprint: string;
  hourStart: Date;
  /** Jobs of the group that moved to the DLQ in this hour. */
  count: number;
}

/** What the operator API reads and edits. All methods may throw `ChokaQError` with a stable code. */
export interface OperatorStore {
  /** Finds a job in the hot table, the archive or the DLQ. */
  getJob(id: string): Promise<FoundJob | null>;

  /** Lists hot jobs, newest first. */
  listHot(filter: { queue?: string; state?: HotState; limit: number }): Promise<HotJob[]>;

  /** Lists archived jobs, newest finished first. */
  listArchive(filter: { queue?: string; limit: number }): Promise<ArchivedJob[]>;

  /** Lists DLQ jobs, newest failed first. */
  listDead(filter: { queue?: string; reason?: FailureReason; limit: number }): Promise<DeadJob[]>;

  /**
   * Moves DLQ jobs back to pending atomically: attempts 0, idempotency key, schedule and worker
   * cleared, priority from options (default 10), the DLQ error text kept as `lastError`. Returns the ids actually moved; ids missing from
   * the DLQ are skipped. Concurrent resurrects of one id move it once.
   */
  resurrect(ids: readonly string[], options: ResurrectRequest): Promise<string[]>;

  /** Deletes DLQ rows for good; returns how many were deleted. Lifetime counters stay. */
  purgeDead(ids: readonly string[]): Promise<number>;

  /**
   * Edits a waiting (pending or scheduled) hot job in place (payload, tags, priority, due time),
   * appending an `edit` action to its history. A new due time decides the state: later →
   * scheduled, now → pending. Returns `false`, changing nothing, when the job is not waiting or
   * not found.
   */
  editPending(id: string, edit: PendingEdit): Promise<boolean>;

  /**
   * Edits a DLQ job in place (payload, tags), appending an `edit` action to its history. Returns
   * `false` when the job is not in the DLQ.
   */
  editDead(id: string, edit: DeadEdit): Promise<boolean>;

  /** One table's page of an operator query (see `storage/job-query.ts`). */
  queryTable(table: JobTable, query: TableQuery): Promise<TablePage>;

  /** Counts one table's rows matching an operator query. */
  countTable(table: JobTable, query: TableQuery): Promise<TableCount>;

  /**
   * DLQ error groups with jobs in the DLQ, largest first, from the maintained summary; only jobs
   * of the given queues and types when those are set.
   */
  errorGroups(filter: ErrorGroupFilter): Promise<ErrorGroup[]>;

  /**
   * Dead jobs per hour of the error groups `fingerprints` from the hour `since` on (a whole hour),
   * from the maintained hourly summary (hours without dead jobs are left out; a group's hours
   * older than two days may be gone). Arrivals: a job resurrected or purged since still counts.
   */
  errorGroupHours(fingerprints: readonly string[], since: Date): Promise<GroupHour[]>;
}
