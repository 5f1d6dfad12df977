/**
 * Retention on SQL stores: one bounded batch of one table's expired rows per call, each batch a
 * single statement (its own short transaction) that locks only the rows it deletes, skipping
 * rows another transaction holds. The statements are put together from the fixed fragments
 * below; the age and queue names are bind parameters, never SQL text.
 */
import type { RetentionRule, RetentionTable } from '../retention.js';
import type { Executor } from './executor.js';
import { toNumber, type Row } from './rows.js';

/** The age condition of each table on `$1` (ms), as an index range where one serves it. */
const EXPIRED: Record<RetentionTable, string> = {
  archive: `finished_at < now() - $1::bigint * interval '1 millisecond'`,
  dlq: `failed_at < now() - $1::bigint * interval '1 millisecond'`,
  metricBuckets: `bucket_start < now() - $1::bigint * interval '1 millisecond'`,
  audit: `at < now() - $1::bigint * interval '1 millisecond'`,
  bulkActions: `status <> 'running' AND coalesce(finished_at, expires_at) < now() - $1::bigint * interval '1 millisecond'`,
  scheduleTicks: `fired_at < now() - $1::bigint * interval '1 millisecond'`,
};

/** A rule's queue condition (archive and DLQ only) on parameter `$3`, and its value. */
function queueCondition(rule: RetentionRule): { sql: string; params: unknown[] } {
  if (rule.queue !== undefined) return { sql: ' AND queue = $3::text', params: [rule.queue] };
  if (rule.exceptQueues !== undefined && rule.exceptQueues.length > 0)
    return { sql: ' AND queue <> ALL($3::text[])', params: [rule.exceptQueues] };
  return { sql: '', params: [] };
}

/** One table's batch statement: `$1` age in ms, `$2` most rows, `$3` the queue condition. */
function batchStatement(schema: string, table: RetentionTable, queueSql: string): string {
  const expired = EXPIRED[table];
  switch (table) {
    case 'archive':
      return `WITH picked AS (
          SELECT id FROM ${schema}.jobs_archive WHERE ${expired}${queueSql}
          ORDER BY finished_at LIMIT $2::int FOR UPDATE SKIP LOCKED
        ), deleted AS (
          DELETE FROM ${schema}.jobs_archive a USING picked p WHERE a.id = p.id RETURNING 1
        ) SELECT count(*) AS n FROM deleted`;
    case 'dlq':
      // As purge_dead.sql: the deleted rows leave their error groups in the same statement.
      return `WITH picked AS (
          SELECT id FROM ${schema}.jobs_dlq WHERE ${expired}${queueSql}
          ORDER BY failed_at LIMIT $2::int FOR UPDATE SKIP LOCKED
        ), deleted AS (
          DELETE FROM ${schema}.jobs_dlq d USING picked p WHERE d.id = p.id
          RETURNING d.fingerprint, d.queue, d.type
        ), ungrouped AS (
          UPDATE ${schema}.dlq_error_groups g
          SET dead_count = greatest(g.dead_count - d.n, 0)
          FROM (SELECT fingerprint, queue, type, count(*) AS n FROM deleted
                GROUP BY fingerprint, queue, type ORDER BY fingerprint, queue, type) d
          WHERE g.fingerprint = d.fingerprint AND g.queue = d.queue AND g.type = d.type
        ), emptied AS (
          -- Groups that earlier purges or resurrections left empty and that saw no failure
          -- within the age: nothing left to show. A failure arriving meanwhile makes the row
          -- fail the re-check under its lock (or holds the lock: skipped) and keeps it.
          DELETE FROM ${schema}.dlq_error_groups g
          USING (SELECT e.fingerprint, e.queue, e.type FROM ${schema}.dlq_error_groups e
                 WHERE e.dead_count = 0 AND e.last_seen < now() - $1::bigint * interval '1 millisecond'${queueSql}
                 LIMIT $2::int FOR UPDATE OF e SKIP LOCKED) x
          WHERE g.fingerprint = x.fingerprint AND g.queue = x.queue AND g.type = x.type
        ), old_hours AS (
          -- Trend hours past what move_to_dlq.sql keeps (49 hours), of groups that stopped failing.
          DELETE FROM ${schema}.dlq_error_group_hours h
          USING (SELECT o.fingerprint, o.hour_start FROM ${schema}.dlq_error_group_hours o
                 WHERE o.hour_start < now() - interval '49 hours'
                 LIMIT $2::int FOR UPDATE OF o SKIP LOCKED) x
          WHERE h.fingerprint = x.fingerprint AND h.hour_start = x.hour_start
        ) SELECT count(*) AS n FROM deleted`;
    case 'metricBuckets':
      return `WITH picked AS (
          SELECT bucket_start, queue, outcome, failure_reason, shard FROM ${schema}.metric_buckets
          WHERE ${expired}
          ORDER BY bucket_start LIMIT $2::int FOR UPDATE SKIP LOCKED
        ), deleted AS (
          DELETE FROM ${schema}.metric_buckets b USING picked p
          WHERE (b.bucket_start, b.queue, b.outcome, b.failure_reason, b.shard)
              = (p.bucket_start, p.queue, p.outcome, p.failure_reason, p.shard)
          RETURNING 1
        ) SELECT count(*) AS n FROM deleted`;
    case 'audit':
      return `WITH picked AS (
          SELECT id FROM ${schema}.operator_actions WHERE ${expired}
          ORDER BY at LIMIT $2::int FOR UPDATE SKIP LOCKED
        ), deleted AS (
          DELETE FROM ${schema}.operator_actions o USING picked p WHERE o.id = p.id RETURNING 1
        ) SELECT count(*) AS n FROM deleted`;
    case 'scheduleTicks':
      return `WITH picked AS (
          SELECT schedule, tick_at FROM ${schema}.schedule_ticks WHERE ${expired}
          ORDER BY fired_at LIMIT $2::int FOR UPDATE SKIP LOCKED
        ), deleted AS (
          DELETE FROM ${schema}.schedule_ticks t USING picked p
          WHERE t.schedule = p.schedule AND t.tick_at = p.tick_at RETURNING 1
        ) SELECT count(*) AS n FROM deleted`;
    case 'bulkActions':
      // The items of expired actions go first, a batch at a time (an action holds up to 100,000);
      // an action goes once it has none left.
      return `WITH expired AS (
          SELECT id FROM ${schema}.bulk_actions WHERE ${expired}
        ), items AS (
          SELECT i.action_id, i.job_id FROM ${schema}.bulk_action_items i
          JOIN expired e ON e.id = i.action_id
          LIMIT $2::int FOR UPDATE OF i SKIP LOCKED
        ), deleted_items AS (
          DELETE FROM ${schema}.bulk_action_items i USING items x
          WHERE i.action_id = x.action_id AND i.job_id = x.job_id RETURNING 1
        ), emptied AS (
          -- Empty once this statement's deletes are done (a CTE does not see its siblings' effects).
          SELECT e.id FROM expired e
          WHERE NOT EXISTS (
            SELECT 1 FROM ${schema}.bulk_action_items i
            WHERE i.action_id = e.id
              AND NOT EXISTS (SELECT 1 FROM items x WHERE x.action_id = i.action_id AND x.job_id = i.job_id)
          )
          LIMIT $2::int
        ), deleted_actions AS (
          DELETE FROM ${schema}.bulk_actions b USING emptied x WHERE b.id = x.id RETURNING 1
        ) SELECT (SELECT count(*) FROM deleted_items) + (SELECT count(*) FROM deleted_actions) AS n`;
  }
}

/** Deletes up to `limit` expired rows of a rule's table; resolves to how many went. */
export async function purgeBatch(
  db: Executor,
  schema: string,
  rule: RetentionRule,
  limit: number,
): Promise<number> {
  const queue = queueCondition(rule);
  const [row] = await db.query<Row>(
    batchStatement(schema, rule.table, queue.sql),
    [rule.olderThanMs, limit, ...queue.params],
    UNPREPARED,
  );
  return toNumber(row?.n);
}

/** The table of each rule's count. */
const COUNTED: Record<RetentionTable, string> = {
  archive: 'jobs_archive',
  dlq: 'jobs_dlq',
  metricBuckets: 'metric_buckets',
  audit: 'operator_actions',
  bulkActions: 'bulk_actions',
  scheduleTicks: 'schedule_ticks',
};

/** How many rows a rule would purge now (bulk actions: the actions, not their items). */
export async function countPurgeable(
  db: Executor,
  schema: string,
  rule: RetentionRule,
): Promise<number> {
  // The same condition as the batch, with the queue value moved to `$2`.
  const queue = queueCondition(rule);
  const [row] = await db.query<Row>(
    `SELECT count(*) AS n FROM ${schema}.${COUNTED[rule.table]}
     WHERE ${EXPIRED[rule.table]}${queue.sql.replace('$3', '$2')}`,
    [rule.olderThanMs, ...queue.params],
    UNPREPARED,
  );
  return toNumber(row?.n);
}

/** Statements here vary by rule; a cached generic plan would ignore the age that picks the index. */
const UNPREPARED = { prepare: false } as const;
