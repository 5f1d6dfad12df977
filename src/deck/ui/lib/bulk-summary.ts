/**
 * What a bulk action acted on, in words (its selection and how many jobs), and its status as an
 * operator should read it: a preview never confirmed before its token expired is `expired`, not
 * in progress.
 */
import type { JobQuery } from '../../../operator/query-input.js';
import type { BulkAction } from '../../../storage/bulk.js';
import { count } from './format.js';

const words = (v: string | readonly string[] | undefined): string | undefined =>
  v === undefined ? undefined : typeof v === 'string' ? v : v.join(' or ');

/** A filter in words: `state dead, queue mail, type mail.send.v1, error "timeout"`. */
function querySummary(q: JobQuery): string {
  const parts: string[] = [];
  const add = (name: string, value: string | number | undefined) => {
    if (value !== undefined) parts.push(`${name} ${value}`);
  };
  add('state', words(q.state));
  add('queue', words(q.queue));
  add('type', words(q.type));
  add('tags', words(q.tags));
  add('failure reason', words(q.reason));
  add('error group', q.errorGroup);
  if (q.errorText !== undefined) parts.push(`error "${q.errorText}"`);
  if (q.idPrefix !== undefined) parts.push(`id starting ${q.idPrefix}`);
  if (q.payload !== undefined) parts.push(`payload containing ${JSON.stringify(q.payload)}`);
  if (q.attempts !== undefined) parts.push('attempts in a range');
  if (q.created !== undefined || q.finished !== undefined) parts.push('a time range');
  return parts.length === 0 ? 'every job' : parts.join(', ');
}

/**
 * `12 jobs: error group 3fa2…`, `3 jobs: chosen by id`, `40 jobs: state dead, queue mail`,
 * `4 jobs: the flow of job 01a2…`.
 */
export function bulkSummary(action: Pick<BulkAction, 'target' | 'total'>): string {
  const target = action.target as {
    ids?: string[];
    errorGroup?: string;
    query?: JobQuery;
    flow?: string;
  };
  const what =
    target.ids !== undefined
      ? 'chosen by id'
      : target.errorGroup !== undefined
        ? `error group ${target.errorGroup.slice(0, 12)}`
        : target.query !== undefined
          ? querySummary(target.query)
          : target.flow !== undefined
            ? `the flow of job ${target.flow}`
            : 'a selection';
  return `${count(action.total)} jobs: ${what}`;
}

/** The status to show: `expired` for a preview whose token ran out before anyone confirmed it. */
export function shownStatus(action: Pick<BulkAction, 'status' | 'expiresAt'>, now = Date.now()) {
  return action.status === 'previewed' && new Date(action.expiresAt).getTime() <= now
    ? 'expired'
    : action.status;
}
