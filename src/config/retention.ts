/**
 * The `retention` option of `new ChokaQ` and `queues.<name>.retention`: how long finished jobs,
 * dead jobs, metric buckets, audit entries, bulk actions and schedule ticks are kept, and how the background
 * purge runs (docs/observability.md). The ages and their check are the runtime's
 * (src/runtime/retention-ages.ts): the operator API checks the ages given to its calls with them.
 */
import { ChokaQError } from '../errors.js';
import {
  AGE_KEYS,
  resolveAges,
  retentionAge,
  type RetentionAges,
} from '../runtime/retention-ages.js';
import type { RetentionSettings } from '../runtime/settings.js';
import { checkInteger, checkOptions, isPlainObject } from '../util/check.js';
import { MAX_TIMER_MS, toMs, type Duration } from '../util/duration.js';

/** The `retention` option. */
export interface RetentionOptions extends RetentionAges {
  /** Mean time between purge passes (±20 %), 1 s – 24.8 days. Default: `'5m'`. */
  interval?: Duration;
  /** Rows per batch, each batch one short transaction (1–10,000). Default: `1000`. */
  batchSize?: number;
}

/** A queue's own ages (`queues.<name>.retention`). */
export type QueueRetention = Pick<RetentionAges, 'archive' | 'dlq'>;

const RETENTION_KEYS = [...AGE_KEYS, 'interval', 'batchSize'] as const;
const QUEUE_KEYS = ['archive', 'dlq'] as const;

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
      const ms = retentionAge(own[key], `${field}.${key}`);
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
