/**
 * The operator query's public shape and its checks. Every filter value, sort key, page size and
 * cursor is checked here, before storage is touched; an unknown value is an error, never "no
 * filter" — a mistyped state must not show (and let an operator purge) everything.
 */
import { ChokaQError } from '../errors.js';
import { LIMITS, validateJobId, validateQueueName, validateTypeKey } from '../job/envelope.js';
import type { FailureReason, HotState, JobState } from '../job/state.js';
import type { JobSortKey, JobTable, TableQuery } from '../storage/job-query.js';
import {
  checkArray,
  checkInteger,
  checkOneOf,
  checkOptions,
  checkString,
  describeValue,
  invalid,
} from '../util/check.js';
import { decodeCursor } from './cursor.js';
import { DEFAULT_LIST_LIMIT, FAILURE_REASONS, HOT_STATES, MAX_LIST_LIMIT } from './inputs.js';

/** Every state a query may name. */
export const JOB_STATES: readonly JobState[] = [...HOT_STATES, 'succeeded', 'dead'];

/** The sort keys a query may name. */
export const SORT_KEYS: readonly JobSortKey[] = ['createdAt', 'finishedAt'];

/** Rows a payload filter examines per table and page before it stops and says so. */
export const PAYLOAD_SCAN_LIMIT = 10_000;

/** Longest serialized payload filter, in characters. */
const MAX_PAYLOAD_FILTER = 8192;

/** Most values one list filter (`queue`, `type`, `tags`, `state`, `reason`) takes. */
const MAX_FILTER_VALUES = 100;

/** A time range: from (inclusive) to (exclusive); either end may be open. */
export interface TimeRange {
  /** Inclusive start: a Date or an ISO 8601 text. Default: open. */
  from?: Date | string;
  /** Exclusive end: a Date or an ISO 8601 text. Default: open. */
  to?: Date | string;
}

/** A filter of the operator query (`jobs.query`, `jobs.count`). Every field is optional. */
export interface JobQuery {
  /** Only jobs in these states. Default: every state (`finishedAt` sort: succeeded and dead). */
  state?: JobState | readonly JobState[];
  /** Only these queues. Default: every queue. */
  queue?: string | readonly string[];
  /** Only these type keys (exact). Default: every type. */
  type?: string | readonly string[];
  /**
   * Only jobs carrying every one of these tags (the comma-separated parts of `tags`); a list
   * must name at least one (as must every list filter).
   */
  tags?: string | readonly string[];
  /** Only jobs created in this range. */
  created?: TimeRange;
  /** Only jobs that succeeded or died in this range (hot jobs never match). */
  finished?: TimeRange;
  /** Only DLQ jobs with these reasons. */
  reason?: FailureReason | readonly FailureReason[];
  /** Only DLQ jobs of this error group (a fingerprint from `dlq.groups`). */
  errorGroup?: string;
  /**
   * Only jobs whose error (DLQ error, hot last error) contains every word of this text; words
   * are runs of letters and digits, and a text without one is refused.
   */
  errorText?: string;
  /** Only jobs whose attempts lie in this range (inclusive). */
  attempts?: { min?: number; max?: number };
  /** Only jobs whose id starts with this text. */
  idPrefix?: string;
  /**
   * Only jobs whose payload contains this JSON (PostgreSQL's `@>`: objects match by subset,
   * arrays by element). No index serves it: each page examines at most 10,000 rows per table
   * and reports in `scan` whether it saw them all.
   */
  payload?: Record<string, unknown> | readonly unknown[];
  /** Sort key: `createdAt` or `finishedAt`. Default: `createdAt`. */
  sort?: JobSortKey;
  /** Default: `'desc'` (newest first). */
  order?: 'asc' | 'desc';
  /** Page size, 1–1000. Default: `100`. */
  limit?: number;
  /** Where the page starts: the `nextCursor` of the previous page. Default: the first page. */
  cursor?: string;
}

const QUERY_KEYS = [
  'state',
  'queue',
  'type',
  'tags',
  'created',
  'finished',
  'reason',
  'errorGroup',
  'errorText',
  'attempts',
  'idPrefix',
  'payload',
  'sort',
  'order',
  'limit',
  'cursor',
] as const satisfies readonly (keyof JobQuery)[];

/** A checked query: the tables to ask, the per-table query and the page size. */
export interface CheckedQuery {
  tables: readonly JobTable[];
  base: Omit<TableQuery, 'limit' | 'after'>;
  limit: number;
  after: TableQuery['after'];
  /** Binds cursors to this filter and order. */
  signature: string;
}

/**
 * `value` or `[value]`, checked as an array of 1 to {@link MAX_FILTER_VALUES}: an empty list is
 * refused, because "none of these" would match nothing on some stores and everything on others.
 */
function listOf(value: unknown, field: string): readonly unknown[] {
  if (!Array.isArray(value)) return [value];
  if (value.length === 0) {
    throw invalid(
      'CHOKAQ_INVALID_FILTER',
      field,
      `one value or a list of 1 to ${MAX_FILTER_VALUES} values`,
      value,
    );
  }
  return checkArray(value, field, MAX_FILTER_VALUES);
}

/** A word of an error-text filter: a run of letters and digits (what a text index keeps). */
const WORD = /[\p{L}\p{N}]/u;

/** A Date (or ISO string) filter bound. */
function checkTime(value: unknown, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = typeof value === 'string' ? new Date(value) : value;
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw invalid('CHOKAQ_INVALID_FILTER', field, 'a Date or an ISO 8601 time', value);
  }
  return date;
}

function checkRange(value: TimeRange | undefined, field: string): { from?: Date; to?: Date } {
  const range = checkOptions(value, field, ['from', 'to'], 'CHOKAQ_INVALID_FILTER');
  const from = checkTime(range.from, `${field}.from`);
  const to = checkTime(range.to, `${field}.to`);
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

/** The tables the states live in, with the hot states asked for (`undefined`: all three). */
function tablesOf(states: readonly JobState[]): { tables: JobTable[]; hot?: HotState[] } {
  const hot = states.filter((s): s is HotState => (HOT_STATES as readonly string[]).includes(s));
  const tables: JobTable[] = [];
  if (hot.length > 0) tables.push('hot');
  if (states.includes('succeeded')) tables.push('archive');
  if (states.includes('dead')) tables.push('dlq');
  return { tables, ...(hot.length > 0 && hot.length < HOT_STATES.length ? { hot } : {}) };
}

/**
 * Checks a query into what storage runs.
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION` (unknown key), `CHOKAQ_INVALID_FILTER` (a filter
 *   value), `CHOKAQ_INVALID_QUEUE` / `CHOKAQ_INVALID_JOB_TYPE` / `CHOKAQ_INVALID_JOB_ID`
 *   (malformed names), `CHOKAQ_INVALID_ARGUMENT` (sort, order, limit) or `CHOKAQ_INVALID_CURSOR`.
 */
export function checkJobQuery(query: JobQuery | undefined, field = 'query'): CheckedQuery {
  const q = checkOptions(query, field, [...QUERY_KEYS], 'CHOKAQ_INVALID_FILTER');
  const sort =
    q.sort === undefined
      ? 'createdAt'
      : checkOneOf(q.sort, `${field}.sort`, SORT_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
  const order =
    q.order === undefined
      ? 'desc'
      : checkOneOf(q.order, `${field}.order`, ['asc', 'desc'] as const, 'CHOKAQ_INVALID_ARGUMENT');
  const limit =
    q.limit === undefined
      ? DEFAULT_LIST_LIMIT
      : checkInteger(
          q.limit,
          `${field}.limit`,
          { min: 1, max: MAX_LIST_LIMIT },
          'CHOKAQ_INVALID_ARGUMENT',
        );

  const defaultStates: readonly JobState[] =
    sort === 'finishedAt' ? ['succeeded', 'dead'] : JOB_STATES;
  const states =
    q.state === undefined
      ? defaultStates
      : listOf(q.state, `${field}.state`).map((s, i) =>
          checkOneOf(s, `${field}.state[${i}]`, JOB_STATES, 'CHOKAQ_INVALID_FILTER'),
        );
  if (sort === 'finishedAt' && states.some((s) => (HOT_STATES as readonly string[]).includes(s))) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_ARGUMENT',
      `${field}.sort 'finishedAt' applies to finished jobs only; ${field}.state must name only 'succeeded' and 'dead', got ${describeValue(q.state)}`,
      { field: `${field}.sort` },
    );
  }
  const base: CheckedQuery['base'] = { sort, order, scanLimit: PAYLOAD_SCAN_LIMIT };
  const { tables, hot } = tablesOf(states);
  if (hot) base.states = hot;
  if (q.queue !== undefined) {
    base.queues = listOf(q.queue, `${field}.queue`).map((v, i) => {
      validateQueueName(v, `${field}.queue[${i}]`);
      return v;
    });
  }
  if (q.type !== undefined) {
    base.types = listOf(q.type, `${field}.type`).map((v, i) => {
      validateTypeKey(v, `${field}.type[${i}]`);
      return v;
    });
  }
  if (q.tags !== undefined) {
    base.tags = listOf(q.tags, `${field}.tags`).map((v, i) =>
      checkString(v, `${field}.tags[${i}]`, LIMITS.tagsLength, 'CHOKAQ_INVALID_FILTER').trim(),
    );
  }
  const created = checkRange(q.created, `${field}.created`);
  if (created.from) base.createdFrom = created.from;
  if (created.to) base.createdTo = created.to;
  const finished = checkRange(q.finished, `${field}.finished`);
  if (finished.from) base.finishedFrom = finished.from;
  if (finished.to) base.finishedTo = finished.to;
  if (q.reason !== undefined) {
    base.reasons = listOf(q.reason, `${field}.reason`).map((v, i) =>
      checkOneOf(v, `${field}.reason[${i}]`, FAILURE_REASONS, 'CHOKAQ_INVALID_FILTER'),
    );
  }
  if (q.errorGroup !== undefined) {
    base.fingerprint = checkString(
      q.errorGroup,
      `${field}.errorGroup`,
      64,
      'CHOKAQ_INVALID_FILTER',
    );
  }
  if (q.errorText !== undefined) {
    const text = checkString(q.errorText, `${field}.errorText`, 200, 'CHOKAQ_INVALID_FILTER');
    // Only parts with a letter or digit count; a text without any would match every job on one
    // store and none on another, so it is refused.
    const words = text.split(/\s+/).filter((part) => WORD.test(part));
    if (words.length === 0) {
      throw invalid(
        'CHOKAQ_INVALID_FILTER',
        `${field}.errorText`,
        'a text with at least one word (a letter or a digit)',
        q.errorText,
      );
    }
    base.errorWords = words;
  }
  if (q.attempts !== undefined) {
    const range = checkOptions(
      q.attempts,
      `${field}.attempts`,
      ['min', 'max'],
      'CHOKAQ_INVALID_FILTER',
    );
    const bounds = { min: 0, max: 2_147_483_647 };
    if (range.min !== undefined)
      base.attemptsMin = checkInteger(
        range.min,
        `${field}.attempts.min`,
        bounds,
        'CHOKAQ_INVALID_FILTER',
      );
    if (range.max !== undefined)
      base.attemptsMax = checkInteger(
        range.max,
        `${field}.attempts.max`,
        bounds,
        'CHOKAQ_INVALID_FILTER',
      );
  }
  if (q.idPrefix !== undefined) {
    validateJobId(q.idPrefix, `${field}.idPrefix`);
    base.idPrefix = q.idPrefix;
  }
  if (q.payload !== undefined) base.payload = checkPayloadFilter(q.payload, `${field}.payload`);

  const asked = tables.filter((table) => appliesTo(table, base));
  const signature = JSON.stringify({ ...base, tables: asked });
  const after =
    q.cursor === undefined ? undefined : decodeCursor(q.cursor, `${field}.cursor`, signature);
  return { tables: asked, base, limit, after, signature };
}

/** Whether rows of `table` can match the filters at all (a DLQ reason rules out the archive). */
function appliesTo(table: JobTable, base: CheckedQuery['base']): boolean {
  if (table !== 'dlq' && (base.reasons !== undefined || base.fingerprint !== undefined))
    return false;
  if (table === 'archive' && base.errorWords !== undefined) return false;
  if (table === 'hot' && (base.finishedFrom !== undefined || base.finishedTo !== undefined))
    return false;
  return true;
}

/** A payload filter: a JSON object or array, serialized to at most 8192 characters. */
function checkPayloadFilter(value: unknown, field: string): string {
  if (value === null || typeof value !== 'object') {
    throw invalid('CHOKAQ_INVALID_FILTER', field, 'a JSON object or array', value);
  }
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    throw invalid('CHOKAQ_INVALID_FILTER', field, 'JSON-serializable', value);
  }
  if (text.length > MAX_PAYLOAD_FILTER) {
    throw invalid(
      'CHOKAQ_INVALID_FILTER',
      field,
      `at most ${MAX_PAYLOAD_FILTER} characters of JSON`,
      value,
    );
  }
  return text;
}
