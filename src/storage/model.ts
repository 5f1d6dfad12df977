/**
 * The public read model: the shapes of jobs, queues and results that ChokaQ's calls return.
 * Every storage provider returns exactly these shapes (the conformance suite checks it).
 */
import type { DependencyPolicy } from '../job/dependencies.js';
import type { FailureReason, HotState, JobState } from '../job/state.js';

/**
 * One entry of a job's bounded history (the last {@link MAX_HISTORY} are kept): a run that did
 * not end the job, or an operator action on it. The run that ended the job is read from its own
 * columns (see `JobDetail.timeline` of the operator API).
 */
export type HistoryEntry = HistoryRun | HistoryAction;

/** A run recorded in a job's history. */
export interface HistoryRun {
  kind: 'run';
  /** The attempt number the run had. */
  attempt: number;
  startedAt: Date | null;
  endedAt: Date;
  workerId: string | null;
  /**
   * `retried` (failed, rescheduled), `lost` (aborted by shutdown, refunded), `zombie` (its
   * worker stopped heartbeating, requeued), `dead` (moved to the DLQ, then resurrected) or
   * `suspended` (a durable step's sleep or event wait gave its slot back, refunded; `error` says
   * what it waits for).
   */
  outcome: 'retried' | 'lost' | 'zombie' | 'dead' | 'suspended';
  /** For `dead`: the DLQ reason. */
  reason?: FailureReason;
  /** Error text, cut to 1000 characters. */
  error: string | null;
}

/**
 * An operator action recorded in a job's history: an edit, a resurrect, or a cancel (recorded
 * when the job enters the DLQ as cancelled, or with a cancel request: `actor` is who asked and
 * `at` when).
 */
export interface HistoryAction {
  kind: 'action';
  action: 'edit' | 'resurrect' | 'cancel';
  actor: string;
  at: Date;
}

/** Most entries a job's history keeps (the oldest go first). */
export const MAX_HISTORY = 20;

/** Most characters of an error text kept in a history entry. */
export const MAX_HISTORY_ERROR = 1000;

/** Result of inserting one {@link NewJob}, in input order. */
export interface EnqueueResult {
  /** The new job's id, or the id of the active job that already holds the idempotency key. */
  id: string;
  /** `false` when an active job with the same idempotency key already existed (nothing written). */
  created: boolean;
}

/** A row of the hot table: scheduled, pending, fetched or processing. */
export interface HotJob {
  id: string;
  queue: string;
  type: string;
  payload: string;
  tags: string | null;
  idempotencyKey: string | null;
  priority: number;
  state: HotState;
  /**
   * Handler runs that crossed the lease gate (start) and ended in the handler's own success or
   * failure. Claims, releases and reschedules do not count; a lost run is refunded (see `lostAttempts`).
   */
  attempts: number;
  /** Runs lost through no fault of the handler (shutdown abort, zombie retried). Never count against maxAttempts. */
  lostAttempts: number;
  /** When an operator asked to cancel this job while it was processing; `null` otherwise. */
  cancelRequestedAt: Date | null;
  /** Who asked to cancel. */
  cancelRequestedBy: string | null;
  workerId: string | null;
  /** Token of the current claim; `null` when pending. */
  leaseToken: string | null;
  /** Not claimable before this time. Equals `createdAt` when enqueued without delay. */
  runAt: Date;
  createdAt: Date;
  startedAt: Date | null;
  heartbeatAt: Date | null;
  updatedAt: Date;
  createdBy: string | null;
  lastModifiedBy: string | null;
  /** Error text of the most recent failed run, kept across retries. */
  lastError: string | null;
  /** Earlier runs and operator actions, oldest first (at most {@link MAX_HISTORY}). */
  history: HistoryEntry[];
  /** The running handler's last reported progress (0–100), stored with its heartbeats. */
  progress: number | null;
  /** The enqueuing code's trace context (W3C `traceparent`); each run's span links to it. */
  traceParent: string | null;
  /**
   * The job's concurrency key (a tenant, a customer): jobs of one key in one queue take turns
   * with other keys' jobs and, with a limit, are never more than `concurrencyLimit` fetched +
   * processing at once, across processes. `null`: none.
   */
  concurrencyKey: string | null;
  /** Most jobs of the key fetched or processing at once in its queue; `null`: no limit. */
  concurrencyLimit: number | null;
  /**
   * Whether other jobs depend on this one (docs/workflows.md): it then keeps its archive row
   * when it succeeds, even where its queue or type keeps none.
   */
  hasDependents: boolean;
}

/**
 * What a worker needs of a job it claimed or started: the columns the claim and start statements
 * return. Fewer columns and no text timestamps to parse cut the worker's CPU per job (about 11 %
 * of it in the drain benchmark, docs/benchmarks.md).
 */
export type ClaimedJob = Pick<
  HotJob,
  | 'id'
  | 'queue'
  | 'type'
  | 'payload'
  | 'state'
  | 'attempts'
  | 'workerId'
  | 'leaseToken'
  | 'runAt'
  | 'createdAt'
  | 'traceParent'
  | 'hasDependents'
>;

/** A row of the archive: a job that succeeded. */
export interface ArchivedJob {
  id: string;
  queue: string;
  type: string;
  payload: string;
  tags: string | null;
  attempts: number;
  workerId: string | null;
  createdBy: string | null;
  lastModifiedBy: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date;
  /** Measured handler time in ms. */
  durationMs: number | null;
  lostAttempts: number;
  /** Why the handler was skipped (for example an idempotency duplicate), else `null`. */
  note: string | null;
  /** Earlier runs and operator actions, oldest first (at most {@link MAX_HISTORY}). */
  history: HistoryEntry[];
  /** The handler's return value as JSON text; `null` when it returned nothing (or too much). */
  result: string | null;
  /** The concurrency key the job ran under; `null`: none. */
  concurrencyKey: string | null;
}

/** A row of the dead-letter queue: a job that failed for good. */
export interface DeadJob {
  id: string;
  queue: string;
  type: string;
  payload: string;
  tags: string | null;
  reason: FailureReason;
  errorDetails: string | null;
  attempts: number;
  lostAttempts: number;
  workerId: string | null;
  createdBy: string | null;
  lastModifiedBy: string | null;
  createdAt: Date;
  /**
   * When the final run started; `null` when the job did not run before it reached the DLQ
   * (cancelled while pending or fetched, a circuit that stayed open).
   */
  startedAt: Date | null;
  failedAt: Date;
  /** When an operator last edited the row in place (`dlq.edit`); `null` if never. */
  editedAt: Date | null;
  /** Error group (see `dlq.groups`). */
  fingerprint: string;
  /** Earlier runs and operator actions, oldest first (at most {@link MAX_HISTORY}). */
  history: HistoryEntry[];
  /** The handler's last reported progress (0–100) before it failed. */
  progress: number | null;
  /** The job's concurrency key, kept so a resurrected job is limited again; `null`: none. */
  concurrencyKey: string | null;
  /** The key's limit the job carried; `null`: none. */
  concurrencyLimit: number | null;
}

/** One concurrency key in use in one queue (see `QueueStore.keyUsage`). */
export interface KeyUsage {
  queue: string;
  key: string;
  /** The largest `concurrencyLimit` its hot jobs carry; `null`: none has one. */
  limit: number | null;
  /** Jobs of the key fetched or processing. */
  running: number;
  /** Jobs of the key waiting: pending or scheduled. */
  pending: number;
}

/** Where {@link OperatorStore.getJob} found a job. */
export type FoundJob =
  | { where: 'hot'; job: HotJob }
  | { where: 'archive'; job: ArchivedJob }
  | { where: 'dlq'; job: DeadJob };

/** What one {@link JobStore.cancel} did. */
export interface CancelResult {
  /** Pending or fetched jobs moved to the DLQ as `Cancelled`. */
  cancelled: string[];
  /** Processing jobs that now carry a cancel request; their owner aborts them at its next heartbeat. */
  requested: string[];
}

/**
 * A DLQ error group: the dead jobs whose errors share a fingerprint (error class, normalised
 * message and top user frame; see docs/operator-api.md).
 */
export interface ErrorGroup {
  fingerprint: string;
  errorClass: string;
  /** The normalised message (ids, numbers, uuids, times and quoted values replaced). */
  message: string;
  /** Top stack frame of the user's code, without line numbers; `null` when none was found. */
  frame: string | null;
  /** Jobs of the group now in the DLQ. */
  count: number;
  /** When a job of the group first and last entered the DLQ (also counting ones since removed). */
  firstSeen: Date;
  lastSeen: Date;
  /** Queues and types the group's jobs belong to, by name. */
  queues: string[];
  types: string[];
  /** Id of the group's most recent dead job. */
  sampleId: string | null;
}

/** Per-queue runtime controls (the `queues` table). */
export interface QueueInfo {
  name: string;
  paused: boolean;
  /** Inactive (hidden) queues are never claimed. */
  active: boolean;
  /** Cap on fetched + processing jobs of the queue across all processes; `null` = no cap. */
  maxWorkers: number | null;
  /** Per-queue zombie timeout in seconds; `null` = the global default. */
  zombieTimeoutSeconds: number | null;
  /** Whether succeeded jobs are kept in the archive; `false`: counted, then deleted. */
  keepSucceeded: boolean;
  updatedAt: Date;
}

/** Counts and lifetime counters of one queue. */
export interface QueueStats {
  queue: string;
  /** Jobs waiting for their dependencies (docs/workflows.md). */
  awaiting: number;
  /** Jobs due and waiting for a worker. */
  pending: number;
  /** Jobs waiting for their due time (see docs/state-machine.md, "Scheduled jobs"). */
  scheduled: number;
  fetched: number;
  processing: number;
  /** Rows now in the archive / DLQ for this queue. */
  archived: number;
  dead: number;
  /** Lifetime totals: never decremented by purges or resurrection. */
  succeededTotal: number;
  failedTotal: number;
  retriedTotal: number;
  lastActivityAt: Date | null;
}

/**
 * What a queue holds right now, for gauges and health checks: read by one cheap query per call
 * (index scans and the DLQ group summary, never the archive).
 */
export interface QueueGauges {
  queue: string;
  /** The queue's controls: a paused or inactive queue is not claimed. */
  paused: boolean;
  active: boolean;
  /**
   * Waiting jobs that are due (runAt ≤ now): the pending ones and the scheduled ones whose time
   * came but that the promoter has not moved yet.
   */
  due: number;
  /** Scheduled jobs due later (runAt > now). */
  scheduled: number;
  /** Jobs waiting for their dependencies (docs/workflows.md): neither due nor scheduled. */
  awaiting: number;
  fetched: number;
  processing: number;
  /** Jobs in the DLQ. */
  dead: number;
  /** When the longest-waiting due job became due; `null` when none is due. */
  oldestDueAt: Date | null;
  /** Lifetime totals of the queue (never decremented by purges or resurrection). */
  succeededTotal: number;
  failedTotal: number;
  /** The store clock when this was read, to measure lag against. */
  readAt: Date;
}

/** Due pending jobs of one queue and job type (`QueueStore.dueByType`). */
export interface DueTypeCount {
  queue: string;
  type: string;
  /** How many of the jobs read are due (at least this many when the read was cut off). */
  due: number;
  /** When the longest-waiting of them became due. */
  oldestDueAt: Date;
}

/** A worker process as it last reported itself (`chokaq status`, The Deck). */
export interface WorkerPresence {
  /** Its worker id. */
  id: string;
  host: string;
  pid: number;
  startedAt: Date;
  /** When it last wrote its row (store clock). */
  lastSeenAt: Date;
  /** Jobs it runs at once, and runs now. */
  concurrency: number;
  running: number;
  /** Queues it serves; `null` for all. */
  queues: string[] | null;
  /** Its circuit breakers that are not closed. */
  circuits: { type: string; state: 'open' | 'half-open' }[];
  /**
   * The job types it runs, lower-case; `null` for every type (a pipe handler) or when not
   * recorded (a worker of a ChokaQ before 0.x wrote none).
   */
  types: string[] | null;
  /**
   * Every circuit breaker it has seen, closed ones too, with when an open one lets a probe
   * through (`resetAt`); empty when not recorded.
   */
  breakers: { type: string; state: 'closed' | 'open' | 'half-open'; resetAt: Date | null }[];
  /**
   * The lag thresholds it runs with (its `health` option and each queue's own), in ms, so any
   * process judges the queues it serves by them; `null` when not recorded.
   */
  lag: {
    degradedMs: number;
    unhealthyMs: number;
    queues: Record<string, { degradedMs: number; unhealthyMs: number }>;
  } | null;
  /** Its own `chokaq_worker` health check when it wrote the row; `null` when not recorded. */
  health: { status: 'ok' | 'degraded' | 'unhealthy'; message: string } | null;
  /** The ChokaQ version it runs. */
  version: string;
}

/** One job in a page of the operator query (`jobs.query`): the columns a list shows. */
export interface JobSummary {
  id: string;
  state: JobState;
  queue: string;
  type: string;
  tags: string | null;
  /** Hot jobs only; `null` in the archive and the DLQ. */
  priority: number | null;
  attempts: number;
  createdAt: Date;
  /** When a hot job is due; `null` in the archive and the DLQ. */
  runAt: Date | null;
  startedAt: Date | null;
  /** When it succeeded or failed for good; `null` for hot jobs. */
  finishedAt: Date | null;
  /** DLQ reason; `null` elsewhere. */
  reason: FailureReason | null;
  /** First line of the DLQ error or of a hot job's last error, cut to 200 characters. */
  error: string | null;
  /** DLQ error group; `null` elsewhere. */
  fingerprint: string | null;
  workerId: string | null;
  /** Last reported progress (0–100) of a hot or dead job. */
  progress: number | null;
  /** The job's concurrency key (hot, archive and DLQ alike); `null`: none. */
  concurrencyKey: string | null;
}

/** A job to insert, already validated by the caller (see `job/envelope.ts`). */
export interface NewJob {
  /** Job id, unique among hot rows. */
  id: string;
  queue: string;
  /** Stable type key. */
  type: string;
  /** Serialized JSON payload, stored and handed back byte for byte. */
  payload: string;
  /** Higher runs first. */
  priority: number;
  /** Milliseconds from now (store clock) before the job may be claimed; 0 = at once. */
  delayMs: number;
  idempotencyKey: string | null;
  tags: string | null;
  createdBy: string | null;
  /** The enqueuing code's trace context, a W3C `traceparent`. Default: `null` (none). */
  traceParent?: string | null;
  /** Concurrency key (see `HotJob.concurrencyKey`). Default: `null` (none). */
  concurrencyKey?: string | null;
  /** Most jobs of the key fetched or processing at once in the queue. Default: `null` (no limit). */
  concurrencyLimit?: number | null;
  /**
   * The jobs this one waits for (docs/workflows.md): jobs of the same call or ones already
   * stored (hot, archived or dead). A job with any is `awaiting` until the resolver releases it.
   * Default: none.
   */
  dependsOn?: readonly NewDependency[];
}

/** One dependency of a {@link NewJob}. */
export interface NewDependency {
  /** The id of the job waited for. */
  id: string;
  /** What its death does to the waiting job. */
  onDeath: DependencyPolicy;
}
