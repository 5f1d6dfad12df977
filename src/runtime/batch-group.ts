import type { ClaimedJob } from '../storage/model.js';

/** A claimed job waiting in a worker's local queue, with when it was claimed (ms on the clock). */
export interface Buffered {
  job: ClaimedJob;
  claimedAt: number;
}

/**
 * Gathers the batch that `first` (just taken from the local queue, its slot taken) starts: the
 * buffered jobs of the same type (ignoring case, as the registry does) and queue, in buffer
 * order, up to `max` jobs in all, each only while `acquire()` grants it a slot. Nothing waits for
 * a batch to fill: it is what the worker holds now. Removes the jobs it takes from `buffer`, which
 * keeps the order of the rest.
 */
export function takeBatch(
  buffer: Buffered[],
  first: Buffered,
  max: number,
  acquire: () => boolean,
): Buffered[] {
  const batch = [first];
  const type = first.job.type.toLowerCase();
  const { queue } = first.job;
  let kept = 0;
  let open = true;
  for (let read = 0; read < buffer.length; read++) {
    const item = buffer[read] as Buffered;
    open &&= batch.length < max;
    if (open && item.job.queue === queue && item.job.type.toLowerCase() === type) {
      if (acquire()) {
        batch.push(item);
        continue;
      }
      open = false; // no slot left
    }
    buffer[kept++] = item;
  }
  buffer.length = kept;
  return batch;
}
