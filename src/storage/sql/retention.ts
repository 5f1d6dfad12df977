/**
 * Retention on SQL stores: one bounded batch of one table's expired rows per call, each batch a
 * single statement (its own short transaction) that locks only the rows it deletes, skipping
 * rows another transaction holds. The statements are the `retention_*.sql` files; the age and
 * queue names are bind parameters.
 */
import type { RetentionRule, RetentionTable } from '../retention.js';
import type { Executor } from './executor.js';
import type { QueryName } from './generated.js';
import { toNumber, type Row } from './rows.js';

/** The statements of the store, by name, for its schema. */
type Statements = Readonly<Record<QueryName, string>>;

/** Each table's batch statement and count statement. */
const STATEMENTS: Record<RetentionTable, { batch: QueryName; count: QueryName }> = {
  archive: { batch: 'retention_archive', count: 'retention_count_archive' },
  dlq: { batch: 'retention_dlq', count: 'retention_count_dlq' },
  metricBuckets: { batch: 'retention_metric_buckets', count: 'retention_count_metric_buckets' },
  audit: { batch: 'retention_audit', count: 'retention_count_audit' },
  bulkActions: { batch: 'retention_bulk_actions', count: 'retention_count_bulk_actions' },
  scheduleTicks: { batch: 'retention_schedule_ticks', count: 'retention_count_schedule_ticks' },
};

/**
 * A rule's queue parameters (the archive's and the DLQ's statements only): its queue and its
 * excepted queues, `null` for none.
 */
function queueParams(rule: RetentionRule): unknown[] {
  if (rule.table !== 'archive' && rule.table !== 'dlq') return [];
  const except = rule.exceptQueues !== undefined && rule.exceptQueues.length > 0;
  return [rule.queue ?? null, except ? rule.exceptQueues : null];
}

/** Deletes up to `limit` expired rows of a rule's table; resolves to how many went. */
export async function purgeBatch(
  db: Executor,
  sql: Statements,
  rule: RetentionRule,
  limit: number,
): Promise<number> {
  const [row] = await db.query<Row>(
    sql[STATEMENTS[rule.table].batch],
    [rule.olderThanMs, limit, ...queueParams(rule)],
    UNPREPARED,
  );
  return toNumber(row?.n);
}

/** How many rows a rule would purge now (bulk actions: the actions, not their items). */
export async function countPurgeable(
  db: Executor,
  sql: Statements,
  rule: RetentionRule,
): Promise<number> {
  const [row] = await db.query<Row>(
    sql[STATEMENTS[rule.table].count],
    [rule.olderThanMs, ...queueParams(rule)],
    UNPREPARED,
  );
  return toNumber(row?.n);
}

/**
 * Statements here are planned for each call's values: a cached generic plan would ignore the age
 * that picks the index, and the queue conditions a NULL parameter turns off.
 */
const UNPREPARED = { prepare: false } as const;
