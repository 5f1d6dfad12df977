/**
 * The retention capability of the memory provider: the batches of `RetentionStore.purgeBatch`,
 * oldest first, over the archive, the DLQ and the metric buckets of the store's shared tables, and
 * over what the bulk and schedule parts keep (audit entries, bulk actions, schedule ticks).
 *
 * @internal Reach it through `memory().retention`.
 */
import type { RetentionRule, RetentionStore } from '../retention.js';
import type { MemoryBulk } from './bulk.js';
import type { MemorySchedules } from './schedules.js';
import { atomically, type MemoryState } from './state.js';
import type { Tables } from './tables.js';

/** Whether a row of `queue` falls under `rule`'s queue condition. */
function inScope(rule: RetentionRule, queue: string): boolean {
  if (rule.queue !== undefined) return queue === rule.queue;
  return !(rule.exceptQueues ?? []).includes(queue);
}

/** The ids (or bucket keys) of the rows of `rule` older than `cutoff`, oldest first. */
function expiredRows(tables: Tables, rule: RetentionRule, cutoff: Date): string[] {
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
      // A row an awaiting job depends on stays: the job reads the success there.
      return older(
        tables.archive,
        (row) => row.finishedAt,
        (row) => row.queue,
      ).filter((id) => !tables.isAwaited(id));
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
function deleteRows(
  tables: Tables,
  rule: RetentionRule,
  keys: readonly string[],
  cutoff: Date,
  now: Date,
): number {
  // Before this batch empties any group, as in the SQL statement (its CTEs share one snapshot).
  if (rule.table === 'dlq') tables.pruneGroups((queue) => inScope(rule, queue), cutoff, now);
  for (const key of keys) {
    if (rule.table === 'archive') {
      tables.archive.delete(key);
      tables.forgetJob(key);
    } else if (rule.table === 'metricBuckets') tables.buckets.delete(key);
    else if (rule.table === 'dlq') {
      const row = tables.dead.get(key);
      if (row === undefined) continue;
      tables.dead.delete(key);
      tables.removeFromGroup(row);
      tables.forgetJob(key);
    }
  }
  return keys.length;
}

/** The memory {@link RetentionStore}. */
export class MemoryRetention implements RetentionStore {
  /**
   * @param state The store's tables and clock.
   * @param bulk The store's bulk actions and audit trail.
   * @param schedules The store's schedules, whose ticks it purges.
   */
  constructor(
    private readonly state: MemoryState,
    private readonly bulk: Pick<
      MemoryBulk,
      'purgeAudit' | 'countAudit' | 'purgeActions' | 'countActions'
    >,
    private readonly schedules: Pick<MemorySchedules, 'purgeTicks' | 'countTicks'>,
  ) {}

  /** {@inheritDoc RetentionStore.purgeBatch} */
  purgeBatch(rule: RetentionRule, limit: number): Promise<number> {
    return atomically(() => {
      const now = this.state.time();
      const cutoff = new Date(now.getTime() - rule.olderThanMs);
      if (rule.table === 'audit') return this.bulk.purgeAudit(cutoff, limit);
      if (rule.table === 'bulkActions') return this.bulk.purgeActions(cutoff, limit);
      if (rule.table === 'scheduleTicks') return this.schedules.purgeTicks(cutoff, limit);
      const expired = expiredRows(this.state.tables, rule, cutoff).slice(0, limit);
      return deleteRows(this.state.tables, rule, expired, cutoff, now);
    });
  }

  /** {@inheritDoc RetentionStore.countPurgeable} */
  countPurgeable(rule: RetentionRule): Promise<number> {
    return atomically(() => {
      const cutoff = new Date(this.state.time().getTime() - rule.olderThanMs);
      if (rule.table === 'audit') return this.bulk.countAudit(cutoff);
      if (rule.table === 'bulkActions') return this.bulk.countActions(cutoff);
      if (rule.table === 'scheduleTicks') return this.schedules.countTicks(cutoff);
      return expiredRows(this.state.tables, rule, cutoff).length;
    });
  }
}
