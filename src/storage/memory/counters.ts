/**
 * Side effects of settlements on `stats_summary` and `metric_buckets`: lifetime counters (never
 * decremented) and per-second outcome buckets, applied in the same synchronous step as the row
 * move they describe.
 *
 * @internal
 */
import type { FailureReason } from '../../job/state.js';
import type { MetricBucket } from '../queue-store.js';
import { bucketKey, type Tables } from './tables.js';

/** `time` truncated to the whole UTC second, as `date_trunc('second', …)` does. */
export function truncateToSecond(time: Date): Date {
  const ms = time.getTime();
  return new Date(ms - (((ms % 1000) + 1000) % 1000));
}

/** Adds one outcome to its bucket, creating the bucket on first use. */
function addToBucket(
  tables: Tables,
  now: Date,
  queue: string,
  outcome: MetricBucket['outcome'],
  reason: FailureReason | null,
  durationMs: number | null,
): void {
  const probe = { bucketStart: truncateToSecond(now), queue, outcome, reason };
  const key = bucketKey(probe);
  let bucket = tables.buckets.get(key);
  if (bucket === undefined) {
    bucket = { ...probe, count: 0, durationCount: 0, totalDurationMs: 0, maxDurationMs: null };
    tables.buckets.set(key, bucket);
  }
  bucket.count += 1;
  if (durationMs !== null) {
    bucket.durationCount += 1;
    bucket.totalDurationMs += durationMs;
    bucket.maxDurationMs =
      bucket.maxDurationMs === null ? durationMs : Math.max(bucket.maxDurationMs, durationMs);
  }
}

/** A job of `queue` succeeded (hot → archive) after running `durationMs`. */
export function recordSuccess(tables: Tables, now: Date, queue: string, durationMs: number): void {
  const counters = tables.countersOf(queue);
  counters.succeededTotal += 1;
  counters.lastActivityAt = new Date(now);
  addToBucket(tables, now, queue, 'succeeded', null, durationMs);
}

/** A job of `queue` failed for good (hot → DLQ) with `reason`. */
export function recordFailure(
  tables: Tables,
  now: Date,
  queue: string,
  reason: FailureReason,
): void {
  const counters = tables.countersOf(queue);
  counters.failedTotal += 1;
  counters.lastActivityAt = new Date(now);
  addToBucket(tables, now, queue, 'failed', reason, null);
}

/** A job of `queue` was rescheduled (retry or circuit delay). No bucket: not an outcome. */
export function recordRetry(tables: Tables, now: Date, queue: string): void {
  const counters = tables.countersOf(queue);
  counters.retriedTotal += 1;
  counters.lastActivityAt = new Date(now);
}
