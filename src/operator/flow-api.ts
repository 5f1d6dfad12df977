/**
 * `chokaq.flow`: what flow control is doing now — the concurrency keys in use with their limits
 * and running and pending jobs, and the rate buckets with their limits, tokens, blocks and
 * throttled counts. Every process sees the same figures: both live in the store.
 */
import type { KeyUsage } from '../storage/model.js';
import type { RateBucket } from '../storage/rate-limits.js';
import type { Store } from '../storage/store.js';
import { checkInteger, checkOptions } from '../util/check.js';
import { validateQueueName } from '../job/envelope.js';

/** Most rows one call returns. */
export const MAX_FLOW_ROWS = 1000;

/** What the flow API needs from the engine. */
export interface FlowApiOptions {
  store: Store;
  open: () => Promise<void>;
}

/** Concurrency keys and rate buckets in use (`chokaq.flow`). */
export class FlowApi {
  constructor(private readonly options: FlowApiOptions) {}

  /**
   * The concurrency keys with hot jobs, busiest first (running, then pending), at most `limit`
   * (1–1000, default 20); only `queue`'s when given.
   * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT`, `CHOKAQ_INVALID_QUEUE` or `CHOKAQ_UNKNOWN_OPTION`.
   */
  async keys(options?: { queue?: string; limit?: number }): Promise<KeyUsage[]> {
    const checked = checkOptions(options, 'options', ['queue', 'limit'], 'CHOKAQ_INVALID_ARGUMENT');
    if (checked.queue !== undefined) validateQueueName(checked.queue, 'options.queue');
    const limit = checkLimit(checked.limit);
    await this.options.open();
    return this.options.store.queues.keyUsage({
      ...(checked.queue === undefined ? {} : { queue: checked.queue }),
      limit,
    });
  }

  /**
   * The rate buckets, most throttled first, at most `limit` (1–1000, default 20).
   * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` or `CHOKAQ_UNKNOWN_OPTION`.
   */
  async buckets(options?: { limit?: number }): Promise<RateBucket[]> {
    const checked = checkOptions(options, 'options', ['limit'], 'CHOKAQ_INVALID_ARGUMENT');
    const limit = checkLimit(checked.limit);
    await this.options.open();
    return this.options.store.rateLimits.list(limit);
  }
}

/** A page size: 1–1000, default 20. */
function checkLimit(limit: unknown): number {
  if (limit === undefined) return 20;
  return checkInteger(
    limit,
    'options.limit',
    { min: 1, max: MAX_FLOW_ROWS },
    'CHOKAQ_INVALID_ARGUMENT',
  );
}
