/**
 * Checks of a job's envelope (everything but the payload's own schema), made before anything is
 * written. `field` names the input in error messages (`queue`, `items[3].queue`, …).
 */
import { ChokaQError } from '../errors.js';
import { describeValue, invalid } from '../util/check.js';

/** Limits checked before anything is written (SPEC F8); they are the columns' sizes. */
export const LIMITS = {
  queueLength: 255,
  typeLength: 255,
  idLength: 50,
  idempotencyKeyLength: 255,
  createdByLength: 100,
  tagsLength: 1000,
} as const;

/** Queue names: 1–255 characters from `[A-Za-z0-9_.:-]`. */
export const QUEUE_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,255}$/;

/** Smallest and largest priority: the range of a 32-bit integer column. */
export const PRIORITY_RANGE = { min: -2_147_483_648, max: 2_147_483_647 } as const;

/** @throws ChokaQError `CHOKAQ_INVALID_QUEUE` */
export function validateQueueName(queue: unknown, field = 'queue'): asserts queue is string {
  if (typeof queue !== 'string' || !QUEUE_NAME_PATTERN.test(queue)) {
    throw invalid(
      'CHOKAQ_INVALID_QUEUE',
      field,
      `1–${LIMITS.queueLength} characters from [A-Za-z0-9_.:-]`,
      queue,
    );
  }
}

/** @throws ChokaQError `CHOKAQ_INVALID_JOB_TYPE` */
export function validateTypeKey(type: unknown, field = 'type'): asserts type is string {
  if (typeof type !== 'string' || type.trim() === '' || type.length > LIMITS.typeLength) {
    throw invalid(
      'CHOKAQ_INVALID_JOB_TYPE',
      field,
      `a non-blank type key of at most ${LIMITS.typeLength} characters`,
      type,
    );
  }
}

/** @throws ChokaQError `CHOKAQ_INVALID_JOB_ID` */
export function validateJobId(id: unknown, field = 'id'): asserts id is string {
  if (typeof id !== 'string' || id.trim() === '' || id.length > LIMITS.idLength) {
    throw invalid(
      'CHOKAQ_INVALID_JOB_ID',
      field,
      `a non-blank id of at most ${LIMITS.idLength} characters`,
      id,
    );
  }
}

/** @throws ChokaQError `CHOKAQ_INVALID_PRIORITY` */
export function validatePriority(
  priority: unknown,
  field = 'priority',
): asserts priority is number {
  if (
    typeof priority !== 'number' ||
    !Number.isInteger(priority) ||
    priority < PRIORITY_RANGE.min ||
    priority > PRIORITY_RANGE.max
  ) {
    throw invalid('CHOKAQ_INVALID_PRIORITY', field, 'a 32-bit integer', priority);
  }
}

/**
 * Trims an idempotency key; blank means none.
 * @throws ChokaQError `CHOKAQ_INVALID_IDEMPOTENCY_KEY` when it is not a string (or null) or is
 *   longer than 255 characters.
 */
export function normalizeIdempotencyKey(key: unknown, field = 'idempotencyKey'): string | null {
  if (key === undefined || key === null) return null;
  if (typeof key !== 'string') {
    throw invalid('CHOKAQ_INVALID_IDEMPOTENCY_KEY', field, 'a string or null', key);
  }
  const trimmed = key.trim();
  if (trimmed === '') return null;
  if (trimmed.length > LIMITS.idempotencyKeyLength) {
    throw invalid(
      'CHOKAQ_INVALID_IDEMPOTENCY_KEY',
      field,
      `at most ${LIMITS.idempotencyKeyLength} characters`,
      key,
    );
  }
  return trimmed;
}

/**
 * Checks an optional text of the envelope (`createdBy`, `tags`): a string of at most `maxLength`
 * characters, or null.
 * @throws ChokaQError `CHOKAQ_INVALID_ENVELOPE`.
 */
export function checkEnvelopeText(value: unknown, field: string, maxLength: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > maxLength) {
    throw invalid(
      'CHOKAQ_INVALID_ENVELOPE',
      field,
      `a string of at most ${maxLength} characters, or null`,
      value,
    );
  }
  return value;
}

/**
 * Serializes a payload to JSON and checks its UTF-8 size.
 * @throws ChokaQError `CHOKAQ_PAYLOAD_INVALID` (not serializable) or `CHOKAQ_PAYLOAD_TOO_LARGE`.
 */
export function serializePayload(payload: unknown, maxBytes: number, field = 'payload'): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(payload === undefined ? null : payload);
  } catch (error) {
    throw new ChokaQError(
      'CHOKAQ_PAYLOAD_INVALID',
      `${field} cannot be serialized to JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error, field },
    );
  }
  if (json === undefined) {
    throw new ChokaQError(
      'CHOKAQ_PAYLOAD_INVALID',
      `${field} cannot be serialized to JSON, got ${describeValue(payload)}`,
      { field },
    );
  }
  // A UTF-16 code unit takes at most 3 bytes of UTF-8: most payloads need no count of bytes.
  if (json.length * 3 <= maxBytes) return json;
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) {
    throw new ChokaQError(
      'CHOKAQ_PAYLOAD_TOO_LARGE',
      `${field} is ${bytes} bytes of JSON, more than maxPayloadBytes ${maxBytes}`,
      { field },
    );
  }
  return json;
}
