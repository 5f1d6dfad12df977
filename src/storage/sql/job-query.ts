/**
 * The operator query against one table, as SQL. The statement is put together from fixed
 * fragments chosen by which filters are present; every value is a bind parameter and every
 * identifier comes from the table descriptions below, never from the caller.
 */
import {
  FAILURE_REASON_CODE,
  HOT_STATE_BY_CODE,
  HOT_STATE_CODE,
  isActiveState,
} from '../../job/state.js';
import {
  EXACT_COUNT_LIMIT,
  errorHeadline as headline,
  type JobTable,
  type SortPosition,
  type TableCount,
  type TablePage,
  type TableQuery,
} from '../job-query.js';
import type { JobSummary } from '../model.js';
import type { Executor } from './executor.js';
import { hotJobOf, archivedJobOf, deadJobOf, toNumber, toStr, type Row } from './rows.js';
import type { GetArchiveRow, GetDeadRow, GetHotRow } from './statements.js';

/** The columns of one table the query uses. */
interface TableShape {
  name: 'jobs_hot' | 'jobs_archive' | 'jobs_dlq';
  /** Finish time column; `null` for the hot table. */
  finished: string | null;
  /** Error text column, if the table has one. */
  error: string | null;
  /**
   * The row's version as microseconds, named `version_us`: for the DLQ its last in-place edit or
   * its failure (see `deadVersion`), for the hot table its last claim, edit or resurrect (else
   * its creation), for the archive 0 (no action takes archived jobs).
   */
  version: string;
  /**
   * The row as a summary. The page selects every column of the table (`*`), so the row is read
   * as the table's row of get_hot.sql, get_archive.sql or get_dead.sql.
   */
  summary: (row: Row) => JobSummary;
}

const TABLES: Record<JobTable, TableShape> = {
  hot: {
    name: 'jobs_hot',
    finished: null,
    error: 'last_error',
    version: `(extract(epoch FROM coalesce(changed_at, created_at)) * 1000000)::bigint AS version_us`,
    summary: (row) => {
      const job = hotJobOf(row as GetHotRow);
      return {
        id: job.id,
        state: job.state,
        queue: job.queue,
        type: job.type,
        tags: job.tags,
        priority: job.priority,
        attempts: job.attempts,
        createdAt: job.createdAt,
        runAt: job.runAt,
        startedAt: job.startedAt,
        finishedAt: null,
        reason: null,
        error: headline(job.lastError),
        fingerprint: null,
        workerId: job.workerId,
        progress: job.progress,
        concurrencyKey: job.concurrencyKey,
      };
    },
  },
  archive: {
    name: 'jobs_archive',
    finished: 'finished_at',
    error: null,
    version: '0::bigint AS version_us',
    summary: (row) => {
      const job = archivedJobOf(row as GetArchiveRow);
      return {
        id: job.id,
        state: 'succeeded',
        queue: job.queue,
        type: job.type,
        tags: job.tags,
        priority: null,
        attempts: job.attempts,
        createdAt: job.createdAt,
        runAt: null,
        startedAt: job.startedAt,
        finishedAt: job.finishedAt,
        reason: null,
        error: null,
        fingerprint: null,
        workerId: job.workerId,
        progress: null,
        concurrencyKey: job.concurrencyKey,
      };
    },
  },
  dlq: {
    name: 'jobs_dlq',
    finished: 'failed_at',
    error: 'error_details',
    version: `(extract(epoch FROM coalesce(edited_at, failed_at)) * 1000000)::bigint AS version_us`,
    summary: (row) => {
      const job = deadJobOf(row as GetDeadRow);
      return {
        id: job.id,
        state: 'dead',
        queue: job.queue,
        type: job.type,
        tags: job.tags,
        priority: null,
        attempts: job.attempts,
        createdAt: job.createdAt,
        runAt: null,
        startedAt: job.startedAt,
        finishedAt: job.failedAt,
        reason: job.reason,
        error: headline(job.errorDetails),
        fingerprint: job.fingerprint,
        workerId: job.workerId,
        progress: job.progress,
        concurrencyKey: job.concurrencyKey,
      };
    },
  },
};

/**
 * The statements here are put together per call, and their best plan depends on the values (a
 * rare tag wants its GIN index, a common one the creation-time index): never prepared, so each is
 * planned with its parameters.
 */
const UNPREPARED = { prepare: false } as const;

/** The tag array of a row; the same expression as the GIN indexes of migration 0005. */
const TAGS_EXPRESSION = `regexp_split_to_array(btrim(tags), '\\s*,\\s*')`;

/** A WHERE clause under construction: fragments joined by AND, values as `$n` parameters. */
class Conditions {
  readonly parts: string[] = [];
  readonly params: unknown[] = [];

  /** Adds `value` as the next parameter and returns its placeholder. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  add(fragment: string): void {
    this.parts.push(fragment);
  }

  get sql(): string {
    return this.parts.length === 0 ? 'TRUE' : this.parts.join(' AND ');
  }
}

/** The WHERE conditions of `query` on `table` (everything but the keyset position). */
function conditions(table: JobTable, query: TableQuery): Conditions {
  const shape = TABLES[table];
  const where = new Conditions();
  if (query.queues !== undefined) where.add(`queue = ANY(${where.param(query.queues)}::text[])`);
  if (query.types !== undefined) where.add(`type = ANY(${where.param(query.types)}::text[])`);
  if (query.tags !== undefined) {
    where.add(`tags IS NOT NULL AND ${TAGS_EXPRESSION} @> ${where.param(query.tags)}::text[]`);
  }
  if (query.createdFrom !== undefined)
    where.add(`created_at >= ${where.param(query.createdFrom)}::timestamptz`);
  if (query.createdTo !== undefined)
    where.add(`created_at < ${where.param(query.createdTo)}::timestamptz`);
  if (shape.finished !== null && query.finishedFrom !== undefined)
    where.add(`${shape.finished} >= ${where.param(query.finishedFrom)}::timestamptz`);
  if (shape.finished !== null && query.finishedTo !== undefined)
    where.add(`${shape.finished} < ${where.param(query.finishedTo)}::timestamptz`);
  if (table === 'dlq' && query.reasons !== undefined) {
    const codes = query.reasons.map((reason) => FAILURE_REASON_CODE[reason]);
    where.add(`failure_reason = ANY(${where.param(codes)}::smallint[])`);
  }
  if (table === 'dlq' && query.fingerprint !== undefined)
    where.add(`fingerprint = ${where.param(query.fingerprint)}::text`);
  if (shape.error !== null && query.errorWords !== undefined) {
    // The expression and the IS NOT NULL match the GIN indexes of migrations 0005 and 0007.
    const words = where.param(query.errorWords.join(' '));
    where.add(
      `${shape.error} IS NOT NULL AND to_tsvector('simple'::regconfig, coalesce(${shape.error}, '')) @@ plainto_tsquery('simple'::regconfig, ${words}::text)`,
    );
  }
  if (query.attemptsMin !== undefined)
    where.add(`attempts >= ${where.param(query.attemptsMin)}::int`);
  if (query.attemptsMax !== undefined)
    where.add(`attempts <= ${where.param(query.attemptsMax)}::int`);
  if (query.idPrefix !== undefined) {
    // id is COLLATE "C" (byte order): the ids with a prefix are one range of the primary key,
    // from the prefix up to the prefix with its last character incremented.
    const prefix = where.param(query.idPrefix);
    where.add(`id >= ${prefix}::text AND left(id, length(${prefix}::text)) = ${prefix}::text`);
    const end = prefixEnd(query.idPrefix);
    if (end !== null) where.add(`id < ${where.param(end)}::text`);
  }
  if (query.ids !== undefined) where.add(`id = ANY(${where.param(query.ids)}::text[])`);
  return where;
}

/**
 * The first text after every text starting with `prefix` in byte order (UTF-8 byte order is code
 * point order), or `null` when the last code point has no successor a string can hold.
 */
export function prefixEnd(prefix: string): string | null {
  const points = [...prefix];
  const last = points.pop()?.codePointAt(0);
  if (last === undefined || last === 0x10ffff || (last >= 0xd7ff && last < 0xe000)) return null;
  return points.join('') + String.fromCodePoint(last + 1);
}

/**
 * SQL for the first `limit` rows of `table` that match `where`, in `order` (none: any order),
 * as `select`. The hot table is read as its waiting rows (pending and scheduled, `status IN
 * (0, 3)`, served by the partial index over them) and its active rows (fetched or processing:
 * few, served by `jobs_hot_active_idx`), each part ordered and limited on its own and the two
 * merged, because PostgreSQL does not merge a UNION ALL of ordered index reads by itself. The
 * states are literal codes, never parameters, so the planner matches the indexes' predicates.
 * Keeping the hot creation-time index to waiting rows spares every claim an index write.
 */
function firstRows(
  schema: string,
  table: JobTable,
  query: TableQuery,
  part: { select: string; where: string; order: string | null; limit: string },
): string {
  const name = `${schema}.${TABLES[table].name}`;
  const orderBy = part.order === null ? '' : ` ORDER BY ${part.order}`;
  const read = (where: string) =>
    `SELECT ${part.select} FROM ${name} WHERE ${where}${orderBy} LIMIT ${part.limit}::int`;
  if (table !== 'hot') return read(part.where);
  const states = query.states ?? HOT_STATE_BY_CODE;
  const waiting = states.filter((state) => !isActiveState(state)).map((s) => HOT_STATE_CODE[s]);
  const active = states.filter(isActiveState).map((s) => HOT_STATE_CODE[s]);
  const reads: string[] = [];
  if (waiting.length > 0) reads.push(read(`status IN (${waiting.join(', ')}) AND (${part.where})`));
  if (active.length > 0) reads.push(read(`status IN (${active.join(', ')}) AND (${part.where})`));
  if (reads.length === 1) return reads[0]!;
  const merged = reads.map((sql) => `(${sql})`).join(' UNION ALL ');
  return `SELECT * FROM (${merged}) hot${orderBy} LIMIT ${part.limit}::int`;
}

/** The sort column of `query` on `table`. */
function sortColumn(table: JobTable, query: TableQuery): string {
  return query.sort === 'finishedAt' ? (TABLES[table].finished ?? 'created_at') : 'created_at';
}

/** The sort column as whole microseconds since the epoch, named `sort_us`. */
const SORT_US = (column: string): string =>
  `(extract(epoch FROM ${column}) * 1000000)::bigint AS sort_us`;

/** Adds the keyset condition: rows strictly after `after` in the order. */
function addKeyset(where: Conditions, column: string, order: 'asc' | 'desc', after: SortPosition) {
  const at = where.param(after.micros);
  const id = where.param(after.id);
  const [cmp, cmpEq] = order === 'desc' ? ['<', '<='] : ['>', '>='];
  const time = `('epoch'::timestamptz + ${at}::bigint * interval '1 microsecond')`;
  where.add(`${column} ${cmpEq} ${time} AND (${column} ${cmp} ${time} OR id ${cmp} ${id}::text)`);
}

/** Runs `query` against `table` of `schema` (quoted). */
export async function queryTable(
  db: Executor,
  schema: string,
  table: JobTable,
  query: TableQuery,
): Promise<TablePage> {
  const shape = TABLES[table];
  const column = sortColumn(table, query);
  const where = conditions(table, query);
  if (query.after !== undefined) addKeyset(where, column, query.order, query.after);
  const dir = query.order === 'desc' ? 'DESC' : 'ASC';
  const order = `${column} ${dir}, id ${dir}`;
  const select = `*, ${SORT_US(column)}, ${shape.version}`;
  const page = (row: Row) => ({
    job: shape.summary(row),
    position: { micros: toNumber(row.sort_us), id: toStr(row.id) },
    version: toNumber(row.version_us),
  });
  if (query.payload === undefined) {
    const limit = where.param(query.limit);
    const rows = await db.query<Row>(
      firstRows(schema, table, query, { select, where: where.sql, order, limit }),
      where.params,
      UNPREPARED,
    );
    const found = rows.map(page);
    const last = found.at(-1);
    const full = found.length === query.limit && last !== undefined;
    return { rows: found, horizon: full ? last.position : null, truncated: false };
  }
  // Bounded scan: look at most scanLimit rows in order; return the matches (at most limit) and
  // always the last row looked at, so the caller knows how far the scan got.
  const pattern = where.param(query.payload);
  const scan = where.param(query.scanLimit);
  const limit = where.param(query.limit);
  const rows = await db.query<Row>(
    `SELECT * FROM (
       SELECT s.*, s.payload::jsonb @> ${pattern}::jsonb AS matched,
              row_number() OVER w AS scan_n, count(*) OVER () AS scanned,
              count(*) FILTER (WHERE s.payload::jsonb @> ${pattern}::jsonb) OVER w AS hit_n
       FROM (${firstRows(schema, table, query, { select, where: where.sql, order, limit: scan })}) s
       WINDOW w AS (ORDER BY s.sort_us ${dir}, s.id ${dir} ROWS UNBOUNDED PRECEDING)
     ) x
     WHERE (matched AND hit_n <= ${limit}::int) OR scan_n = scanned
     ORDER BY sort_us ${dir}, id ${dir}`,
    where.params,
    UNPREPARED,
  );
  const hits = rows.filter((row) => row.matched === true).map(page);
  const tail = rows.at(-1);
  const lastHit = hits.at(-1);
  if (hits.length === query.limit && lastHit) {
    return { rows: hits, horizon: lastHit.position, truncated: false };
  }
  if (tail === undefined || toNumber(tail.scanned) < query.scanLimit) {
    return { rows: hits, horizon: null, truncated: false };
  }
  return { rows: hits, horizon: page(tail).position, truncated: true };
}

/**
 * Most planner cost units an exact count may take when its plan reads a job table sequentially
 * through a filter (no index answers it): about a sequential read of 25,000 rows. Past it the
 * count is the planner's estimate, so a count never scans a large table.
 */
export const EXACT_COUNT_COST = 1000;

/**
 * Counts the rows of `table` matching `query`: exact up to {@link EXACT_COUNT_LIMIT} where an
 * index answers (or the table is small), else the planner's estimate with `exact: false`. A
 * payload filter counts matches within its bounded scan, exact only when the scan saw every
 * candidate.
 */
export async function countTable(
  db: Executor,
  schema: string,
  table: JobTable,
  query: TableQuery,
): Promise<TableCount> {
  const where = conditions(table, query);
  if (query.payload !== undefined) {
    const pattern = where.param(query.payload);
    const scan = where.param(query.scanLimit);
    const scanned = firstRows(schema, table, query, {
      select: 'payload',
      where: where.sql,
      order: null,
      limit: scan,
    });
    const [row] = await db.query<Row>(
      `SELECT count(*) AS scanned, count(*) FILTER (WHERE payload::jsonb @> ${pattern}::jsonb) AS hits
       FROM (${scanned}) s`,
      where.params,
      UNPREPARED,
    );
    return {
      count: toNumber(row?.hits),
      exact: toNumber(row?.scanned) < query.scanLimit,
    };
  }
  const bound = where.param(EXACT_COUNT_LIMIT + 1);
  const rows = firstRows(schema, table, query, {
    select: '1',
    where: where.sql,
    order: null,
    limit: bound,
  });
  const bounded = `SELECT count(*) AS n FROM (${rows}) s`;
  const [explained] = await db.query<Row>(
    `EXPLAIN (FORMAT JSON) ${bounded}`,
    where.params,
    UNPREPARED,
  );
  const plan = planOf(explained);
  const estimate = Math.round(matchEstimate(plan));
  if (plan['Total Cost'] > EXACT_COUNT_COST && scansUnindexed(plan)) {
    return { count: estimate, exact: false };
  }
  const [row] = await db.query<Row>(bounded, where.params, UNPREPARED);
  const counted = toNumber(row?.n);
  if (counted <= EXACT_COUNT_LIMIT) return { count: counted, exact: true };
  return { count: Math.max(counted, estimate), exact: false };
}

/** A node of an `EXPLAIN (FORMAT JSON)` plan, the fields read here. */
interface PlanNode {
  'Node Type': string;
  'Total Cost': number;
  'Plan Rows': number;
  'Relation Name'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

/** The top node of an `EXPLAIN (FORMAT JSON)` row. */
function planOf(row: Row | undefined): PlanNode {
  const raw = row?.['QUERY PLAN'];
  const parsed: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
  return (parsed as [{ Plan: PlanNode }])[0].Plan;
}

/** Every node of a plan, depth first. */
function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/**
 * The planner's estimate of the matching rows: what the innermost LIMITs of the bounded count read
 * from (one per table part; the hot table has two).
 */
function matchEstimate(plan: PlanNode): number {
  const isLimit = (node: PlanNode) => node['Node Type'] === 'Limit';
  return nodesOf(plan)
    .filter((node) => isLimit(node) && !(node.Plans ?? []).flatMap(nodesOf).some(isLimit))
    .reduce((sum, limit) => sum + (limit.Plans?.[0]?.['Plan Rows'] ?? 0), 0);
}

/** Whether the plan filters a job table row by row instead of reading an index. */
function scansUnindexed(plan: PlanNode): boolean {
  return nodesOf(plan).some(
    (node) =>
      node['Node Type'] === 'Seq Scan' &&
      node.Filter !== undefined &&
      (node['Relation Name'] ?? '').startsWith('jobs_'),
  );
}
