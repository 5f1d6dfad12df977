/**
 * The storage seam: every provider (memory, embedded, postgres) implements {@link Store} and
 * passes the same conformance suite (test/conformance). Core code talks to storage only through
 * it. The verbs are domain verbs, not SQL: a SQL Server provider could implement them too.
 *
 * Times: the store owns the clock used for scheduling and eligibility (the database clock for SQL
 * stores, the injected clock for memory), so callers pass delays, never timestamps.
 *
 * The package root exports the {@link Store} type only so that provider objects made by
 * `memory()`, `embedded()` and `postgres()` can be named; its methods are ChokaQ's internal seam,
 * unstable until 1.0 — call ChokaQ's own methods instead. Users see the shapes of
 * `storage/model.ts`.
 */
import type { FailureReason, HotState } from '../job/state.js';
import type { Logger } from '../observability/logging/logger.js';
import type { BulkStore } from './bulk.js';
import type { IdempotencyClaims } from './idempotency.js';
import type { JobTable, TableCount, TablePage, TableQuery } from './job-query.js';
import type { RateLimits } from './rate-limits.js';
import type { RetentionRule } from './retention.js';
import type { ScheduleStore } from './schedules.js';
import type {
  ArchivedJob,
  CancelResult,
  DeadJob,
  EnqueueResult,
  ErrorGroup,
  FoundJob,
  ClaimedJob,
  HotJob,
  KeyUsage,
  NewJob,
  DueTypeCount,
  QueueGauges,
  QueueInfo,
  QueueStats,
  WorkerPresence,
} from './model.js';

/** Largest {@link Store.broadcast} message: PostgreSQL's NOTIFY payload limit, with room to spare. */
export const MAX_BROADCAST_BYTES = 7900;

/** Options of one claim. */
export interface ClaimRequest {
  workerId: string;
  /** Most rows to claim; at least 1. */
  limit: number;
  /** Only these queues; `null` = every queue. */
  queues: readonly string[] | null;
  /**
   * Only jobs of these type keys (matched without regard to case) — the types the worker can run;
   * `null` = every type (pipe mode). Jobs of other types stay pending for a worker that knows them.
   * Default: `null`.
   */
  types?: readonly string[] | null;
}

/**
 * A worker's offer, sent with its settlements, to run jobs of the capped queues they free slots
 * in (see {@link Store.settleAndClaim}).
 */
export interface HandoffRequest {
  workerId: string;
  /** Most jobs to start: the slots the worker keeps free for them; at least 1. */
  limit: number;
  /** Only these queues; `null` = every queue. */
  queues: readonly string[] | null;
  /** Only jobs of these type keys (as {@link ClaimRequest.types}). Default: `null` (every type). */
  types?: readonly string[] | null;
}

/** What {@link Store.settleAndClaim} did. */
export interface HandoffResult {
  /** One boolean per settlement, as {@link Store.settle} returns them. */
  applied: boolean[];
  /** The jobs claimed for the worker (fetched, one new lease token), in claim order. */
  started: ClaimedJob[];
}

/** Identifies one claim of one job: every worker write is guarded by all three. */
export interface Lease {
  id: string;
  workerId: string;
  leaseToken: string;
}

/**
 * How a claimed job ends its turn. Each is applied only when the row still matches the lease and
 * the expected state; otherwise it is reported as a conflict and nothing changes.
 *
 * - `archive`: processing → archive (succeeded counter, success bucket with duration); also
 *   fetched → archive for a run whose start was not recorded yet (the worker records starts with
 *   its next settle round): `attempts + 1`, `startedAt` its duration before now. `note`
 *   and `result` (the handler's return value as JSON; default `null` each) are stored with the
 *   archived row.
 * - `retry`: processing (or fetched, for a circuit reschedule) → pending after `delayMs`,
 *   keeping `attempts`, storing `error` as `lastError`; retried counter +1. With `lost: true`
 *   (a run aborted by shutdown) the run is refunded: `attempts − 1`, `lostAttempts + 1`.
 *   A cancel request on the row stays, so the job is cancelled instead of run again.
 * - `dead`: processing (or fetched, when `from` says so) → DLQ with `reason` and `error`;
 *   failed counter +1, failure bucket.
 * - `release`: fetched → pending at once; no counter (paused queue, shutdown of prefetched jobs).
 */
export type Settlement =
  | {
      kind: 'archive';
      lease: Lease;
      durationMs: number;
      note?: string;
      result?: string;
      /** `false`: counted as succeeded but not archived (the job type keeps no rows). Default: `true`. */
      keep?: boolean;
    }
  | {
      kind: 'retry';
      lease: Lease;
      from: 'fetched' | 'processing';
      delayMs: number;
      error: string;
      lost?: boolean;
    }
  | {
      kind: 'dead';
      lease: Lease;
      from?: 'fetched' | 'processing';
      reason: FailureReason;
      error: string;
    }
  | { kind: 'release'; lease: Lease };

/** A lease to keep alive, with the handler's latest progress (0–100) if it reported one. */
export interface HeartbeatLease extends Lease {
  /** Stored as the job's progress; absent keeps the stored value. */
  progress?: number;
}

/** Result of one heartbeat, in input order. */
export interface HeartbeatResult {
  /** `false` when the lease is no longer held (the job was rescued, cancelled or moved). */
  alive: boolean;
  /** An operator asked to cancel the job: abort the run. */
  cancelRequested: boolean;
  /**
   * Who asked to cancel (the actor persisted with the request), so the owner of the run — in
   * any process — records the requester; `null` when no cancel was requested.
   */
  cancelRequestedBy: string | null;
}

/** What {@link Store.rescue} looks for. */
export interface RescueOptions {
  /** Fetched rows not touched for this long go back to pending (no attempt used). */
  fetchedTimeoutMs: number;
  /**
   * Processing rows whose heartbeat (or start) is older than this — or than their queue's
   * `zombieTimeoutSeconds` — are zombies.
   */
  processingTimeoutMs: number;
  /**
   * Job types (lower-case keys) whose zombies go back to pending instead of the DLQ, with the
   * run refunded (`attempts − 1`, `lostAttempts + 1`), while `lostAttempts` stays below the value.
   */
  retryZombieTypes: Readonly<Record<string, number>>;
  /** Most rows moved per step. Default: `1000`. */
  limit?: number;
}

/** A job a rescue moved. */
export interface RescuedJob {
  id: string;
  queue: string;
  type: string;
}

/** What one {@link Store.rescue} did. */
export interface RescueResult {
  /** `true` when another process was rescuing at the same time, so this call did nothing. */
  skipped: boolean;
  /** Stale fetched rows returned to pending. */
  released: number;
  /** Zombies moved to the DLQ with reason `Zombie`. */
  dead: RescuedJob[];
  /** Zombies of opted-in types returned to pending. */
  retried: RescuedJob[];
  /** Jobs with a cancel request that were not running (any more), moved to the DLQ as `Cancelled`. */
  cancelled: RescuedJob[];
  /** Expired idempotency claims deleted (they already behaved as absent). */
  idempotencyClaimsPurged: number;
}

/** What one {@link Store.promote} did. */
export interface PromoteResult {
  /** Jobs moved scheduled → pending, per queue (queues with none are left out). */
  promoted: { queue: string; count: number }[];
  /**
   * When the next scheduled job not moved by this pass is due, in milliseconds from now on the
   * store clock (0 when it is already due); `null` when nothing else is scheduled.
   */
  nextDueInMs: number | null;
}

/** A change to a queue's controls; absent fields keep their value. Creates the queue if missing. */
export interface QueuePatch {
  paused?: boolean;
  active?: boolean;
  maxWorkers?: number | null;
  zombieTimeoutSeconds?: number | null;
  /** Whether the queue's succeeded jobs get archive rows (counters and buckets count them either way). */
  keepSucceeded?: boolean;
}

/** One hour of one error group's trend (`dlq_error_group_hours`). */
export interface GroupHour {
  fingerprint: string;
  hourStart: Date;
  /** Jobs of the group that moved to the DLQ in this hour. */
  count: number;
}

/** One row of the per-second outcome aggregate (`metric_buckets`). */
export interface MetricBucket {
  bucketStart: Date;
  queue: string;
  outcome: 'succeeded' | 'failed';
  /** `null` for successes. */
  reason: FailureReason | null;
  count: number;
  durationCount: number;
  totalDurationMs: number;
  maxDurationMs: number | null;
}

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

/** Which error groups {@link Store.errorGroups} returns. */
export interface ErrorGroupFilter {
  queues?: readonly string[];
  types?: readonly string[];
  /** Most groups. */
  limit: number;
}

/** An edit of a DLQ job in place; absent fields keep the stored value. */
export interface DeadEdit {
  payload?: string;
  tags?: string | null;
  /** Recorded as `lastModifiedBy` and in the history. */
  actor: string;
}

/** What every storage provider offers. All methods may throw `ChokaQError` with a stable code. */
export interface Store extends BulkStore {
  /** Short provider name for logs: `memory`, `embedded` or `postgres`. */
  readonly kind: string;

  /**
   * Adopts ChokaQ's logger (scoped to the provider, e.g. `chokaq:postgres`) unless the provider was
   * given its own `logger`; ChokaQ calls it once when constructed. Providers that log nothing
   * omit it.
   */
  useLogger?(logger: Logger): void;

  /** Applies pending migrations (no-op for memory) and opens resources. Idempotent. */
  open(): Promise<void>;
  /** Releases connections, files and timers. Idempotent; safe without `open()`. */
  close(): Promise<void>;

  /**
   * Inserts jobs in one atomic step and ensures a `queues` row for each queue. A job whose
   * idempotency key is held by an active (hot) job is not inserted; its result carries the holder's
   * id and `created: false`, also under concurrent inserts of the same key. A job whose id is
   * already in the hot table fails the whole call with `CHOKAQ_DUPLICATE_JOB_ID`, writing nothing.
   */
  enqueue(jobs: readonly NewJob[]): Promise<EnqueueResult[]>;

  /**
   * Same as {@link Store.enqueue}, but inside the caller's own open transaction (for PostgreSQL a
   * `pg` client after `BEGIN`), so the jobs commit or roll back with the caller's data. Providers
   * without external transactions omit it.
   */
  enqueueWithin?(transaction: unknown, jobs: readonly NewJob[]): Promise<EnqueueResult[]>;

  /**
   * Calls `onWake(queue)` shortly after new jobs were enqueued in `queue`, from any process sharing
   * the store. A hint only: workers still poll. Providers without a push channel omit it.
   * Resolves to an unsubscribe function.
   */
  listen?(onWake: (queue: string) => void): Promise<() => Promise<void>>;

  /**
   * Sends `message` (at most {@link MAX_BROADCAST_BYTES} of UTF-8) to every subscriber of this
   * store's data, in every process — this one included. Best effort: a message sent while a
   * subscriber reconnects is lost, and that subscriber then receives `'*'`.
   */
  broadcast(message: string): Promise<void>;
  /**
   * Subscribes to {@link Store.broadcast} messages; `'*'` means some may have been missed.
   * Resolves to an unsubscribe function.
   */
  subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>>;

  /**
   * Claims due pending jobs: state → fetched with `workerId` and a fresh lease token shared by the
   * batch. Eligible: pending, `runAt` ≤ now, no cancel
   * request, queue not paused and active, queue in `queues`, type in `types`. Order: priority
   * desc, then turn, then runAt, then id — across all eligible queues, capped or not. A job's
   * turn is 1, except in a queue holding pending jobs with a concurrency key: there each key
   * (and the jobs without one, together) is a line, and a job's turn is its key's fetched +
   * processing jobs plus its place in its line, so keys take turns. Never hands one row to two
   * claimers. A queue's `maxWorkers` and a key's limit (the `concurrencyLimit` of its next
   * pending job) are exact across concurrent claimers: fetched + processing never exceed them.
   * A queue's first keyed jobs may wait up to a second before another process claims them.
   */
  claim(request: ClaimRequest): Promise<ClaimedJob[]>;

  /**
   * The lease gate: fetched → processing for each lease still held (same worker, token, state
   * fetched), incrementing `attempts` and stamping `startedAt` and `heartbeatAt`. Returns the
   * started rows; leases not returned were lost and must not run.
   */
  start(leases: readonly Lease[]): Promise<ClaimedJob[]>;

  /**
   * Applies settlements, each guarded by its lease and expected state, with counters and metric
   * buckets changed in the same transaction as the row moves. Returns one boolean per input in
   * order: `true` applied, `false` conflict (nothing changed for that item).
   */
  settle(settlements: readonly Settlement[]): Promise<boolean[]>;

  /**
   * {@link Store.settle}, and in the same atomic step hands the slots its `archive` items free in
   * capped queues (`maxWorkers`) to the settling worker: for each such queue the worker serves
   * (not paused, active, holding no pending job with a concurrency key), the queue's next due
   * pending jobs without a key, as many as the archive freed there (never more than the queue's
   * room after the settle), are looked at in claim order, and those of the worker's types are
   * claimed for it (fetched, one new lease token, as a claim's jobs; the worker records their
   * starts), at most `handoff.limit` in all. A next job of
   * another type is left to other workers. A queue's fetched + processing count never grows by
   * this, so caps stay exact. Wake-ups go out as for `settle`, except for the queues whose freed
   * room was all taken here.
   */
  settleAndClaim(
    settlements: readonly Settlement[],
    handoff: HandoffRequest,
  ): Promise<HandoffResult>;

  /**
   * Refreshes `heartbeatAt` (and `updatedAt`) of claimed jobs whose leases are still held (same
   * worker and token, state processing or fetched: a run whose start is not recorded yet) and
   * reports, per lease, whether it is alive and whether a cancel was requested.
   */
  heartbeat(leases: readonly HeartbeatLease[]): Promise<HeartbeatResult[]>;

  /**
   * One recovery pass, atomic per step: stale fetched rows → pending; zombies (processing rows with
   * an expired heartbeat) → DLQ `Zombie` (failed counter, failure bucket) or, for opted-in types,
   * → pending with the run refunded (retried counter); rows carrying a cancel request that are no
   * longer processing (or are zombies) → DLQ `Cancelled`; expired idempotency claims are deleted.
   * At most one process rescues at a time
   * (SQL stores take a transaction-scoped advisory lock; others get `skipped: true`), yet every
   * step is guarded, so running it everywhere stays safe.
   */
  rescue(options: RescueOptions): Promise<RescueResult>;

  /**
   * One promoter pass: at most `limit` scheduled jobs whose `runAt` came (store clock) move to
   * pending, oldest due first, where claims find them; their `runAt`, `updatedAt` and version
   * stay. Rows another promoter holds are skipped (SQL: `FOR UPDATE SKIP LOCKED` in one
   * statement). Workers of the queues that received jobs are woken as after an enqueue.
   */
  promote(limit: number): Promise<PromoteResult>;

  /**
   * Cancels jobs by id. Scheduled, pending and fetched jobs move to the DLQ as `Cancelled` atomically, with
   * `Cancelled by <actor>` as error text. Processing jobs get a persisted cancel request
   * (`cancelRequestedAt`, `cancelRequestedBy`) that their owner sees at its next heartbeat. Ids
   * not in the hot table are ignored. A pending job with a cancel request is never claimed.
   */
  cancel(ids: readonly string[], actor: string): Promise<CancelResult>;

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

  /** Every known queue, ordered by name. */
  listQueues(): Promise<QueueInfo[]>;
  /** Upserts a queue's controls and returns the row as stored. */
  updateQueue(name: string, patch: QueuePatch): Promise<QueueInfo>;

  /** Counts and lifetime counters per known queue, ordered by name. */
  queueStats(): Promise<QueueStats[]>;
  /**
   * What each known queue holds now (due, scheduled, fetched, processing, dead, oldest due job),
   * ordered by name; cheap enough for every metrics scrape or health check (no archive read).
   */
  queueGauges(): Promise<QueueGauges[]>;
  /**
   * The due pending jobs of `queues` by job type (lower-case as stored), ordered by queue and
   * type, from at most `limit` due rows (counts are lower bounds when the read stops there).
   */
  dueByType(queues: readonly string[], limit: number): Promise<DueTypeCount[]>;
  /**
   * Concurrency keys with hot jobs, busiest first (running desc, then pending desc, queue, key),
   * at most `limit`; only `queue`'s when given. Reads every hot job with a key.
   */
  keyUsage(filter: { queue?: string; limit: number }): Promise<KeyUsage[]>;
  /** Metric buckets whose start is at or after `since`, newest first. */
  metricBuckets(since: Date): Promise<MetricBucket[]>;

  /**
   * Deletes up to `limit` rows of `rule`'s table that are older than it allows, in one short
   * transaction that locks only those rows (skipping rows another transaction holds); DLQ rows
   * leave their error groups, lifetime counters stay. A DLQ batch also drops (up to `limit` each)
   * the groups already empty whose last failure is older than the rule allows, and error-group
   * trend hours past two days. Resolves to how many rows of the table went.
   */
  purgeBatch(rule: RetentionRule, limit: number): Promise<number>;
  /** How many rows `rule` would purge now (bulk actions: the actions, not their items). */
  countPurgeable(rule: RetentionRule): Promise<number>;
  /**
   * Takes or renews the lease of duty `name` for `holder` for `ttlMs` (store clock): `true` when
   * nobody else holds an unexpired lease on it.
   */
  takeLease(name: string, holder: string, ttlMs: number): Promise<boolean>;

  /** Records that a worker process is alive (its row, stamped now by the store clock). */
  recordWorker(worker: Omit<WorkerPresence, 'lastSeenAt'>): Promise<void>;
  /** Forgets a worker process that stopped. */
  forgetWorker(id: string): Promise<void>;
  /** Worker processes seen within `withinMs`, most recently started first. */
  listWorkers(withinMs: number): Promise<WorkerPresence[]>;

  /** Store clock: what the store considers "now". */
  now(): Promise<Date>;

  /** The idempotency claim store sharing this store's database (memory: this process). */
  idempotencyClaims(): IdempotencyClaims;

  /** The rate buckets of `rateLimit`s, in this store's database (memory: this process). */
  rateLimits(): RateLimits;

  /** The schedules and ticks of recurring jobs, in this store's database. */
  schedules(): ScheduleStore;
}
