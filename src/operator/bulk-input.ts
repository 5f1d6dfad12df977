/**
 * The public shape of a bulk action request and its checks: what to do, to which jobs (ids, a
 * query or an error group) and, for edit-then-resurrect, the edit. Everything is checked before
 * the preview reads a row.
 */
import { ChokaQError } from '../errors.js';
import { checkEnvelopeText, LIMITS, validateJobId, validatePriority } from '../job/envelope.js';
import type { JobState } from '../job/state.js';
import type { BulkKind } from '../storage/bulk.js';
import { checkOneOf, checkOptions, checkString, invalid, isPlainObject } from '../util/check.js';
import { checkActor, checkIds } from './inputs.js';
import { checkReason } from './audit.js';
import { checkUnchecked } from './payload-check.js';
import { checkJobQuery, type CheckedQuery, type JobQuery } from './query-input.js';

/** What a bulk action does: `edit-resurrect` patches each job before it goes back to pending. */
export type BulkActionKind = BulkKind;

/** The bulk actions, an allow-list. */
export const BULK_KINDS: readonly BulkActionKind[] = [
  'resurrect',
  'edit-resurrect',
  'purge',
  'cancel',
];

/**
 * Which jobs a bulk action takes: listed ids, every job a query matches (its `sort`, `limit`
 * and `cursor` are ignored), every job of a DLQ error group, or every job of the workflow a job
 * belongs to (`flow`: that job's id; the jobs `jobs.flow` would show, those in a state the
 * action applies to: cancel a whole flow, resurrect or purge its dead jobs).
 */
export type BulkTarget =
  | { ids: readonly string[] }
  | { query: Omit<JobQuery, 'sort' | 'order' | 'limit' | 'cursor'> }
  | { errorGroup: string }
  | { flow: string };

/** The edit of `edit-resurrect`; at least one field. */
export interface BulkEdit {
  /**
   * A JSON merge patch (RFC 7386) applied to each job's payload: object members replace or add,
   * `null` members delete, anything else replaces the payload. The result is checked against
   * the job type's schema; a job whose patched payload fails is skipped and reported. The
   * preview refuses a patch for a type the previewing process has no definition of
   * (`CHOKAQ_UNKNOWN_JOB_TYPE`), and the worker running the action skips and reports a job of a
   * type it has no definition of, unless `unchecked` is set.
   */
  patch?: unknown;
  /**
   * Apply the patch to jobs of a type without a definition where it is checked, unchecked.
   * Default: `false`.
   */
  unchecked?: boolean;
  /** Priority of the resurrected jobs, a 32-bit integer. Default: `10`. */
  priority?: number;
  /** New tags (≤ 1000 characters); `null` clears them. Default: each job keeps its own. */
  tags?: string | null;
}

/** A bulk action to preview (`bulk.preview`). */
export interface BulkRequest {
  action: BulkActionKind;
  target: BulkTarget;
  /** Required for `edit-resurrect`, refused for the others. */
  edit?: BulkEdit;
}

/** Who confirms a previewed bulk action, and why (`bulk.run`). */
export interface BulkRunOptions {
  /** Recorded on every job it moves and in the audit trail (1–100 characters). */
  actor: string;
  /** Why, for the audit trail (1–1000 characters). Required. */
  reason: string;
}

/** A checked edit: the patch as plain JSON, so the snapshot stores exactly what was checked. */
export interface CheckedEdit {
  patch?: unknown;
  /** `true` only when the caller set it (absent otherwise). */
  unchecked?: true;
  priority?: number;
  tags?: string | null;
}

/** A checked request: the kind, the checked target and query, and the edit. */
export interface CheckedBulkRequest {
  action: BulkActionKind;
  /** The target as given (stored with the action for the audit trail). */
  target: BulkTarget;
  /** What the preview reads: the DLQ (resurrect, purge) or the hot table (cancel). */
  table: 'dlq' | 'hot';
  /** The filter of the preview's scan (for a `flow` target, before the flow's ids are added). */
  query: CheckedQuery['base'];
  /** With a `flow` target: the job whose workflow it takes; else `null`. */
  flow: string | null;
  edit: CheckedEdit | null;
}

/** The states each kind applies to. */
const STATES_OF: Record<BulkActionKind, readonly string[]> = {
  resurrect: ['dead'],
  'edit-resurrect': ['dead'],
  purge: ['dead'],
  cancel: ['awaiting', 'scheduled', 'pending', 'fetched', 'processing'],
};

/**
 * Checks a bulk request.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` (action, target, edit), `CHOKAQ_UNKNOWN_OPTION`,
 *   or the query's own codes (`CHOKAQ_INVALID_FILTER`, …), each naming the field.
 */
export function checkBulkRequest(request: BulkRequest): CheckedBulkRequest {
  const r = checkOptions(
    request,
    'request',
    ['action', 'target', 'edit'],
    'CHOKAQ_INVALID_ARGUMENT',
  );
  const action = checkOneOf(r.action, 'request.action', BULK_KINDS, 'CHOKAQ_INVALID_ARGUMENT');
  const table = action === 'cancel' ? 'hot' : 'dlq';
  const target = checkOptions<{
    ids?: unknown;
    query?: unknown;
    errorGroup?: unknown;
    flow?: unknown;
  }>(r.target, 'request.target', ['ids', 'query', 'errorGroup', 'flow'], 'CHOKAQ_INVALID_ARGUMENT');
  const given = (['ids', 'query', 'errorGroup', 'flow'] as const).filter(
    (k) => target[k] !== undefined,
  );
  if (given.length !== 1) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_ARGUMENT',
      `request.target must have exactly one of 'ids', 'query', 'errorGroup' or 'flow', got ${given.length === 0 ? 'none' : given.join(' and ')}`,
      { field: 'request.target' },
    );
  }
  let query: CheckedQuery['base'];
  let flow: string | null = null;
  if (target.flow !== undefined) {
    validateJobId(target.flow, 'request.target.flow');
    flow = target.flow;
    query = baseOf({}, table);
  } else if (target.ids !== undefined) {
    query = { ...baseOf({}, table), ids: checkIds(target.ids, 'request.target.ids') };
  } else if (target.errorGroup !== undefined) {
    if (action === 'cancel') {
      throw invalid(
        'CHOKAQ_INVALID_ARGUMENT',
        'request.target.errorGroup',
        "a target of a DLQ action ('cancel' takes ids or a query)",
        target.errorGroup,
      );
    }
    const fingerprint = checkString(
      target.errorGroup,
      'request.target.errorGroup',
      64,
      'CHOKAQ_INVALID_FILTER',
    );
    query = { ...baseOf({}, table), fingerprint };
  } else {
    query = baseOf(checkTargetQuery(target.query, action), table);
  }
  return { action, target: r.target, table, query, flow, edit: checkEdit(action, r.edit) };
}

/** Checks a query target: only states the action applies to (the default: all of them). */
function checkTargetQuery(value: unknown, action: BulkActionKind): JobQuery {
  const field = 'request.target.query';
  if (!isPlainObject(value)) throw invalid('CHOKAQ_INVALID_FILTER', field, 'an object', value);
  const q: Record<string, unknown> = value;
  for (const key of ['sort', 'order', 'limit', 'cursor']) {
    if (q[key] !== undefined) {
      throw invalid(
        'CHOKAQ_INVALID_FILTER',
        `${field}.${key}`,
        'absent (a bulk action takes every matching job)',
        q[key],
      );
    }
  }
  const allowed = STATES_OF[action];
  const states = q.state === undefined ? allowed : Array.isArray(q.state) ? q.state : [q.state];
  (states as unknown[]).forEach((state, i) =>
    checkOneOf(state, `${field}.state[${i}]`, allowed as string[], 'CHOKAQ_INVALID_FILTER'),
  );
  return { ...(q as JobQuery), state: states as readonly JobState[] };
}

/** The checked filter of `query` for the preview's scan of `table`, in id-stable order. */
function baseOf(query: JobQuery, table: 'dlq' | 'hot'): CheckedQuery['base'] {
  const state = table === 'dlq' ? 'dead' : (query.state ?? (STATES_OF.cancel as JobState[]));
  const checked = checkJobQuery(
    { ...query, state, sort: 'createdAt', order: 'asc' },
    'request.target.query',
  );
  return checked.base;
}

/** Checks `edit`: required (non-empty) for `edit-resurrect`, absent otherwise. */
function checkEdit(action: BulkActionKind, value: unknown): CheckedEdit | null {
  if (action !== 'edit-resurrect') {
    if (value !== undefined) {
      throw invalid('CHOKAQ_INVALID_ARGUMENT', 'request.edit', `absent for '${action}'`, value);
    }
    return null;
  }
  const e = checkOptions<{
    patch?: unknown;
    unchecked?: unknown;
    priority?: unknown;
    tags?: unknown;
  }>(
    value as object | undefined,
    'request.edit',
    ['patch', 'unchecked', 'priority', 'tags'],
    'CHOKAQ_INVALID_ARGUMENT',
  );
  const { unchecked, ...changes } = e;
  if (!isPlainObject(value) || Object.values(changes).every((v) => v === undefined)) {
    throw invalid(
      'CHOKAQ_INVALID_ARGUMENT',
      'request.edit',
      "an object with 'patch', 'priority' or 'tags'",
      value,
    );
  }
  const edit: CheckedEdit = {};
  if (e.patch !== undefined) {
    try {
      edit.patch = JSON.parse(JSON.stringify(e.patch)) as unknown;
    } catch {
      throw invalid('CHOKAQ_INVALID_ARGUMENT', 'request.edit.patch', 'JSON-serializable', e.patch);
    }
  }
  if (checkUnchecked(unchecked, 'request.edit.unchecked')) edit.unchecked = true;
  if (e.priority !== undefined) {
    validatePriority(e.priority, 'request.edit.priority');
    edit.priority = e.priority;
  }
  if (e.tags !== undefined)
    edit.tags = checkEnvelopeText(e.tags, 'request.edit.tags', LIMITS.tagsLength);
  return edit;
}

/**
 * Checks the options of `bulk.run`: an actor and a reason, both required.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming `options.actor` or `options.reason`.
 */
export function checkRunOptions(options: BulkRunOptions): { actor: string; reason: string } {
  const o = checkOptions(options, 'options', ['actor', 'reason'], 'CHOKAQ_INVALID_ARGUMENT');
  if (o.actor === undefined) {
    throw invalid('CHOKAQ_INVALID_ARGUMENT', 'options.actor', 'who confirms the action', o.actor);
  }
  const reason = checkReason(o.reason, 'options.reason');
  if (reason === null) {
    throw invalid('CHOKAQ_INVALID_ARGUMENT', 'options.reason', 'why the action runs', o.reason);
  }
  return { actor: checkActor(o.actor), reason };
}
