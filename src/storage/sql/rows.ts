/**
 * Row → read model mapping. Drivers disagree on types (`pg` returns int8 as a string, PGlite
 * as a number or bigint; timestamps may arrive as Date or string), so every value is normalised.
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

/** Like {@link toNumber}, but keeps SQL NULL as `null`. */
export function toNumberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value);
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
export function hotJobOf(row: Row): HotJob {
  return {
    ...claimedJobOf(row),
    tags: toStringOrNull(row.tags),
    idempotencyKey: toStringOrNull(row.idempotency_key),
    priority: toNumber(row.priority),
    lostAttempts: toNumber(row.lost_attempts),
    cancelRequestedAt: toDateOrNull(row.cancel_requested_at),
    cancelRequestedBy: toStringOrNull(row.cancel_requested_by),
    startedAt: toDateOrNull(row.started_at),
    heartbeatAt: toDateOrNull(row.heartbeat_at),
    updatedAt: toDate(row.updated_at),
    createdBy: toStringOrNull(row.created_by),
    lastModifiedBy: toStringOrNull(row.last_modified_by),
    lastError: toStringOrNull(row.last_error),
    history: historyOf(row.history),
    progress: toNumberOrNull(row.progress),
    concurrencyKey: toStringOrNull(row.concurrency_key),
    concurrencyLimit: toNumberOrNull(row.concurrency_limit),
  };
}

/** Maps a row of claim.sql or start.sql. */
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
  };
}

/** Maps a `jobs_archive` row. */
export function archivedJobOf(row: Row): ArchivedJob {
  return {
    id: toStr(row.id),
    queue: toStr(row.queue),
    type: toStr(row.type),
    payload: toStringOrNull(row.payload) ?? '',
    tags: toStringOrNull(row.tags),
    attempts: toNumber(row.attempts),
    workerId: toStringOrNull(row.worker_id),
    createdBy: toStringOrNull(row.created_by),
    lastModifiedBy: toStringOrNull(row.last_modified_by),
    createdAt: toDate(row.created_at),
    startedAt: toDateOrNull(row.started_at),
    finishedAt: toDate(row.finished_at),
    durationMs: toNumberOrNull(row.duration_ms),
    lostAttempts: toNumber(row.lost_attempts),
    note: toStringOrNull(row.note),
    history: historyOf(row.history),
    result: toStringOrNull(row.result),
    concurrencyKey: toStringOrNull(row.concurrency_key),
  };
}

/** Maps a `jobs_dlq` row. */
export function deadJobOf(row: Row): DeadJob {
  return {
    id: toStr(row.id),
    queue: toStr(row.queue),
    type: toStr(row.type),
    payload: toStringOrNull(row.payload) ?? '',
    tags: toStringOrNull(row.tags),
    reason: failureReasonOf(toNumber(row.failure_reason)),
    errorDetails: toStringOrNull(row.error_details),
    attempts: toNumber(row.attempts),
    lostAttempts: toNumber(row.lost_attempts),
    workerId: toStringOrNull(row.worker_id),
    createdBy: toStringOrNull(row.created_by),
    lastModifiedBy: toStringOrNull(row.last_modified_by),
    createdAt: toDate(row.created_at),
    startedAt: toDateOrNull(row.started_at),
    failedAt: toDate(row.failed_at),
    editedAt: toDateOrNull(row.edited_at),
    fingerprint: toStringOrNull(row.fingerprint) ?? '',
    history: historyOf(row.history),
    progress: toNumberOrNull(row.progress),
    concurrencyKey: toStringOrNull(row.concurrency_key),
    concurrencyLimit: toNumberOrNull(row.concurrency_limit),
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
export function errorGroupOf(row: Row): ErrorGroup {
  return {
    fingerprint: toStr(row.fingerprint),
    errorClass: toStr(row.error_class),
    message: toStr(row.message),
    frame: toStringOrNull(row.frame),
    count: toNumber(row.dead_count),
    firstSeen: toDate(row.first_seen),
    lastSeen: toDate(row.last_seen),
    queues: textArray(row.queues),
    types: textArray(row.types),
    sampleId: toStringOrNull(row.sample_id),
  };
}

/** A text[] column (drivers hand back arrays; some the `{a,b}` literal). */
function textArray(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(toStr);
  if (typeof value === 'string' && value.startsWith('{')) {
    return value.slice(1, -1).split(',').filter(Boolean);
  }
  return [];
}

/** Maps a `queues` row. */
export function queueInfoOf(row: Row): QueueInfo {
  return {
    name: toStr(row.name),
    paused: row.is_paused === true,
    active: row.is_active === true,
    maxWorkers: toNumberOrNull(row.max_workers),
    zombieTimeoutSeconds: toNumberOrNull(row.zombie_timeout_seconds),
    keepSucceeded: row.keep_succeeded !== false,
    updatedAt: toDate(row.updated_at),
  };
}

/** Maps a row of the `queue_stats` statement. */
export function queueStatsOf(row: Row): QueueStats {
  return {
    queue: toStr(row.queue),
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
export function queueGaugesOf(row: Row): QueueGauges {
  return {
    queue: toStr(row.queue),
    paused: row.paused === true,
    active: row.active === true,
    due: toNumber(row.due),
    scheduled: toNumber(row.scheduled),
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
export function workerPresenceOf(row: Row): WorkerPresence {
  const info = (typeof row.info === 'string' ? JSON.parse(row.info) : row.info) as Pick<
    WorkerPresence,
    'concurrency' | 'running' | 'queues' | 'circuits' | 'version'
  > &
    Partial<Pick<WorkerPresence, 'types' | 'health' | 'lag'>> & {
      breakers?: { type: string; state: 'closed' | 'open' | 'half-open'; resetAt: string | null }[];
    };
  return {
    id: toStr(row.id),
    host: toStr(row.host),
    pid: toNumber(row.pid),
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
export function metricBucketOf(row: Row): MetricBucket {
  const failed = toNumber(row.outcome) === 1;
  return {
    bucketStart: toDate(row.bucket_start),
    queue: toStr(row.queue),
    outcome: failed ? 'failed' : 'succeeded',
    reason: failed ? failureReasonOf(toNumber(row.failure_reason)) : null,
    count: toNumber(row.completed_count),
    durationCount: toNumber(row.duration_count),
    totalDurationMs: toNumber(row.total_duration_ms),
    maxDurationMs: toNumberOrNull(row.max_duration_ms),
  };
}
