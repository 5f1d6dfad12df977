/** `assertEnqueued`: a job of a type, optionally with a matching payload, waits in a store. */
import type { ChokaQ } from '../chokaq.js';
import type { JobDefinition } from '../job/define-job.js';
import { isActiveState } from '../job/state.js';
import type { HotJob } from '../storage/model.js';
import type { Store } from '../storage/store.js';

/** Most hot jobs {@link assertEnqueued} reads. */
const SCAN_LIMIT = 100_000;

/**
 * Resolves to a waiting (awaiting, pending or scheduled) job of `job`'s type whose payload, as enqueued
 * and read back from JSON, passes `match` (default: any payload); of several, the first
 * enqueued. Reads up to 100,000 hot jobs.
 * @throws Error naming the type when no waiting job matches, with how many of the type wait.
 */
export async function assertEnqueued<In, Out>(
  source: ChokaQ | Store,
  job: JobDefinition<In, Out>,
  match: (payload: In) => boolean = () => true,
): Promise<HotJob> {
  // By shape, not instanceof: the engine may come from another copy of the package.
  const store = 'storage' in source ? source.storage : source;
  const hot = await store.operator.listHot({ limit: SCAN_LIMIT });
  const waiting = hot.filter((row) => row.type === job.type && !isActiveState(row.state));
  // listHot lists newest first; the first enqueued of several matches is the one returned.
  const found = waiting.reverse().find((row) => match(JSON.parse(row.payload) as In));
  if (found) return found;
  throw new Error(
    `assertEnqueued: no waiting job of type '${job.type}' matches (${waiting.length} of that type waiting)`,
  );
}
