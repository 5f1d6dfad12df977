/**
 * Input checks shared by every `IdempotencyClaims` provider, so memory and SQL refuse the
 * same values with the same codes (and SQL never reaches a `value too long` driver error).
 *
 * @internal
 */
import { ChokaQError } from '../errors.js';
import { LIMITS } from '../job/envelope.js';

/**
 * Checks a claim key: 1–255 characters, the `idempotency_claims.key` column's size.
 * @throws ChokaQError `CHOKAQ_INVALID_IDEMPOTENCY_KEY` otherwise.
 */
export function checkClaimKey(key: string): void {
  if (typeof key !== 'string' || key === '' || key.length > LIMITS.idempotencyKeyLength) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_IDEMPOTENCY_KEY',
      `idempotency claim key must be 1-${LIMITS.idempotencyKeyLength} characters`,
    );
  }
}

/**
 * Checks a TTL in ms: finite and not negative.
 * @throws ChokaQError `CHOKAQ_INVALID_DURATION` otherwise.
 */
export function checkClaimTtl(ms: number, name: string): void {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new ChokaQError('CHOKAQ_INVALID_DURATION', `${name} must be a non-negative number of ms`);
  }
}
