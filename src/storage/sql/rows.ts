/**
 * Row → read model mapping, for what the row types of statements.ts cannot express. Drivers
 * disagree on int8 and numeric (`pg` returns a string, PGlite a number or bigint) and a caller's
 * `pg` type parser may turn timestamps into strings, so those are normalised; JSON columns are
 * parsed, codes become names. Text, int, float and boolean columns are used as they are.
 */
import type {
  ArchivedJob,
  ClaimedJob,
  DeadJob,
  ErrorGroup,
  HistoryEntry,
  HotJob,
  QueueGauges,
  QueueInfo,
  WorkerPresence,
  QueueStats,
} from '../model.js';
import type { MetricBucket } from '../queue-store.js';
import { HOT_STATE_BY_CODE, failureReasonOf } from '../../job/state.js';
import type {
  ErrorGroupsRow,
  GetArchiveRow,
  GetDeadRow,
  GetHotRow,
  ListQueuesRow,
  MetricBucketsRow,
  QueueGaugesRow,
  QueueStatsRow,
  WorkersListRow,
} from './statements.js';

/** A raw row as a driver returns it. */
export type Row = Record<string, unknown>;

/** Converts an int8/numeric/float value from any driver to a number. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') return Number(value);
  if (value === null || value === undefined) return 0;
  return Number(value);
}

/** Converts a timestamptz value (Date, ISO string or epoch ms) to a Date. */
export function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'string' || typeof value === 'number') return new Date(value);
  throw new TypeError(`Expected a timestamp, got ${typeof value}`);
}

/** Like {@link toDate}, but keeps SQL NULL as `null`. */
export function toDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}

/** A text column that may be NULL. */
export function toStringOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : toStr(value);
}

/** A text column that is NOT NULL. */
export function toStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return String(value);
  }
  throw new TypeError(`Expected a text value, got ${typeof value}`);
}

/** Maps a `jobs_hot` row. */
export function hotJobOf(row: GetHotRow): HotJob {
  return {
    ...claimedJobOf(row),
    tags: row.tags,
    idempotencyKey: row.idempotency_key,
    priority: row.priority,
    lostAttempts: row.lost_attempts,
    cancelRequestedAt: toDateOrNull(row.cancel_requested_at),
    cancelRequestedBy: row.cancel_requested_by,
    startedAt: toDateOrNull(row.started_at),
    heartbeatAt: toDateOrNull(row.heartbeat_at),
    updatedAt: toDate(row.updated_at),
    createdBy: row.created_by,
    lastModifiedBy: row.last_modified_by,
    lastError: row.last_error,
    history: historyOf(row.history),
    progress: row.progress,
    concurrencyKey: row.concurrency_key,
    concurrencyLimit: row.concurrency_limit,
  };
}

/**
 * Maps a row of claim.sql, start.sql or a hot row. Untyped: a claim's columns are NULL in the row
 * that only carries its flag, and run_at and created_at are epoch ms in a claim's rows but
 * timestamps in a hot row.
 */
export function claimedJobOf(row: Row): ClaimedJob {
  return {
    id: toStr(row.id),
    queue: toStr(row.queue),
    type: toStr(row.type),
    payload: toStringOrNull(row.payload) ?? '',
    state: HOT_STATE_BY_CODE[toNumber(row.status)] ?? 'pending',
    attempts: toNumber(row.attempts),
    workerId: toStringOrNull(row.worker_id),
    leaseToken: toStringOrNull(row.lease_token),
    runAt: toDate(row.run_at),
    createdAt: toDate(row.created_at),
    traceParent: toStringOrNull(row.trace_parent),
    hasDependents: row.has_dependents === true,
  };
}

/** Maps a `jobs_archive` row. */
export function archivedJobOf(row: GetArchiveRow): ArchivedJob {
  return {
    id: row.id,
    queue: row.queue,
    type: row.type,
    payload: row.payload ?? '',
    tags: row.tags,
    attempts: row.attempts,
    workerId: row.worker_id,
    createdBy: row.created_by,
    lastModifiedBy: row.last_modified_by,
    createdAt: toDate(row.created_at),
    startedAt: toDateOrNull(row.started_at),
    finishedAt: toDate(row.finished_at),
    durationMs: row.duration_ms,
    lostAttempts: row.lost_attempts,
    note: row.note,
    history: historyOf(row.history),
    result: row.result,
    concurrencyKey: row.concurrency_key,
  };
}

/** Maps a `jobs_dlq` row. */
export function deadJobOf(row: GetDeadRow): DeadJob {
  return {
    id: row.id,
    queue: row.queue,
    type: row.type,
    payload: row.payload ?? '',
    tags: row.tags,
    reason: failureReasonOf(row.failure_reason),
    errorDetails: row.error_details,
    attempts: row.attempts,
    lostAttempts: row.lost_attempts,
    workerId: row.worker_id,
    createdBy: row.created_by,
    lastModifiedBy: row.last_modified_by,
    createdAt: toDate(row.created_at),
    startedAt: toDateOrNull(row.started_at),
    failedAt: toDate(row.failed_at),
    editedAt: toDateOrNull(row.edited_at),
    fingerprint: row.fingerprint ?? '',
    history: historyOf(row.history),
    progress: row.progress,
    concurrencyKey: row.concurrency_key,
    concurrencyLimit: row.concurrency_limit,
  };
}

/**
 * Maps a `history` jsonb column (drivers hand back parsed JSON, or text) to entries with Dates;
 * entries of an unknown kind are dropped.
 */
export function historyOf(value: unknown): HistoryEntry[] {
  const list: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  if (!Array.isArray(list)) return [];
  const entries: HistoryEntry[] = [];
  for (const item of list as Row[]) {
    if (item.kind === 'run') {
      entries.push({
        kind: 'run',
        attempt: toNumber(item.attempt),
        startedAt: toDateOrNull(item.startedAt),
        endedAt: toDate(item.endedAt),
        workerId: toStringOrNull(item.workerId),
        outcome: toStr(item.outcome) as 'retried',
        ...(item.reason === undefined || item.reason === null
          ? {}
          : { reason: failureReasonOf(toNumber(item.reason)) }),
        error: toStringOrNull(item.error),
      });
    } else if (item.kind === 'action') {
      entries.push({
        kind: 'action',
        action: toStr(item.action) as 'edit',
        actor: toStr(item.actor),
        at: toDate(item.at),
      });
    }
  }
  return entries;
}

/** Maps a row of the `error_groups` statement. */
export function errorGroupOf(row: ErrorGroupsRow): ErrorGroup {
  return {
    fingerprint: row.fingerprint,
    errorClass: row.error_class,
    message: row.message,
    frame: row.frame,
    count: toNumber(row.dead_count),
    firstSeen: toDate(row.first_seen),
    lastSeen: toDate(row.last_seen),
    queues: [...row.queues],
    types: [...row.types],
    sampleId: row.sample_id,
  };
}

/** Maps a `queues` row. */
export function queueInfoOf(row: ListQueuesRow): QueueInfo {
  return {
    name: row.name,
    paused: row.is_paused,
    active: row.is_active,
    maxWorkers: row.max_workers,
    zombieTimeoutSeconds: row.zombie_timeout_seconds,
    keepSucceeded: row.keep_succeeded,
    updatedAt: toDate(row.updated_at),
  };
}

/** Maps a row of the `queue_stats` statement. */
export function queueStatsOf(row: QueueStatsRow): QueueStats {
  return {
    queue: row.queue,
    awaiting: toNumber(row.awaiting),
    pending: toNumber(row.pending),
    scheduled: toNumber(row.scheduled),
    fetched: toNumber(row.fetched),
    processing: toNumber(row.processing),
    archived: toNumber(row.archived),
    dead: toNumber(row.dead),
    succeededTotal: toNumber(row.succeeded_total),
    failedTotal: toNumber(row.failed_total),
    retriedTotal: toNumber(row.retried_total),
    lastActivityAt: toDateOrNull(row.last_activity_at),
  };
}

/** Maps a row of `queue_gauges.sql`. */
export function queueGaugesOf(row: QueueGaugesRow): QueueGauges {
  return {
    queue: row.queue,
    paused: row.paused,
    active: row.active,
    due: toNumber(row.due),
    scheduled: toNumber(row.scheduled),
    awaiting: toNumber(row.awaiting),
    fetched: toNumber(row.fetched),
    processing: toNumber(row.processing),
    dead: toNumber(row.dead),
    oldestDueAt: toDateOrNull(row.oldest_due_at),
    succeededTotal: toNumber(row.succeeded_total),
    failedTotal: toNumber(row.failed_total),
    readAt: toDate(row.read_at),
  };
}

/** Maps a `workers` row. */
export function workerPresenceOf(row: WorkersListRow): WorkerPresence {
  const info = (typeof row.info === 'string' ? JSON.parse(row.info) : row.info) as Pick<
    WorkerPresence,
    'concurrency' | 'running' | 'queues' | 'circuits' | 'version'
  > &
    Partial<Pick<WorkerPresence, 'types' | 'health' | 'lag'>> & {
      breakers?: { type: string; state: 'closed' | 'open' | 'half-open'; resetAt: string | null }[];
    };
  return {
    id: row.id,
    host: row.host,
    pid: row.pid,
    startedAt: toDate(row.started_at),
    lastSeenAt: toDate(row.last_seen_at),
    concurrency: info.concurrency,
    running: info.running,
    queues: info.queues,
    circuits: info.circuits,
    version: info.version,
    // Rows written by an older ChokaQ lack these.
    types: info.types ?? null,
    breakers: (info.breakers ?? []).map((b) => ({ ...b, resetAt: toDateOrNull(b.resetAt) })),
    health: info.health ?? null,
    lag: info.lag ?? null,
  };
}

/** Maps a `metric_buckets` row. */
export function metricBucketOf(row: MetricBucketsRow): MetricBucket {
  const failed = row.outcome === 1;
  return {
    bucketStart: toDate(row.bucket_start),
    queue: row.queue,
    outcome: failed ? 'failed' : 'succeeded',
    reason: failed ? failureReasonOf(row.failure_reason) : null,
    count: toNumber(row.completed_count),
    durationCount: toNumber(row.duration_count),
    totalDurationMs: row.total_duration_ms,
    maxDurationMs: row.max_duration_ms,
  };
}
