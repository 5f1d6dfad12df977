import { ChokaQError } from '../errors.js';

/**
 * A span of time: milliseconds as a number, or a string such as `'250ms'`, `'30s'`, `'5m'`,
 * `'1h'`, `'1d'` (one unit, decimals allowed: `'1.5s'`).
 */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd'}`;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

/**
 * Converts a {@link Duration} to whole milliseconds.
 * @throws ChokaQError `CHOKAQ_INVALID_DURATION` when the value is negative, not finite or unparseable.
 */
export function toMs(value: Duration, name = 'duration'): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_DURATION',
        `${name} must be a non-negative number of ms, got ${value}`,
      );
    }
    return Math.round(value);
  }
  const match = PATTERN.exec(String(value).trim());
  const unit = match?.[2];
  if (!match?.[1] || !unit) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_DURATION',
      `${name} must look like 500, '30s', '5m', '1h' or '1d', got '${String(value)}'`,
    );
  }
  return Math.round(Number(match[1]) * (UNIT_MS[unit] ?? 1));
}
