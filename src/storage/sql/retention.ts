/**
 * Retention on SQL stores: one bounded batch of one table's expired rows per call, each batch a
 * single statement (its own short transaction) that locks only the rows it deletes, skipping
 * rows another transaction holds. The statements are the `retention_*.sql` files; the age and
 * queue names are bind parameters.
 */
import type { RetentionRule, RetentionStore, RetentionTable } from '../retention.js';
import type { Executor, QueryOptions } from './executor.js';
import { toNumber } from './rows.js';
import type { BoundQueries } from './schema.js';
import type { SqlContext } from './sql-context.js';
import * as run from './statements.js';

/** A statement's rows: one, `n`, the rows it deleted or counted. */
type Counted = Promise<readonly { n: string | number | bigint }[]>;

/** One table's batch statement and count statement, with a rule's parameters. */
interface TableStatements {
  batch(
    db: Executor,
    sql: BoundQueries,
    rule: RetentionRule,
    limit: number,
    now: Date | null,
  ): Counted;
  count(db: Executor, sql: BoundQueries, rule: RetentionRule, now: Date | null): Counted;
}

/**
 * Statements here are planned for each call's values: a cached generic plan would ignore the age
 * that picks the index, and the queue conditions a NULL parameter turns off.
 */
const UNPREPARED: QueryOptions = { prepare: false };

/**
 * A rule's queue parameters (the archive's and the DLQ's statements only): its queue and its
 * excepted queues, `null` for none.
 */
function queueParams(rule: RetentionRule): {
  queue: string | null;
  exceptQueues: readonly string[] | null;
} {
  const except = rule.exceptQueues !== undefined && rule.exceptQueues.length > 0;
  return { queue: rule.queue ?? null, exceptQueues: except ? (rule.exceptQueues ?? null) : null };
}

/** Each table's statements. */
const STATEMENTS: Record<RetentionTable, TableStatements> = {
  archive: {
    batch: (db, sql, rule, limit, now) =>
      run.retentionArchive(
        db,
        sql,
        { ageMs: rule.olderThanMs, now, limit, ...queueParams(rule) },
        UNPREPARED,
      ),
    count: (db, sql, rule, now) =>
      run.retentionCountArchive(
        db,
        sql,
        { ageMs: rule.olderThanMs, now, ...queueParams(rule) },
        UNPREPARED,
      ),
  },
  dlq: {
    batch: (db, sql, rule, limit, now) =>
      run.retentionDlq(
        db,
        sql,
        { ageMs: rule.olderThanMs, now, limit, ...queueParams(rule) },
        UNPREPARED,
      ),
    count: (db, sql, rule, now) =>
      run.retentionCountDlq(
        db,
        sql,
        { ageMs: rule.olderThanMs, now, ...queueParams(rule) },
        UNPREPARED,
      ),
  },
  metricBuckets: {
    batch: (db, sql, rule, limit, now) =>
      run.retentionMetricBuckets(db, sql, { ageMs: rule.olderThanMs, now, limit }, UNPREPARED),
    count: (db, sql, rule, now) =>
      run.retentionCountMetricBuckets(db, sql, { ageMs: rule.olderThanMs, now }, UNPREPARED),
  },
  audit: {
    batch: (db, sql, rule, limit, now) =>
      run.retentionAudit(db, sql, { ageMs: rule.olderThanMs, now, limit }, UNPREPARED),
    count: (db, sql, rule, now) =>
      run.retentionCountAudit(db, sql, { ageMs: rule.olderThanMs, now }, UNPREPARED),
  },
  bulkActions: {
    batch: (db, sql, rule, limit, now) =>
      run.retentionBulkActions(db, sql, { ageMs: rule.olderThanMs, now, limit }, UNPREPARED),
    count: (db, sql, rule, now) =>
      run.retentionCountBulkActions(db, sql, { ageMs: rule.olderThanMs, now }, UNPREPARED),
  },
  scheduleTicks: {
    batch: (db, sql, rule, limit, now) =>
      run.retentionScheduleTicks(db, sql, { ageMs: rule.olderThanMs, now, limit }, UNPREPARED),
    count: (db, sql, rule, now) =>
      run.retentionCountScheduleTicks(db, sql, { ageMs: rule.olderThanMs, now }, UNPREPARED),
  },
};

/**
 * Deletes up to `limit` rows of a rule's table expired at `now` (`null`: the database's time);
 * resolves to how many went.
 */
async function purgeBatch(
  db: Executor,
  sql: BoundQueries,
  rule: RetentionRule,
  limit: number,
  now: Date | null,
): Promise<number> {
  const [row] = await STATEMENTS[rule.table].batch(db, sql, rule, limit, now);
  return toNumber(row?.n);
}

/** How many rows a rule would purge now (bulk actions: the actions, not their items). */
async function countPurgeable(
  db: Executor,
  sql: BoundQueries,
  rule: RetentionRule,
  now: Date | null,
): Promise<number> {
  const [row] = await STATEMENTS[rule.table].count(db, sql, rule, now);
  return toNumber(row?.n);
}

/** Deleting what retention allows, over SQL ({@link RetentionStore}). */
export class SqlRetention implements RetentionStore {
  constructor(private readonly context: SqlContext) {}

  /** {@inheritDoc RetentionStore.purgeBatch} */
  async purgeBatch(rule: RetentionRule, limit: number): Promise<number> {
    return purgeBatch(await this.context.db(), this.context.sql, rule, limit, this.context.now());
  }

  /** {@inheritDoc RetentionStore.countPurgeable} */
  async countPurgeable(rule: RetentionRule): Promise<number> {
    return countPurgeable(await this.context.db(), this.context.sql, rule, this.context.now());
  }
}
