/**
 * The filter flags of the operator commands (`jobs list`, `dlq list`, and the selection of
 * `dlq resurrect` / `dlq purge`), turned into the operator API's query. The flags only parse
 * text (lists, numbers, JSON); every value is then checked by the API itself, so the CLI refuses
 * exactly what `chokaq.jobs.query` refuses, with the same codes.
 */
import type { JobQuery, TimeRange } from '../../operator/query-input.js';
import { CliError } from '../io.js';

/** `parseArgs` options of every filter but the state (the DLQ commands fix it to `dead`). */
export const FILTERS_BUT_STATE = {
  queue: { type: 'string', multiple: true },
  type: { type: 'string', multiple: true },
  tag: { type: 'string', multiple: true },
  'created-from': { type: 'string' },
  'created-to': { type: 'string' },
  'finished-from': { type: 'string' },
  'finished-to': { type: 'string' },
  'failure-reason': { type: 'string', multiple: true },
  group: { type: 'string' },
  error: { type: 'string' },
  'attempts-min': { type: 'string' },
  'attempts-max': { type: 'string' },
  'id-prefix': { type: 'string' },
  'payload-contains': { type: 'string' },
} as const;

/** `parseArgs` options of the filters. */
export const FILTER_OPTIONS = {
  state: { type: 'string', multiple: true },
  ...FILTERS_BUT_STATE,
} as const;

/** {@link FILTERS_BUT_STATE} in a synopsis line. */
export const FILTERS_BUT_STATE_SYNOPSIS =
  '[--queue Q] [--type T] [--tag T] [--created-from TIME] [--created-to TIME] ' +
  '[--finished-from TIME] [--finished-to TIME] [--failure-reason R] [--group FP] [--error TEXT] ' +
  '[--attempts-min N] [--attempts-max N] [--id-prefix P] [--payload-contains JSON]';

/** {@link FILTER_OPTIONS} in a synopsis line. */
export const FILTER_SYNOPSIS = `[--state S] ${FILTERS_BUT_STATE_SYNOPSIS}`;

/** Usage lines of {@link FILTER_OPTIONS}. */
export const FILTER_USAGE = `  --state S            scheduled, pending, fetched, processing, succeeded, dead (repeat, or S1,S2)
  --queue Q            queue name, exact (repeatable)
  --type T             job type key, exact (repeatable)
  --tag T              jobs carrying this tag (repeat, or T1,T2: every one)
  --created-from TIME  created at or after TIME (ISO 8601, such as 2026-12-01T10:00Z)
  --created-to TIME    created before TIME
  --finished-from TIME succeeded or died at or after TIME
  --finished-to TIME   succeeded or died before TIME
  --failure-reason R   DLQ reason: Transient, Fatal, Timeout, Zombie, Cancelled, … (repeatable)
  --group FP           DLQ error group (a fingerprint from 'chokaq dlq groups')
  --error TEXT         every word of TEXT occurs in the job's error
  --attempts-min N     at least N attempts
  --attempts-max N     at most N attempts
  --id-prefix P        ids starting with P
  --payload-contains JSON
                       payload contains this JSON (a bounded scan; docs/operator-api.md)`;

/** Values of {@link FILTER_OPTIONS} as parsed. */
export interface FilterValues {
  state?: string[] | undefined;
  queue?: string[] | undefined;
  type?: string[] | undefined;
  tag?: string[] | undefined;
  'created-from'?: string | undefined;
  'created-to'?: string | undefined;
  'finished-from'?: string | undefined;
  'finished-to'?: string | undefined;
  'failure-reason'?: string[] | undefined;
  group?: string | undefined;
  error?: string | undefined;
  'attempts-min'?: string | undefined;
  'attempts-max'?: string | undefined;
  'id-prefix'?: string | undefined;
  'payload-contains'?: string | undefined;
}

/** The query the filter flags ask for (no flag: no key, so the API's defaults apply). */
export function queryFrom(values: FilterValues): JobQuery {
  const query: Record<string, unknown> = {};
  const state = commaList(values.state);
  if (state) query.state = state;
  if (values.queue) query.queue = values.queue;
  if (values.type) query.type = values.type;
  const tags = commaList(values.tag);
  if (tags) query.tags = tags;
  const created = range(values['created-from'], values['created-to']);
  if (created) query.created = created;
  const finished = range(values['finished-from'], values['finished-to']);
  if (finished) query.finished = finished;
  const reason = commaList(values['failure-reason']);
  if (reason) query.reason = reason;
  if (values.group !== undefined) query.errorGroup = values.group;
  if (values.error !== undefined) query.errorText = values.error;
  const min = numberFlag(values['attempts-min'], '--attempts-min');
  const max = numberFlag(values['attempts-max'], '--attempts-max');
  if (min !== undefined || max !== undefined) {
    query.attempts = {
      ...(min === undefined ? {} : { min }),
      ...(max === undefined ? {} : { max }),
    };
  }
  if (values['id-prefix'] !== undefined) query.idPrefix = values['id-prefix'];
  if (values['payload-contains'] !== undefined)
    query.payload = jsonFlag(values['payload-contains'], '--payload-contains');
  return query;
}

/** Whether any filter flag was given. */
export function hasFilter(values: FilterValues): boolean {
  return Object.keys(FILTER_OPTIONS).some(
    (name) => values[name as keyof FilterValues] !== undefined,
  );
}

/** Repeated flags and comma-separated values as one list; `undefined` when never given. */
function commaList(values: readonly string[] | undefined): string[] | undefined {
  return values?.flatMap((value) => value.split(',').map((part) => part.trim()));
}

/** A time range of ISO texts, which the API checks, naming the field. */
function range(from: string | undefined, to: string | undefined): TimeRange | undefined {
  if (from === undefined && to === undefined) return undefined;
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/**
 * A number flag: its text as a number for the API to check (range, integer).
 * @throws CliError when the text is not a number at all.
 */
export function numberFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || Number.isNaN(number)) {
    throw new CliError(`${flag} must be a number, got '${value}'`);
  }
  return number;
}

/**
 * A JSON flag, parsed.
 * @throws CliError naming the flag when the text is not JSON.
 */
export function jsonFlag(value: string, flag: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch (error) {
    throw new CliError(
      `${flag} must be JSON, such as '{"tenant":"acme"}': ${(error as Error).message}`,
    );
  }
}
