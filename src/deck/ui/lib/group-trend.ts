/**
 * How an error group is doing, from the jobs that joined it in each of the last 24 hours: the
 * last 3 hours against the group's usual rate — the 21 hours before them.
 *
 * - `quiet`: none joined in the last 3 hours;
 * - `new`: all of them joined in the last 3 hours (no usual rate to compare with);
 * - `rising`: the last 3 hours run at more than 1.5 times the usual hourly rate;
 * - `steady` otherwise.
 */

/** Hours at the end of the trend that say how a group is doing now. */
export const RECENT_HOURS = 3;

/** How much faster than usual the recent hours must run to be `rising`. */
const RISING_FACTOR = 1.5;

/** A group's trend label. */
export type TrendLabel = 'quiet' | 'new' | 'rising' | 'steady';

/** The label of hourly `counts`, oldest first (24 of them). */
export function trendLabel(counts: readonly number[]): TrendLabel {
  const recent = counts.slice(-RECENT_HOURS).reduce((a, b) => a + b, 0);
  const before = counts.slice(0, -RECENT_HOURS);
  const usual = before.reduce((a, b) => a + b, 0);
  if (recent === 0) return 'quiet';
  if (usual === 0) return 'new';
  return recent / RECENT_HOURS > (usual / before.length) * RISING_FACTOR ? 'rising' : 'steady';
}
