/**
 * `chokaq.batches`: the batches of `chokaq.enqueueBatch` (docs/workflows.md, "Batches"), read by
 * id: their counts and their callbacks, each with when it fired.
 */
import { validateJobId } from '../job/envelope.js';
import type { BatchInfo } from '../storage/batch-store.js';
import type { Store } from '../storage/store.js';

/** What the batches API needs from the engine. */
export interface BatchesApiOptions {
  store: Pick<Store, 'batches'>;
  open: () => Promise<void>;
}

/** Batches by id (`chokaq.batches`). */
export class BatchesApi {
  constructor(private readonly options: BatchesApiOptions) {}

  /**
   * The batch `id` (as `enqueueBatch` returned it, or a job's detail shows it): its counts and
   * its callbacks; `null` when there is none (never written, or deleted by retention once done).
   * @throws ChokaQError `CHOKAQ_INVALID_JOB_ID` when `id` is not a string of 1–50 characters.
   */
  async get(id: string): Promise<BatchInfo | null> {
    validateJobId(id, 'id');
    await this.options.open();
    return this.options.store.batches.get(id);
  }
}
