/** Flow control: the concurrency keys in use with their limits, and the rate buckets. */
import type { ChokaQ } from '../../chokaq.js';
import type { KeyUsage } from '../../storage/model.js';
import type { RateBucket } from '../../storage/rate-limits.js';
import { checkOptions } from '../../util/check.js';
import { queryJson, type Route } from '../routes.js';

/** What `GET api/flow` answers. */
export interface FlowView {
  /** Busiest keys first (`chokaq.flow.keys`). */
  keys: KeyUsage[];
  /** Most throttled buckets first (`chokaq.flow.buckets`). */
  buckets: RateBucket[];
}

/**
 * The route of `api/flow`: `?q={"queue":…,"limit":…}` narrows the keys to one queue and sets how
 * many rows of each list come back (default 20, at most 1000; the flow API checks both).
 */
export function flowRoutes(chokaq: ChokaQ): Route[] {
  return [
    {
      method: 'GET',
      path: 'flow',
      access: 'read',
      handle: async ({ query }): Promise<FlowView> => {
        const q = checkOptions(
          queryJson(query) as { queue?: string; limit?: number },
          'q',
          ['queue', 'limit'],
          'CHOKAQ_INVALID_ARGUMENT',
        );
        const limit = q.limit === undefined ? {} : { limit: q.limit };
        const [keys, buckets] = await Promise.all([
          chokaq.flow.keys({ ...limit, ...(q.queue === undefined ? {} : { queue: q.queue }) }),
          chokaq.flow.buckets(limit),
        ]);
        return { keys, buckets };
      },
    },
  ];
}
