/**
 * The ages the retention purge keeps rows for, and their check: shared by the `retention` option
 * (retention-options.ts, checked by src/config/retention.ts) and the ages given to
 * `chokaq.retention.preview` and `purge`, which sit below the options in the layers
 * (docs/architecture.md).
 */
import { RETENTION_TABLES, type RetentionTable } from '../storage/retention.js';
import { checkOptions } from '../util/check.js';
import { toMs, type Duration } from '../util/duration.js';

/** How long each kind of row is kept; `null` keeps it for good. */
export interface RetentionAges {
  /** Succeeded jobs, by finish time. Default: `'7d'`. */
  archive?: Duration | null;
  /** Dead jobs, by failure time. Default: `'30d'`. */
  dlq?: Duration | null;
  /** Per-second outcome buckets (throughput, failure rate). Default: `'2d'`. */
  metricBuckets?: Duration | null;
  /** Operator audit entries. Default: `'90d'`. */
  audit?: Duration | null;
  /** Bulk actions that ended (and their items). Default: `'30d'`. */
  bulkActions?: Duration | null;
  /**
   * Fired ticks of schedules (each tick's row keeps it from firing twice; only ticks long past
   * go). Default: `'30d'`.
   */
  scheduleTicks?: Duration | null;
}

/** Ages when nothing is said, in ms. */
export const DEFAULT_AGES: Readonly<Record<RetentionTable, number>> = {
  archive: 7 * 86_400_000,
  dlq: 30 * 86_400_000,
  metricBuckets: 2 * 86_400_000,
  audit: 90 * 86_400_000,
  bulkActions: 30 * 86_400_000,
  scheduleTicks: 30 * 86_400_000,
};

/** The names of {@link RetentionAges}, in the order they are checked: the retention tables. */
export const AGE_KEYS = RETENTION_TABLES;

/**
 * An age in ms (`null`: keep for good; `undefined`: not given), at least a second.
 * @throws ChokaQError `CHOKAQ_INVALID_DURATION` naming the field.
 */
export function retentionAge(
  value: Duration | null | undefined,
  field: string,
): number | null | undefined {
  if (value === undefined || value === null) return value;
  return toMs(value, field, { min: 1000 });
}

/**
 * Checks ages given to a call (`retention.preview`, `purge`) or the option, over `base`
 * (default: {@link DEFAULT_AGES}).
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION` or `CHOKAQ_INVALID_DURATION` naming the field.
 */
export function resolveAges(
  value: RetentionAges | undefined,
  field: string,
  base: Readonly<Record<RetentionTable, number | null>> = DEFAULT_AGES,
): Record<RetentionTable, number | null> {
  const options = checkOptions(value, field, AGE_KEYS);
  const out = { ...base };
  for (const key of AGE_KEYS) {
    const ms = retentionAge(options[key], `${field}.${key}`);
    if (ms !== undefined) out[key] = ms;
  }
  return out;
}
