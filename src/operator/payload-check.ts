/**
 * The one rule for payloads an operator writes (`jobs.edit`, `dlq.edit`, `dlq.resurrect` with a
 * payload, the patch of a bulk `edit-resurrect`): a payload is checked by its job type's schema
 * in the process that writes it, and is never stored unchecked by accident. A process that has
 * no definition of the type cannot check it, so it refuses — unless the caller says `unchecked`
 * (pipe mode, a type whose schema lives in another service).
 */
import { ChokaQError } from '../errors.js';
import { parsePayload } from '../job/define-job.js';
import { serializePayload } from '../job/envelope.js';
import type { JobRegistry } from '../job/registry.js';
import { checkBoolean } from '../util/check.js';

/**
 * Checks an `unchecked` option: absent is `false`.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming `field` when it is not a boolean.
 */
export function checkUnchecked(value: unknown, field: string): boolean {
  return value === undefined ? false : checkBoolean(value, field, 'CHOKAQ_INVALID_ARGUMENT');
}

/**
 * Checks `value`, a new payload for a job of `type`, against the type's schema as this process
 * registered it (a definition without a schema accepts any payload). Resolves `true` when the
 * payload goes in unchecked (the type is unknown here and `unchecked` was asked for), which the
 * caller records in the audit trail; `false` when it was checked.
 * @param unchecked - Accept the payload of a type this process has no definition of, unchecked.
 *   Default: `false` (refused).
 * @throws ChokaQError `CHOKAQ_PAYLOAD_INVALID` naming `field` when the schema refuses it;
 *   `CHOKAQ_UNKNOWN_JOB_TYPE` naming `field` and the type when this process has no definition of
 *   `type` and `unchecked` is not set.
 */
export async function checkOperatorPayload(
  registry: JobRegistry,
  type: string,
  value: unknown,
  field: string,
  unchecked = false,
): Promise<boolean> {
  const definition = registry.find(type);
  if (definition) {
    await parsePayload(definition, value, field);
    return false;
  }
  if (unchecked) return true;
  throw new ChokaQError(
    'CHOKAQ_UNKNOWN_JOB_TYPE',
    `the payload cannot be checked: this process does not know job type '${type}' or its schema. Load the type (chokaq deck --module), or store the payload checked as JSON only (The Deck: tick "Store a changed payload checked as JSON only"; API: unchecked: true; CLI: --unchecked)`,
    { field },
  );
}

/**
 * A new payload given as `edit.payload` for a job of `type`, checked as
 * {@link checkOperatorPayload} does and serialized for storage (at most `maxPayloadBytes`);
 * `unchecked` in the result says it goes in unchecked.
 * @throws ChokaQError naming `edit.payload`, as {@link checkOperatorPayload} and
 *   `serializePayload` do.
 */
export async function editedPayload(
  registry: JobRegistry,
  type: string,
  value: unknown,
  maxPayloadBytes: number,
  unchecked: boolean,
): Promise<{ payload: string; unchecked: boolean }> {
  const stored = await checkOperatorPayload(registry, type, value, 'edit.payload', unchecked);
  return { payload: serializePayload(value, maxPayloadBytes, 'edit.payload'), unchecked: stored };
}
