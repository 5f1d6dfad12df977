/**
 * The batches capability of the storage seam (docs/workflows.md, "Batches"): jobs written as one
 * batch, counted as they finish, and callback jobs the counts fire, each once. A batch is one row
 * of counters; a member's move out of the hot table (or back, resurrected) changes them in the
 * move's own atomic step, which also fires the callbacks the change makes due. A job outside a
 * batch costs nothing more.
 */
import type { BatchCallbackKind, BatchInfo } from '../job/batch-info.js';
import type { EnqueueResult, NewJob } from './model.js';

export {
  BATCH_CALLBACK_KINDS,
  type BatchCallback,
  type BatchCallbackKind,
  type BatchInfo,
} from '../job/batch-info.js';

/** A batch to write (`BatchStore.enqueue`), checked by the caller. */
export interface NewBatch {
  /** The batch's id (1–50 characters), unique among stored batches. */
  id: string;
  /**
   * Its members: at least one; none with an idempotency key (each must be a new row). They may
   * wait for each other or for stored jobs (`dependsOn`).
   */
  members: readonly NewJob[];
  /**
   * Its callback jobs by kind (each optional): written `awaiting`, with no idempotency key and no
   * dependencies, until the batch fires them.
   */
  callbacks: Partial<Record<BatchCallbackKind, NewJob>>;
}

/** A job's place in a batch. */
export interface BatchMembership {
  batch: BatchInfo;
  /** `member`, or the kind of the batch's callback the job is. */
  role: 'member' | BatchCallbackKind;
}

/** Batches with callbacks. All methods may throw `ChokaQError` with a stable code. */
export interface BatchStore {
  /**
   * Writes the batch, its members and its callbacks in one atomic step (all or none); members with
   * dependencies are linked in that step (as `JobStore.enqueue`). Resolves to the members' results
   * in order, then the callbacks' (success, complete, death; those given), each `created: true`.
   * @throws ChokaQError `CHOKAQ_DUPLICATE_JOB_ID` when a job id is active, or the batch id is in
   *   use; `CHOKAQ_UNKNOWN_DEPENDENCY` as `JobStore.enqueue`. Nothing is written.
   */
  enqueue(batch: NewBatch): Promise<EnqueueResult[]>;

  /**
   * {@link BatchStore.enqueue} inside the caller's open transaction (a `pg` client after `BEGIN`),
   * so it commits or rolls back with the caller's writes. Only stores that support it (PostgreSQL).
   */
  enqueueWithin?(transaction: unknown, batch: NewBatch): Promise<EnqueueResult[]>;

  /** The batch `id`, or `null` when there is none (never written, or deleted by retention). */
  get(id: string): Promise<BatchInfo | null>;

  /** The batch job `jobId` is a member or a callback of; `null`: none (or the batch is gone). */
  ofJob(jobId: string): Promise<BatchMembership | null>;

  /**
   * Retention: deletes up to `limit` batches none of whose members remains (each finished and
   * its row left the archive or the DLQ) and none of whose fired callback jobs is still hot, with
   * their callback jobs still awaiting (they can never fire). Resolves to how many went.
   */
  purge(limit: number): Promise<number>;
}
