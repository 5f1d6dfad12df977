/**
 * The context of one run, in a file of its own so that the batch handler types (./batch.ts), which
 * `defineJob` (./define-job.ts) imports, can name it without importing the definitions back.
 */
import type { Logger } from '../observability/logging/logger.js';
import type { JobBatch } from './batch-info.js';
import type { JobDependency } from './dependencies.js';

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
   * The batch this job belongs to (`chokaq.enqueueBatch`, docs/workflows.md): as a member, or as
   * one of its callbacks (`role`), with the batch's counts as they are when read; `null` for a
   * job in no batch (or whose batch retention deleted).
   */
  batch(): Promise<JobBatch | null>;
}
