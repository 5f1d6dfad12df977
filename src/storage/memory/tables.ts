/**
 * The in-memory "tables" of the memory provider: plain maps mirroring `jobs_hot`, `jobs_archive`,
 * `jobs_dlq`, `queues`, `stats_summary` and `metric_buckets`, plus the unique partial index on
 * hot idempotency keys. Rows here are owned by the store: never hand them out, copy them
 * (see `copy.ts`).
 *
 * @internal
 */
import type { DependencyPolicy } from '../../job/dependencies.js';
import type { ErrorSignature } from '../../job/fingerprint.js';
import type { ArchivedJob, DeadJob, HotJob, QueueInfo } from '../model.js';
import type { MetricBucket } from '../queue-store.js';
import type { StepRecord } from '../step-store.js';
import { BatchTable, type BatchChange } from './batch-table.js';

/** Lifetime counters of one queue (the `stats_summary` row). */
export interface QueueCounters {
  succeededTotal: number;
  failedTotal: number;
  retriedTotal: number;
  lastActivityAt: Date | null;
}

/** One row of the error-group summary: a fingerprint's dead jobs of one queue and type. */
export interface GroupRow extends Omit<ErrorSignature, 'fingerprint'> {
  fingerprint: string;
  queue: string;
  type: string;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
}

const HOUR_MS = 3_600_000;
/** How far back a group's hours are kept (as move_to_dlq.sql: two days). */
const GROUP_HOURS_KEPT_MS = 48 * HOUR_MS;

/** One stored dependency edge: what a job waits for and what that job's death does to it. */
export interface StoredDependency {
  id: string;
  onDeath: DependencyPolicy;
}

/** An event sent to a job (`job_events`). */
export interface StoredEvent {
  topic: string;
  /** JSON text. */
  data: string;
}

/** The queue that exists before anything is enqueued. */
export const DEFAULT_QUEUE = 'default';

/** Every table of one memory store, with the invariants that span them kept by its methods. */
export class Tables {
  /** Hot rows by id. Mutate only through {@link Tables.insertHot} / {@link Tables.deleteHot}. */
  readonly hot = new Map<string, HotJob>();
  /** Archive rows by id; inserting an existing id replaces the row. */
  readonly archive = new Map<string, ArchivedJob>();
  /** DLQ rows by id; inserting an existing id replaces the row. */
  readonly dead = new Map<string, DeadJob>();
  /** Queue control rows by name. */
  readonly queues = new Map<string, QueueInfo>();
  /** Lifetime counters by queue; a missing entry reads as zeros. */
  readonly counters = new Map<string, QueueCounters>();
  /** Metric buckets by {@link bucketKey}. */
  readonly buckets = new Map<string, MetricBucket>();
  /**
   * The error-group summary by {@link groupKey}; rows stay (count 0) once emptied, until retention
   * drops them ({@link Tables.pruneGroups}).
   */
  readonly groups = new Map<string, GroupRow>();
  /**
   * Dead jobs per hour of each error group (`dlq_error_group_hours`): fingerprint → hour start
   * (ms) → count. Arrivals only; a group's hours past two days go when it counts a new one, or
   * in a retention pass.
   */
  readonly groupHours = new Map<string, Map<number, number>>();
  /**
   * `job_dependencies`: a job's dependencies in their enqueued order, by the waiting job's id.
   * Kept while the waiting job has a row anywhere (the flow's graph stays readable).
   */
  readonly dependencies = new Map<string, StoredDependency[]>();
  /** The reverse of {@link Tables.dependencies}: a job's id → the jobs that wait for it. */
  readonly dependents = new Map<string, Set<string>>();
  /** `batches`: each batch's counters and callbacks, its members and callback jobs. */
  readonly batches = new BatchTable();
  /** Told the queues of callback jobs a batch fired (the store wakes their workers). */
  onBatchFired: (queues: string[]) => void = () => undefined;

  /**
   * Applies the move of job `id` to its batch's counters, if it is a member, and makes the
   * callback jobs the new counts fire due: awaiting → pending, or scheduled until their delay
   * passed (fragments/batch_counted.sql).
   */
  countBatch(id: string, change: BatchChange, now: Date): void {
    const queues: string[] = [];
    for (const jobId of this.batches.count(id, change, now)) {
      const row = this.hot.get(jobId);
      if (row?.state !== 'awaiting') continue;
      row.state = row.runAt > now ? 'scheduled' : 'pending';
      this.changedHot(row);
      queues.push(row.queue);
    }
    if (queues.length > 0) this.onBatchFired(queues);
  }

  /**
   * `job_steps`: a job's recorded steps in record order, by job id. Kept while the job has a row
   * anywhere (its timeline shows them).
   */
  readonly steps = new Map<string, StepRecord[]>();
  /** `job_events`: the events sent to a job and not taken yet, oldest first, by job id. */
  readonly events = new Map<string, StoredEvent[]>();

  /**
   * Deletes what job `id` leaves behind once its row left the store for good: its steps, its
   * events, and its dependencies (they go with the job that waited, and the jobs it waited for no
   * longer count it among their dependents). Its batch, if it is a member, counts one remaining
   * member fewer.
   */
  forgetJob(id: string): void {
    this.forgetSteps(id);
    this.batches.forget(id);
    for (const dependency of this.dependencies.get(id) ?? []) {
      const waiting = this.dependents.get(dependency.id);
      waiting?.delete(id);
      if (waiting?.size === 0) this.dependents.delete(dependency.id);
    }
    this.dependencies.delete(id);
  }

  /** Deletes the steps of job `id` and the events sent to it. */
  forgetSteps(id: string): void {
    this.steps.delete(id);
    this.events.delete(id);
  }

  /** Whether an awaiting job depends on job `id` (its archive row must stay). */
  isAwaited(id: string): boolean {
    for (const waiting of this.dependents.get(id) ?? []) {
      if (this.hot.get(waiting)?.state === 'awaiting') return true;
    }
    return false;
  }

  /** Unique index: idempotency key → id of the hot row holding it. */
  private readonly hotIdByKey = new Map<string, string>();
  /**
   * Versions of hot rows changed since they were inserted (claimed, edited): a bulk action's
   * snapshot holds a hot job's version, and a batch skips the job when it moved on.
   */
  private readonly hotVersions = new Map<string, number>();
  /** The last version handed out; every change takes the next, so versions never repeat. */
  private lastVersion = 0;

  /** @param now Creation time, stamped on the seeded `default` queue. */
  constructor(now: Date) {
    this.ensureQueue(DEFAULT_QUEUE, now);
  }

  /** Id of the hot row holding `key`, if any. */
  holderOf(key: string): string | undefined {
    return this.hotIdByKey.get(key);
  }

  /** Adds a hot row and indexes its idempotency key. The caller checked id and key are free. */
  insertHot(row: HotJob): void {
    this.hot.set(row.id, row);
    this.changedHot(row);
    if (row.idempotencyKey !== null) this.hotIdByKey.set(row.idempotencyKey, row.id);
  }

  /** Removes a hot row and frees its idempotency key. */
  deleteHot(row: HotJob): void {
    this.hot.delete(row.id);
    this.hotVersions.delete(row.id);
    if (row.idempotencyKey !== null && this.hotIdByKey.get(row.idempotencyKey) === row.id) {
      this.hotIdByKey.delete(row.idempotencyKey);
    }
  }

  /** Gives a hot row a new version: it was inserted, claimed or edited. */
  changedHot(row: HotJob): void {
    this.lastVersion += 1;
    this.hotVersions.set(row.id, this.lastVersion);
  }

  /** The version of a hot row (0 for an unknown id). */
  hotVersion(id: string): number {
    return this.hotVersions.get(id) ?? 0;
  }

  /** Inserts a queue row with default controls unless one exists; returns the stored row. */
  ensureQueue(name: string, now: Date): QueueInfo {
    let row = this.queues.get(name);
    if (row === undefined) {
      row = {
        name,
        paused: false,
        active: true,
        maxWorkers: null,
        zombieTimeoutSeconds: null,
        keepSucceeded: true,
        updatedAt: new Date(now),
      };
      this.queues.set(name, row);
    }
    return row;
  }

  /** Counts one more dead job of `queue`/`type` in the group of `signature`. */
  addToGroup(signature: ErrorSignature, queue: string, type: string, now: Date): void {
    const key = groupKey(signature.fingerprint, queue, type);
    const row = this.groups.get(key);
    if (row === undefined) {
      this.groups.set(key, {
        ...signature,
        queue,
        type,
        count: 1,
        firstSeen: new Date(now),
        lastSeen: new Date(now),
      });
    } else {
      row.count += 1;
      row.lastSeen = new Date(now);
    }
    const hour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
    const hours = this.groupHours.get(signature.fingerprint) ?? new Map<number, number>();
    hours.set(hour, (hours.get(hour) ?? 0) + 1);
    for (const start of hours.keys()) if (start < hour - GROUP_HOURS_KEPT_MS) hours.delete(start);
    this.groupHours.set(signature.fingerprint, hours);
  }

  /**
   * Retention of the error-group summary: drops the groups of `queue`s in scope that are empty and
   * saw their last failure before `cutoff`, and every group's trend hours older than two days
   * before the hour of `now` (as the DLQ batch of the SQL retention does).
   */
  pruneGroups(inScope: (queue: string) => boolean, cutoff: Date, now: Date): void {
    for (const [key, group] of this.groups) {
      if (group.count === 0 && group.lastSeen < cutoff && inScope(group.queue)) {
        this.groups.delete(key);
      }
    }
    const oldest = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - GROUP_HOURS_KEPT_MS;
    for (const [fingerprint, hours] of this.groupHours) {
      for (const start of hours.keys()) if (start < oldest) hours.delete(start);
      if (hours.size === 0) this.groupHours.delete(fingerprint);
    }
  }

  /** Counts one dead job fewer in its group (it was resurrected or purged). */
  removeFromGroup(row: DeadJob): void {
    const group = this.groups.get(groupKey(row.fingerprint, row.queue, row.type));
    if (group !== undefined) group.count = Math.max(0, group.count - 1);
  }

  /** The counters row of `queue`, created with zeros when missing. */
  countersOf(queue: string): QueueCounters {
    let row = this.counters.get(queue);
    if (row === undefined) {
      row = { succeededTotal: 0, failedTotal: 0, retriedTotal: 0, lastActivityAt: null };
      this.counters.set(queue, row);
    }
    return row;
  }
}

/** Primary key of an error-group row: (fingerprint, queue, type). */
export function groupKey(fingerprint: string, queue: string, type: string): string {
  return JSON.stringify([fingerprint, queue, type]);
}

/** Primary key of a metric bucket: (second, queue, outcome, reason). */
export function bucketKey(
  bucket: Pick<MetricBucket, 'bucketStart' | 'queue' | 'outcome' | 'reason'>,
): string {
  return JSON.stringify([
    bucket.bucketStart.getTime(),
    bucket.queue,
    bucket.outcome,
    bucket.reason,
  ]);
}
