/**
 * Retention on the memory store: the batches of `RetentionStore.purgeBatch` over the archive, the DLQ and
 * the metric buckets (audit entries and bulk actions are kept by `MemoryBulk`), oldest first.
 */
import type { RetentionRule } from '../retention.js';
import type { Tables } from './tables.js';

/** Whether a row of `queue` falls under `rule`'s queue condition. */
function inScope(rule: RetentionRule, queue: string): boolean {
  if (rule.queue !== undefined) return queue === rule.queue;
  return !(rule.exceptQueues ?? []).includes(queue);
}

/** The ids (or bucket keys) of the rows of `rule` older than `cutoff`, oldest first. */
export function expiredRows(tables: Tables, rule: RetentionRule, cutoff: Date): string[] {
  const older = <T>(
    rows: Iterable<[string, T]>,
    time: (row: T) => Date,
    queue: (row: T) => string,
  ) =>
    [...rows]
      .filter(([, row]) => time(row) < cutoff && inScope(rule, queue(row)))
      .sort(([, a], [, b]) => time(a).getTime() - time(b).getTime())
      .map(([key]) => key);
  switch (rule.table) {
    case 'archive':
      return older(
        tables.archive,
        (row) => row.finishedAt,
        (row) => row.queue,
      );
    case 'dlq':
      return older(
        tables.dead,
        (row) => row.failedAt,
        (row) => row.queue,
      );
    case 'metricBuckets':
      return older(
        tables.buckets,
        (row) => row.bucketStart,
        () => '',
      );
    default:
      return [];
  }
}

/**
 * Deletes `keys` (the batch) from `rule`'s table; DLQ rows leave their groups, and a DLQ batch
 * first drops the groups already empty whose last failure is before `cutoff`, and trend hours
 * past two days before `now`.
 */
export function deleteRows(
  tables: Tables,
  rule: RetentionRule,
  keys: readonly string[],
  cutoff: Date,
  now: Date,
): number {
  // Before this batch empties any group, as in the SQL statement (its CTEs share one snapshot).
  if (rule.table === 'dlq') tables.pruneGroups((queue) => inScope(rule, queue), cutoff, now);
  for (const key of keys) {
    if (rule.table === 'archive') tables.archive.delete(key);
    else if (rule.table === 'metricBuckets') tables.buckets.delete(key);
    else if (rule.table === 'dlq') {
      const row = tables.dead.get(key);
      if (row === undefined) continue;
      tables.dead.delete(key);
      tables.removeFromGroup(row);
    }
  }
  return keys.length;
}
