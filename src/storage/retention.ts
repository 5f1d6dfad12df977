/**
 * The storage half of retention: which tables are purged, by which age, and the rule a store
 * applies in bounded batches (`RetentionStore.purgeBatch`). Lifetime counters (`stats_summary`) are never
 * touched; DLQ rows leave their error groups as they go, and groups left empty go once their last
 * failure is older than the DLQ rule's age.
 */

/** Tables retention purges. */
export type RetentionTable =
  'archive' | 'dlq' | 'metricBuckets' | 'audit' | 'bulkActions' | 'scheduleTicks';

/** Every {@link RetentionTable}, in the order a pass purges them. */
export const RETENTION_TABLES: readonly RetentionTable[] = [
  'archive',
  'dlq',
  'metricBuckets',
  'audit',
  'bulkActions',
  'scheduleTicks',
];

/**
 * Which rows of one table are old enough to go: those whose age (by the store clock) exceeds
 * `olderThanMs` — archive by finish time, DLQ by failure time, metric buckets by their second,
 * audit entries by their time, bulk actions (not running) by when they finished or expired,
 * schedule ticks by when they fired.
 */
export interface RetentionRule {
  table: RetentionTable;
  olderThanMs: number;
  /** Archive and DLQ: only this queue. */
  queue?: string;
  /** Archive and DLQ: every queue but these (they have rules of their own). */
  exceptQueues?: readonly string[];
}

/** Deleting what retention allows. All methods may throw `ChokaQError` with a stable code. */
export interface RetentionStore {
  /**
   * Deletes up to `limit` rows of `rule`'s table that are older than it allows, in one short
   * transaction that locks only those rows (skipping rows another transaction holds); DLQ rows
   * leave their error groups, lifetime counters stay. A DLQ batch also drops (up to `limit` each)
   * the groups already empty whose last failure is older than the rule allows, and error-group
   * trend hours past two days. Resolves to how many rows of the table went.
   */
  purgeBatch(rule: RetentionRule, limit: number): Promise<number>;

  /** How many rows `rule` would purge now (bulk actions: the actions, not their items). */
  countPurgeable(rule: RetentionRule): Promise<number>;
}
