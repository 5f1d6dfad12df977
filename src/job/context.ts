/**
 * The context of one run, in a file of its own so that the batch handler types (./batch.ts), which
 * `defineJob` (./define-job.ts) imports, can name it without importing the definitions back.
 */
import type { Logger } from '../observability/logging/logger.js';
import type { Duration } from '../util/duration.js';
import type { JobBatch } from './batch-info.js';
import type { JobDependency } from './dependencies.js';

/** Options of one {@link JobContext.step}. */
export interface StepOptions {
  /**
   * A transactional step (PostgreSQL): a `pg` client inside your open transaction (after
   * `BEGIN`). The step's record is written on it after `fn` returns, so your writes in `fn`, the
   * jobs you enqueue there with `{ client }` and the record commit together or not at all; commit
   * (or roll back) yourself after the step. When another run of the job recorded the step first,
   * the record fails with `CHOKAQ_STEP_RECORDED` and your transaction cannot commit. Default: none
   * (the record is written on its own once `fn` returns).
   */
  client?: unknown;
}

/** Options of one {@link JobContext.waitForEvent}. */
export interface WaitForEventOptions {
  /** How long to wait, from the first time the run reached the wait: at most 365 days. */
  timeout: Duration;
}

/** What {@link JobContext.waitForEvent} returns: the event's data, or that none came in time. */
export type EventResult<T> = { received: true; data: T } | { received: false };

/** What a handler (and middleware) receives besides the payload. */
export interface JobContext {
  /** Job id. */
  readonly id: string;
  /** Stable type key. */
  readonly type: string;
  readonly queue: string;
  /** 1 for the first run, 2 for the first retry, … */
  readonly attempt: number;
  /** When the job was enqueued. */
  readonly createdAt: Date;
  /** Fires when the run must stop (shutdown, timeout, cancellation). */
  readonly signal: AbortSignal;
  /**
   * Reports progress 0–100 (clamped) to `job:progress` listeners; the last value is stored with
   * the job at its next heartbeat, so operators see it in the job's detail.
   */
  progress(percent: number): Promise<void>;
  /** Logger scoped to this job. */
  readonly log: Logger;
  /**
   * Marks the run as skipped on purpose (for example a duplicate): when the run then ends without
   * error, the job is archived with this note and a `job:skipped` event is emitted.
   */
  skip(reason: string): void;
  /**
   * The jobs this one waited for (its `dependsOn`, docs/workflows.md), in the order they were
   * given, each with its state and what its handler returned; `[]` for a job without.
   */
  dependencies(): Promise<JobDependency[]>;
  /**
   * A durable step (docs/workflows.md#durable-steps): the first run of the job to reach it calls
   * `fn` and records what it returned (as JSON) under `name`; a later run of the job — a retry, a
   * rescue, a resurrection — gets the recorded result without calling `fn`. Either way it resolves
   * to the result as read back from JSON, so every run sees the same value. `name` is unique
   * within the job (1–200 characters). A result that cannot be JSON or is larger than 64 KiB
   * fails with `CHOKAQ_STEP_RESULT_INVALID`. `fn` runs at least once: a crash after it returned
   * and before its record runs it again, unless it is a transactional step (`options.client`).
   */
  step<T>(name: string, fn: () => T | Promise<T>, options?: StepOptions): Promise<T>;
  /**
   * A durable sleep: the job gives its slot back and is scheduled again at the end of the sleep,
   * measured from the first time a run reached it; the run that reaches it afterwards goes on.
   * It ends this run (the call does not return), so code after it runs in a later run, with the
   * recorded steps before it replayed. `name` is a step name, as in {@link step}.
   */
  sleep(name: string, duration: Duration): Promise<void>;
  /**
   * Waits for an event sent to this job on `topic` (`chokaq.sendEvent(id, topic, data)`), without
   * holding a slot: an event already sent is taken at once (the oldest first); otherwise the job
   * gives its slot back until an event comes or `options.timeout` passes, and this run ends. The
   * outcome is recorded under `name`, so later runs get the same one.
   */
  waitForEvent<T = unknown>(
    name: string,
    topic: string,
    options: WaitForEventOptions,
  ): Promise<EventResult<T>>;
  /**
   * The batch this job belongs to (`chokaq.enqueueBatch`, docs/workflows.md): as a member, or as
   * one of its callbacks (`role`), with the batch's counts as they are when read; `null` for a
   * job in no batch (or whose batch retention deleted).
   */
  batch(): Promise<JobBatch | null>;
}
