import { ChokaQError } from '../errors.js';

/** Limits checked before anything is written (SPEC F8). */
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

/** @throws ChokaQError `CHOKAQ_INVALID_QUEUE` */
export function validateQueueName(queue: unknown): asserts queue is string {
  if (typeof queue !== 'string' || !QUEUE_NAME_PATTERN.test(queue)) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_QUEUE',
      `queue name must be 1–${LIMITS.queueLength} characters from [A-Za-z0-9_.:-], got ${JSON.stringify(queue)}`,
    );
  }
}

/** @throws ChokaQError `CHOKAQ_INVALID_JOB_TYPE` */
export function validateTypeKey(type: unknown): asserts type is string {
  if (typeof type !== 'string' || type.trim() === '' || type.length > LIMITS.typeLength) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_JOB_TYPE',
      `job type key must be 1–${LIMITS.typeLength} characters, got ${JSON.stringify(type)}`,
    );
  }
}

/** @throws ChokaQError `CHOKAQ_INVALID_JOB_ID` */
export function validateJobId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.trim() === '' || id.length > LIMITS.idLength) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_JOB_ID',
      `job id must be 1–${LIMITS.idLength} characters, got ${JSON.stringify(id)}`,
    );
  }
}

/** @throws ChokaQError `CHOKAQ_INVALID_PRIORITY` */
export function validatePriority(priority: unknown): asserts priority is number {
  if (
    typeof priority !== 'number' ||
    !Number.isInteger(priority) ||
    priority < -2_147_483_648 ||
    priority > 2_147_483_647
  ) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_PRIORITY',
      `priority must be a 32-bit integer, got ${String(priority)}`,
    );
  }
}

/**
 * Trims an idempotency key; blank means none.
 * @throws ChokaQError `CHOKAQ_INVALID_IDEMPOTENCY_KEY` when longer than 255 characters.
 */
export function normalizeIdempotencyKey(key: string | null | undefined): string | null {
  if (key === undefined || key === null) return null;
  const trimmed = String(key).trim();
  if (trimmed === '') return null;
  if (trimmed.length > LIMITS.idempotencyKeyLength) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_IDEMPOTENCY_KEY',
      `idempotency key must be at most ${LIMITS.idempotencyKeyLength} characters`,
    );
  }
  return trimmed;
}

/** @throws ChokaQError `CHOKAQ_INVALID_ENVELOPE` when createdBy or tags are too long. */
export function validateAudit(createdBy: string | null, tags: string | null): void {
  if (createdBy !== null && createdBy.length > LIMITS.createdByLength) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_ENVELOPE',
      `createdBy must be at most ${LIMITS.createdByLength} characters`,
    );
  }
  if (tags !== null && tags.length > LIMITS.tagsLength) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_ENVELOPE',
      `tags must be at most ${LIMITS.tagsLength} characters`,
    );
  }
}

/**
 * Serializes a payload to JSON and checks its UTF-8 size.
 * @throws ChokaQError `CHOKAQ_PAYLOAD_INVALID` (not serializable) or `CHOKAQ_PAYLOAD_TOO_LARGE`.
 */
export function serializePayload(payload: unknown, maxBytes: number): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(payload === undefined ? null : payload);
  } catch (error) {
    throw new ChokaQError('CHOKAQ_PAYLOAD_INVALID', 'payload cannot be serialized to JSON', {
      cause: error,
    });
  }
  if (json === undefined)
    throw new ChokaQError('CHOKAQ_PAYLOAD_INVALID', 'payload cannot be serialized to JSON');
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) {
    throw new ChokaQError(
      'CHOKAQ_PAYLOAD_TOO_LARGE',
      `payload is ${bytes} bytes, more than maxPayloadBytes ${maxBytes}`,
    );
  }
  return json;
}
