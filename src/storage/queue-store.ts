/**
 * The queues capability of the storage seam: queue controls, per-queue counts and gauges, due jobs
 * by type, concurrency-key usage and the per-second metric buckets.
 */
import type { FailureReason } from '../job/state.js';
import type { DueTypeCount, KeyUsage, QueueGauges, QueueInfo, QueueStats } from './model.js';

/** A change to a queue's controls; absent fields keep their value. Creates the queue if missing. */
export interface QueuePatch {
  paused?: boolean;
  active?: boolean;
  maxWorkers?: number | null;
  zombieTimeoutSeconds?: number | null;
  /** Whether the queue's succeeded jobs get archive rows (counters and buckets count them either way). */
  keepSucceeded?: boolean;
}

/** One row of the per-second outcome aggregate (`metric_buckets`). */
export interface MetricBucket {
  bucketStart: Date;
  queue: string;
  outcome: 'succeeded' | 'failed';
  /** `null` for successes. */
  reason: FailureReason | null;
  count: number;
  durationCount: number;
  totalDurationMs: number;
  maxDurationMs: number | null;
}

/** Queue controls and what each queue holds. All methods may throw `ChokaQError` with a stable code. */
export interface QueueStore {
  /** Every known queue, ordered by name. */
  listQueues(): Promise<QueueInfo[]>;

  /** Upserts a queue's controls and returns the row as stored. */
  updateQueue(name: string, patch: QueuePatch): Promise<QueueInfo>;

  /** Counts and lifetime counters per known queue, ordered by name. */
  queueStats(): Promise<QueueStats[]>;

  /**
   * What each known queue holds now (due, scheduled, fetched, processing, dead, oldest due job),
   * ordered by name; cheap enough for every metrics scrape or health check (no archive read).
   */
  queueGauges(): Promise<QueueGauges[]>;

  /**
   * The due pending jobs of `queues` by job type (lower-case as stored), ordered by queue and
   * type, from at most `limit` due rows (counts are lower bounds when the read stops there).
   */
  dueByType(queues: readonly string[], limit: number): Promise<DueTypeCount[]>;

  /**
   * Concurrency keys with hot jobs, busiest first (running desc, then pending desc, queue, key),
   * at most `limit`; only `queue`'s when given. Reads every hot job with a key.
   */
  keyUsage(filter: { queue?: string; limit: number }): Promise<KeyUsage[]>;

  /** Metric buckets whose start is at or after `since`, newest first. */
  metricBuckets(since: Date): Promise<MetricBucket[]>;
}
