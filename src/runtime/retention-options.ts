/**
 * The `retention` option of `new ChokaQ` and `queues.<name>.retention`: how long finished jobs,
 * dead jobs, metric buckets, audit entries, bulk actions and schedule ticks are kept (the ages,
 * retention-ages.ts), and how the background purge (retention.ts) runs, with its defaults and
 * bounds. config/retention.ts checks it.
 */
import { MAX_TIMER_MS, type Duration } from '../util/duration.js';
import type { RetentionAges } from './retention-ages.js';

/** The `retention` option. */
export interface RetentionOptions extends RetentionAges {
  /** Mean time between purge passes (±20 %), 1 s – 24.8 days. Default: `'5m'`. */
  interval?: Duration;
  /** Rows per batch, each batch one short transaction (1–10,000). Default: `1000`. */
  batchSize?: number;
}

/** A queue's own ages (`queues.<name>.retention`). */
export type QueueRetention = Pick<RetentionAges, 'archive' | 'dlq'>;

/** The defaults of {@link RetentionOptions}' purge settings. */
export const RETENTION_DEFAULTS = { interval: '5m', batchSize: 1000 } as const;

/** The bounds of `retention.interval`, in ms. */
export const RETENTION_INTERVAL = { min: 1000, max: MAX_TIMER_MS } as const;

/** The bounds of `retention.batchSize`. */
export const RETENTION_BATCH_SIZE = { min: 1, max: 10_000 } as const;
