/**
 * Checks of rate-limit draws made by every provider before touching its buckets, so a bad value
 * is a coded error and never a database error.
 *
 * @internal
 */
// The bounds belong to the job definitions, which check a type's `rateLimit` with them first.
import { MAX_BUCKET_NAME, MAX_RATE_LIMIT } from '../job/rate-limit.js';
import { checkInteger, checkString } from '../util/check.js';
import { MAX_DURATION_MS } from '../util/duration.js';
import type { RateDraw } from './rate-limits.js';

/**
 * Checks a bucket's name, limit and interval.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming the field and value.
 */
export function checkBucket(name: unknown, limit: unknown, perMs: unknown): void {
  checkString(name, 'rateLimit.key', MAX_BUCKET_NAME, 'CHOKAQ_INVALID_ARGUMENT');
  checkInteger(
    limit,
    'rateLimit.limit',
    { min: 1, max: MAX_RATE_LIMIT },
    'CHOKAQ_INVALID_ARGUMENT',
  );
  checkInteger(perMs, 'rateLimit.per', { min: 1, max: MAX_DURATION_MS }, 'CHOKAQ_INVALID_ARGUMENT');
}

/**
 * Checks a draw.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming the field and value.
 */
export function checkDraw(draw: RateDraw): void {
  checkBucket(draw.name, draw.limit, draw.perMs);
  checkInteger(draw.count, 'count', { min: 1, max: MAX_RATE_LIMIT }, 'CHOKAQ_INVALID_ARGUMENT');
}
