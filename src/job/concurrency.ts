/**
 * Concurrency keys and limits: the checks made before anything is written, and how a job's key
 * is found (the enqueue option, else the definition's `concurrencyKey`).
 */
import { checkInteger, invalid } from '../util/check.js';
import type { ErrorCode } from '../errors.js';

/** Longest concurrency key: the column's size. */
export const MAX_CONCURRENCY_KEY_LENGTH = 255;

/** Largest concurrency limit. */
export const MAX_CONCURRENCY_LIMIT = 1_000_000;

/**
 * A job definition's concurrency key: one key for every job of the type, or a function of the
 * payload as enqueued (a string or an integer; `null` or `undefined` for none).
 */
export type ConcurrencyKeyOption<P> = string | ((payload: P) => string | number | null | undefined);

/**
 * Checks a concurrency key: `null` and `undefined` mean none; else a non-blank string of at most
 * 255 characters, or a safe integer (stored as its decimal text).
 * @throws ChokaQError `CHOKAQ_INVALID_CONCURRENCY_KEY` naming `field` and the value.
 */
export function checkConcurrencyKey(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (
    typeof value !== 'string' ||
    value.trim() === '' ||
    value.length > MAX_CONCURRENCY_KEY_LENGTH
  ) {
    throw invalid(
      'CHOKAQ_INVALID_CONCURRENCY_KEY',
      field,
      `a non-blank string of at most ${MAX_CONCURRENCY_KEY_LENGTH} characters, or an integer`,
      value,
    );
  }
  return value;
}

/**
 * Checks a concurrency limit: `undefined` and `null` mean none; else an integer from 1 to
 * 1,000,000.
 * @throws ChokaQError `code` naming `field` and the value.
 */
export function checkConcurrencyLimit(
  value: unknown,
  field: string,
  code: ErrorCode,
): number | null {
  if (value === null || value === undefined) return null;
  return checkInteger(value, field, { min: 1, max: MAX_CONCURRENCY_LIMIT }, code);
}

/**
 * The concurrency key of one job: `explicit` (the enqueue option) when given, else the
 * definition's `option` (called with `payload` when it is a function), else none.
 * @throws ChokaQError `CHOKAQ_INVALID_CONCURRENCY_KEY` when the key is not a valid key.
 */
export function concurrencyKeyOf(
  explicit: unknown,
  option: ConcurrencyKeyOption<unknown> | undefined,
  payload: unknown,
  field: string,
): string | null {
  if (explicit !== undefined) return checkConcurrencyKey(explicit, field);
  if (option === undefined) return null;
  if (typeof option === 'string') return option;
  return checkConcurrencyKey(option(payload), `${field} (from the definition's concurrencyKey)`);
}
