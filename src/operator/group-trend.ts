/**
 * The trend of DLQ error groups (`chokaq.dlq.trend`): how many of each group's jobs moved to the
 * DLQ in each of the last 24 hours, read from the hourly summary kept as jobs enter the DLQ (at
 * most 24 rows per group, never a scan of the DLQ), on the store's clock.
 */
import type { Store } from '../storage/store.js';
import { checkArray, checkString } from '../util/check.js';

/** Hours of a trend, the one now running included. */
export const TREND_HOURS = 24;
/** Most groups of one trend read. */
export const MAX_TREND_GROUPS = 100;

const HOUR_MS = 3_600_000;

/** Dead jobs per hour of some error groups. */
export interface ErrorGroupTrend {
  /** Start of each hour (whole UTC hours), oldest first; the last is the hour now running. */
  hours: Date[];
  /**
   * The groups asked for, in that order (each once): jobs that moved to the DLQ in each hour (aligned with
   * `hours`), counted when they arrived, so resurrected or purged ones still count.
   */
  groups: { fingerprint: string; counts: number[] }[];
}

/**
 * Checks the fingerprints of a trend read: at most {@link MAX_TREND_GROUPS}, each a
 * non-blank string of at most 64 characters (as `dlq.groups` gives them).
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming `fingerprints` or `fingerprints[i]`.
 */
export function checkTrendGroups(fingerprints: unknown): string[] {
  return checkArray(fingerprints, 'fingerprints', MAX_TREND_GROUPS).map((f, i) =>
    checkString(f, `fingerprints[${i}]`, 64, 'CHOKAQ_INVALID_ARGUMENT'),
  );
}

/** The trend of `fingerprints` (checked) over the last {@link TREND_HOURS} hours. */
export async function errorGroupTrend(
  store: Pick<Store, 'operator' | 'cluster'>,
  fingerprints: readonly string[],
): Promise<ErrorGroupTrend> {
  const now = (await store.cluster.now()).getTime();
  const first = (Math.floor(now / HOUR_MS) - (TREND_HOURS - 1)) * HOUR_MS;
  const hours = Array.from({ length: TREND_HOURS }, (_, k) => new Date(first + k * HOUR_MS));
  const counts = new Map(fingerprints.map((f) => [f, new Array<number>(TREND_HOURS).fill(0)]));
  const rows =
    fingerprints.length === 0 ? [] : await store.operator.errorGroupHours(fingerprints, hours[0]!);
  for (const row of rows) {
    const k = Math.round((row.hourStart.getTime() - first) / HOUR_MS);
    const series = counts.get(row.fingerprint);
    if (series !== undefined && k >= 0 && k < TREND_HOURS) series[k]! += row.count;
  }
  return { hours, groups: [...counts].map(([fingerprint, c]) => ({ fingerprint, counts: c })) };
}
