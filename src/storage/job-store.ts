/**
 * The jobs capability of the storage seam: a job's way from enqueue through claim, start, settle,
 * heartbeat, rescue, promotion and cancellation. Every write is guarded by the job's lease or
 * state, with counters and metric buckets changed in the same transaction as the row.
 */
import type { FailureReason } from '../job/state.js';
import type { CancelResult, ClaimedJob, EnqueueResult, NewJob } from './model.js';

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
 * in (see {@link JobStore.settleAndClaim}).
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

/** What {@link JobStore.settleAndClaim} did. */
export interface HandoffResult {
  /** One boolean per settlement, as {@link JobStore.settle} returns them. */
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
      /**
       * The run used durable steps: when the job keeps no archive row, its steps and events go
       * with it. Default: `false`.
       */
      steps?: boolean;
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

/** What {@link JobStore.rescue} looks for. */
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

/** What one {@link JobStore.rescue} did. */
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

/** What one {@link JobStore.promote} did. */
export interface PromoteResult {
  /** Jobs moved scheduled → pending, per queue (queues with none are left out). */
  promoted: { queue: string; count: number }[];
  /**
   * When the next scheduled job not moved by this pass is due, in milliseconds from now on the
   * store clock (0 when it is already due); `null` when nothing else is scheduled.
   */
  nextDueInMs: number | null;
}

/** The verbs of a job's life cycle. All methods may throw `ChokaQError` with a stable code. */
export interface JobStore {
  /**
   * Inserts jobs in one atomic step and ensures a `queues` row for each queue. A job whose
   * idempotency key is held by an active (hot) job is not inserted; its result carries the holder's
   * id and `created: false`, also under concurrent inserts of the same key. A job whose id is
   * already in the hot table fails the whole call with `CHOKAQ_DUPLICATE_JOB_ID`, writing nothing.
   */
  enqueue(jobs: readonly NewJob[]): Promise<EnqueueResult[]>;

  /**
   * Same as {@link JobStore.enqueue}, but inside the caller's own open transaction (for PostgreSQL a
   * `pg` client after `BEGIN`), so the jobs commit or roll back with the caller's data. Providers
   * without external transactions omit it.
   */
  enqueueWithin?(transaction: unknown, jobs: readonly NewJob[]): Promise<EnqueueResult[]>;

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
   * {@link JobStore.settle}, and in the same atomic step hands the slots its `archive` items free in
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
}
