/**
 * The API checks every value a command passes on and names the offending input by its path in
 * the call (`query.state[0]`, `request.edit.priority`); an operator typed a flag, so errors are
 * reworded to name the flag instead.
 */
import { ChokaQError } from '../errors.js';

/** API paths (indices dropped, `request.target.` stripped) and the flag that sets each. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  'query.state': '--state',
  'query.queue': '--queue',
  'query.type': '--type',
  'query.tags': '--tag',
  'query.created.from': '--created-from',
  'query.created.to': '--created-to',
  'query.finished.from': '--finished-from',
  'query.finished.to': '--finished-to',
  'query.reason': '--failure-reason',
  'query.errorGroup': '--group',
  'query.errorText': '--error',
  'query.attempts.min': '--attempts-min',
  'query.attempts.max': '--attempts-max',
  'query.idPrefix': '--id-prefix',
  'query.payload': '--payload-contains',
  'query.sort': '--sort',
  'query.order': '--order',
  'query.limit': '--limit',
  'query.cursor': '--cursor',
  'filter.queue': '--queue',
  'filter.type': '--type',
  'filter.limit': '--limit',
  ids: '--id',
  errorGroup: '--group',
  'request.edit.patch': '--patch',
  'request.edit.priority': '--priority',
  'request.edit.tags': '--set-tags',
  'request.reason': '--reason',
  'request.actor': '--actor',
  'edit.payload': '--payload',
  'edit.tags': '--tags',
  'edit.reason': '--reason',
  'edit.actor': '--actor',
  'ages.archive': '--archive',
  'ages.dlq': '--dlq',
  'ages.metricBuckets': '--metric-buckets',
  'ages.audit': '--audit',
  'ages.bulkActions': '--bulk-actions',
  'ages.scheduleTicks': '--schedule-ticks',
  'options.actor': '--actor',
  'options.reason': '--reason',
  actor: '--actor',
  reason: '--reason',
};

/** The flag that sets the API input at `field`, or `undefined`. */
export function flagOfField(field: string): string | undefined {
  const path = field.replace(/\[\d+\]/g, '').replace(/^request\.target\./, '');
  return FLAG_OF_FIELD[path];
}

/**
 * `error` with its message naming the flag rather than the API path, same code and cause; any
 * other error unchanged.
 */
export function inFlagTerms(error: unknown): unknown {
  if (!(error instanceof ChokaQError) || error.field === undefined) return error;
  const flag = flagOfField(error.field);
  if (flag === undefined) return error;
  // A path such as `query.state[0]` is only ever the field; a bare word (`actor`) may also be
  // prose, so only the one that starts the message is the field.
  const dotted = /[.[]/.test(error.field);
  let message: string;
  if (dotted) message = error.message.split(error.field).join(flag);
  else if (error.message.startsWith(`${error.field} `))
    message = `${flag}${error.message.slice(error.field.length)}`;
  else return error;
  if (message === error.message) return error;
  return new ChokaQError(error.code, message, {
    cause: error,
    field: flag,
    retryable: error.retryable,
  });
}
