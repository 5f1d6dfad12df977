import { invalid } from './check.js';

/**
 * A span of time: milliseconds as a number, or a string such as `'250ms'`, `'30s'`, `'5m'`,
 * `'1h'`, `'1d'` (one unit, decimals allowed: `'1.5s'`).
 */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd'}`;

/**
 * Longest duration a timer can wait: Node's `setTimeout` fires at once for anything longer
 * (2^31 − 1 ms, about 24.8 days). Every duration ChokaQ waits on with a timer is held to it.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** Longest duration ChokaQ accepts anywhere (delays, retry lifetimes, TTLs): 100 × 365 days. */
export const MAX_DURATION_MS = 100 * 365 * 86_400_000;

/** Inclusive bounds of a duration, in ms. */
export interface DurationBounds {
  /** Default: `0`. */
  min?: number;
  /** Default: {@link MAX_DURATION_MS}. */
  max?: number;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

/**
 * Converts a {@link Duration} to whole milliseconds within `bounds`.
 * @throws ChokaQError `CHOKAQ_INVALID_DURATION` naming `field` when the value is not a number or
 *   duration string, or falls outside the bounds.
 */
export function toMs(value: Duration, field = 'duration', bounds: DurationBounds = {}): number {
  const min = bounds.min ?? 0;
  const max = bounds.max ?? MAX_DURATION_MS;
  const expected = `a duration from ${formatMs(min)} to ${formatMs(max)} (ms, or a string like '30s', '5m', '1h', '1d')`;
  let exact: number;
  if (typeof value === 'number') {
    exact = value;
  } else {
    const match = typeof value === 'string' ? PATTERN.exec(value.trim()) : null;
    const unit = match?.[2];
    if (!match?.[1] || !unit) throw invalid('CHOKAQ_INVALID_DURATION', field, expected, value);
    exact = Number(match[1]) * (UNIT_MS[unit] ?? 1);
  }
  const ms = Math.round(exact);
  if (!Number.isFinite(exact) || exact < 0 || ms < min || ms > max) {
    throw invalid('CHOKAQ_INVALID_DURATION', field, expected, value);
  }
  return ms;
}

/** A bound as people read it: `0 ms`, `1 ms`, `24.8 days`. */
function formatMs(ms: number): string {
  if (ms < 86_400_000) return `${ms} ms`;
  return `${Math.floor((ms / 86_400_000) * 10) / 10} days`;
}
