/**
 * Checks of the operator calls' inputs (ids, actors, list filters). An unknown filter value is an
 * error, never "no filter": an operator who mistypes a reason must not see (and purge) everything.
 */
import { LIMITS, validateJobId, validateQueueName, validateTypeKey } from '../job/envelope.js';
import type { ErrorGroupFilter } from '../storage/operator-store.js';
import { FAILURE_REASON_CODE, type FailureReason, type HotState } from '../job/state.js';
import { checkArray, checkInteger, checkOneOf, checkOptions, checkString } from '../util/check.js';

/** Most rows one list call returns. */
export const MAX_LIST_LIMIT = 1000;

/** Rows a list call returns when no `limit` is given. */
export const DEFAULT_LIST_LIMIT = 100;

/** Most ids one cancel, resurrect or purge call takes. */
export const MAX_IDS = 10_000;

/** The hot states a list filter may name. */
export const HOT_STATES: readonly HotState[] = [
  'awaiting',
  'scheduled',
  'pending',
  'fetched',
  'processing',
];

/** The failure reasons a DLQ filter may name. */
export const FAILURE_REASONS = Object.keys(FAILURE_REASON_CODE) as FailureReason[];

/**
 * Checks a list of job ids: an array of at most {@link MAX_IDS} valid ids.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` or `CHOKAQ_INVALID_JOB_ID` naming the index.
 */
export function checkIds(ids: unknown, field = 'ids'): readonly string[] {
  const list = checkArray(ids, field, MAX_IDS);
  list.forEach((id, i) => validateJobId(id, `${field}[${i}]`));
  return list as readonly string[];
}

/**
 * The actor recorded for an operator action: 1–100 characters; `undefined` reads as `'operator'`.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT`.
 */
export function checkActor(actor: unknown, field = 'options.actor'): string {
  if (actor === undefined) return 'operator';
  return checkString(actor, field, LIMITS.createdByLength, 'CHOKAQ_INVALID_ARGUMENT');
}

/**
 * A list limit: an integer from 1 to {@link MAX_LIST_LIMIT}; `undefined` reads as
 * {@link DEFAULT_LIST_LIMIT}.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT`.
 */
export function checkLimit(limit: unknown, field = 'filter.limit'): number {
  if (limit === undefined) return DEFAULT_LIST_LIMIT;
  return checkInteger(limit, field, { min: 1, max: MAX_LIST_LIMIT }, 'CHOKAQ_INVALID_ARGUMENT');
}

/** Filter of `dlq.groups`. */
export interface ErrorGroupQuery {
  /** Only jobs of these queues. Default: every queue. */
  queue?: string | readonly string[];
  /** Only jobs of these type keys. Default: every type. */
  type?: string | readonly string[];
  /** Most groups, 1–1000. Default: `100`. */
  limit?: number;
}

const GROUP_FILTER_KEYS = ['queue', 'type', 'limit'] as const;

/**
 * Checks a `dlq.groups` filter.
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION`, `CHOKAQ_INVALID_QUEUE`, `CHOKAQ_INVALID_JOB_TYPE`
 *   or `CHOKAQ_INVALID_ARGUMENT` (limit, too many values).
 */
export function checkGroupQuery(filter: ErrorGroupQuery | undefined): ErrorGroupFilter {
  const checked = checkOptions(filter, 'filter', GROUP_FILTER_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
  const out: ErrorGroupFilter = { limit: checkLimit(checked.limit) };
  if (checked.queue !== undefined) {
    out.queues = asList(checked.queue, 'filter.queue').map((queue, i) => {
      validateQueueName(queue, `filter.queue[${i}]`);
      return queue;
    });
  }
  if (checked.type !== undefined) {
    out.types = asList(checked.type, 'filter.type').map((type, i) => {
      validateTypeKey(type, `filter.type[${i}]`);
      return type;
    });
  }
  return out;
}

/** `value` or `[value]`, as an array of at most 100 entries. */
function asList(value: unknown, field: string): readonly unknown[] {
  return Array.isArray(value) ? checkArray(value, field, 100) : [value];
}

const HOT_FILTER_KEYS = ['queue', 'state', 'limit'] as const;
const ARCHIVE_FILTER_KEYS = ['queue', 'limit'] as const;
const DEAD_FILTER_KEYS = ['queue', 'reason', 'limit'] as const;

/** Filter of `listJobs`. */
export interface HotFilter {
  /** Only this queue. Default: every queue. */
  queue?: string;
  /** Only this state. Default: every hot state. */
  state?: HotState;
  /** Most rows, 1–1000. Default: `100`. */
  limit?: number;
}

/** Filter of `listArchive`. */
export interface ArchiveFilter {
  /** Only this queue. Default: every queue. */
  queue?: string;
  /** Most rows, 1–1000. Default: `100`. */
  limit?: number;
}

/** Filter of `dlq.list`. */
export interface DeadFilter {
  /** Only this queue. Default: every queue. */
  queue?: string;
  /** Only this failure reason (exact name, such as `'Fatal'`). Default: every reason. */
  reason?: FailureReason;
  /** Most rows, 1–1000. Default: `100`. */
  limit?: number;
}

/**
 * Checks a `listJobs` filter.
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION`, `CHOKAQ_INVALID_FILTER` (unknown state),
 *   `CHOKAQ_INVALID_QUEUE` or `CHOKAQ_INVALID_ARGUMENT` (limit).
 */
export function checkHotFilter(
  filter: HotFilter | undefined,
): Required<Pick<HotFilter, 'limit'>> & HotFilter {
  const checked = checkOptions(filter, 'filter', HOT_FILTER_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
  if (checked.queue !== undefined) validateQueueName(checked.queue, 'filter.queue');
  if (checked.state !== undefined) {
    checkOneOf(checked.state, 'filter.state', HOT_STATES, 'CHOKAQ_INVALID_FILTER');
  }
  return { ...checked, limit: checkLimit(checked.limit) };
}

/**
 * Checks a `listArchive` filter.
 * @throws ChokaQError as {@link checkHotFilter}.
 */
export function checkArchiveFilter(
  filter: ArchiveFilter | undefined,
): ArchiveFilter & { limit: number } {
  const checked = checkOptions(filter, 'filter', ARCHIVE_FILTER_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
  if (checked.queue !== undefined) validateQueueName(checked.queue, 'filter.queue');
  return { ...checked, limit: checkLimit(checked.limit) };
}

/**
 * Checks a `dlq.list` filter.
 * @throws ChokaQError as {@link checkHotFilter}; an unknown reason is `CHOKAQ_INVALID_FILTER`.
 */
export function checkDeadFilter(filter: DeadFilter | undefined): DeadFilter & { limit: number } {
  const checked = checkOptions(filter, 'filter', DEAD_FILTER_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
  if (checked.queue !== undefined) validateQueueName(checked.queue, 'filter.queue');
  if (checked.reason !== undefined) {
    checkOneOf(checked.reason, 'filter.reason', FAILURE_REASONS, 'CHOKAQ_INVALID_FILTER');
  }
  return { ...checked, limit: checkLimit(checked.limit) };
}
