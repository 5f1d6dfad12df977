/**
 * The public read model: the shapes of jobs, queues and results that ChokaQ's calls return.
 * Every storage provider returns exactly these shapes (the conformance suite checks it).
 */
import type { FailureReason, HotState } from '../job/state.js';

/** Result of inserting one {@link NewJob}, in input order. */
export interface EnqueueResult {
  /** The new job's id, or the id of the active job that already holds the idempotency key. */
  id: string;
  /** `false` when an active job with the same idempotency key already existed (nothing written). */
  created: boolean;
}

/** A row of the hot table: pending, fetched or processing. */
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
}

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
  failedAt: Date;
}

/** Where {@link Store.getJob} found a job. */
export type FoundJob =
  | { where: 'hot'; job: HotJob }
  | { where: 'archive'; job: ArchivedJob }
  | { where: 'dlq'; job: DeadJob };

/** What one {@link Store.cancel} did. */
export interface CancelResult {
  /** Pending or fetched jobs moved to the DLQ as `Cancelled`. */
  cancelled: string[];
  /** Processing jobs that now carry a cancel request; their owner aborts them at its next heartbeat. */
  requested: string[];
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
  updatedAt: Date;
}

/** Counts and lifetime counters of one queue. */
export interface QueueStats {
  queue: string;
  pending: number;
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
