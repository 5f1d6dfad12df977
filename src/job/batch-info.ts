/**
 * A batch as its jobs and the operator read it (docs/workflows.md, "Batches"): its counts and its
 * callbacks. The storage seam keeps the rows (`storage/batch-store.ts`); a handler reads its own
 * batch with `ctx.batch()`.
 */

/** When a callback of a batch fires. */
export type BatchCallbackKind = 'success' | 'complete' | 'death';

/** Every {@link BatchCallbackKind}, in the order a batch lists its callbacks. */
export const BATCH_CALLBACK_KINDS: readonly BatchCallbackKind[] = ['success', 'complete', 'death'];

/** One callback of a stored batch. */
export interface BatchCallback {
  kind: BatchCallbackKind;
  /** The callback job's id. */
  jobId: string;
  /** When the batch fired it (made its job due); `null`: not (yet). */
  firedAt: Date | null;
}

/** A stored batch: its counts and callbacks. */
export interface BatchInfo {
  id: string;
  /** Members written with the batch. */
  total: number;
  /** Members archived. */
  succeeded: number;
  /** Members in the DLQ (or purged from it) for another reason than a cancel. */
  died: number;
  /** Members cancelled. */
  cancelled: number;
  /** Members not finished: `total − succeeded − died − cancelled`. */
  pending: number;
  createdAt: Date;
  /** The callbacks given, in the order success, complete, death. */
  callbacks: BatchCallback[];
}

/** A job's batch as its handler reads it (`ctx.batch()`): the batch and the job's place in it. */
export interface JobBatch extends BatchInfo {
  /** `member`, or the kind of the batch's callback this job is. */
  role: 'member' | BatchCallbackKind;
}
