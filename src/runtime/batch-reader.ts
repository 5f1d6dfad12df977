import type { JobBatch } from '../job/batch-info.js';
import type { Store } from '../storage/store.js';

/** Reads the batch of job `id` for its handler (`ctx.batch()`); `null`: it is in none. */
export type BatchReader = (id: string) => Promise<JobBatch | null>;

/** The {@link BatchReader} of a job outside every store (its handler called directly). */
export const NO_BATCH: BatchReader = () => Promise.resolve(null);

/** A {@link BatchReader} over `store`: the batch the job is a member or a callback of. */
export function batchReader(store: Pick<Store, 'batches'>): BatchReader {
  return async (id) => {
    const found = await store.batches.ofJob(id);
    return found === null ? null : { ...found.batch, role: found.role };
  };
}
