/**
 * The `retention` option of `new ChokaQ` and `queues.<name>.retention`: how long finished jobs,
 * dead jobs, metric buckets, audit entries, bulk actions and schedule ticks are kept, and how the background
 * purge runs (docs/observability.md).
 */
import { ChokaQError } from '../errors.js';
import type { RetentionSettings } from '../runtime/settings.js';
import type { RetentionTable } from '../storage/retention.js';
import { checkInteger, checkOptions, isPlainObject } from '../util/check.js';
import { MAX_TIMER_MS, toMs, type Duration } from '../util/duration.js';

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

/** The `retention` option. */
export interface RetentionOptions extends RetentionAges {
  /** Mean time between purge passes (±20 %), 1 s – 24.8 days. Default: `'5m'`. */
  interval?: Duration;
  /** Rows per batch, each batch one short transaction (1–10,000). Default: `1000`. */
  batchSize?: number;
}

/** A queue's own ages (`queues.<name>.retention`). */
export type QueueRetention = Pick<RetentionAges, 'archive' | 'dlq'>;

/** Ages when nothing is said, in ms. */
export const DEFAULT_AGES: Readonly<Record<RetentionTable, number>> = {
  archive: 7 * 86_400_000,
  dlq: 30 * 86_400_000,
  metricBuckets: 2 * 86_400_000,
  audit: 90 * 86_400_000,
  bulkActions: 30 * 86_400_000,
  scheduleTicks: 30 * 86_400_000,
};

const AGE_KEYS = [
  'archive',
  'dlq',
  'metricBuckets',
  'audit',
  'bulkActions',
  'scheduleTicks',
] as const;
const RETENTION_KEYS = [...AGE_KEYS, 'interval', 'batchSize'] as const;
const QUEUE_KEYS = ['archive', 'dlq'] as const;

/** An age in ms (`null`: keep for good), at least a second. */
function age(value: Duration | null | undefined, field: string): number | null | undefined {
  if (value === undefined || value === null) return value;
  return toMs(value, field, { min: 1000 });
}

/**
 * Checks ages given to a call (`retention.preview`, `purge`) or the option, over `base`.
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
    const ms = age(options[key], `${field}.${key}`);
    if (ms !== undefined) out[key] = ms;
  }
  return out;
}

/**
 * Checks the `retention` option and the queues' own ages (their names already checked).
 * @throws ChokaQError naming the field.
 */
export function resolveRetention(
  value: RetentionOptions | false | undefined,
  queues: Readonly<Record<string, { retention?: QueueRetention }>> = {},
): RetentionSettings {
  const options = value === false ? {} : checkOptions(value, 'retention', RETENTION_KEYS);
  const { interval, batchSize, ...ages } = options;
  const queueAges: Record<string, Partial<Record<'archive' | 'dlq', number | null>>> = {};
  for (const [name, queue] of Object.entries(queues)) {
    if (queue.retention === undefined) continue;
    const field = `queues.${name}.retention`;
    if (!isPlainObject(queue.retention)) {
      throw new ChokaQError('CHOKAQ_INVALID_CONFIG', `${field} must be an object`, { field });
    }
    const own = checkOptions(queue.retention, field, QUEUE_KEYS);
    const entry: Partial<Record<'archive' | 'dlq', number | null>> = {};
    for (const key of QUEUE_KEYS) {
      const ms = age(own[key], `${field}.${key}`);
      if (ms !== undefined) entry[key] = ms;
    }
    queueAges[name] = entry;
  }
  return {
    enabled: value !== false,
    intervalMs: toMs(interval ?? '5m', 'retention.interval', { min: 1000, max: MAX_TIMER_MS }),
    batchSize: checkInteger(batchSize ?? 1000, 'retention.batchSize', { min: 1, max: 10_000 }),
    ages: resolveAges(ages, 'retention'),
    queueAges,
  };
}
