/**
 * The check of the `retention` option of `new ChokaQ` and of `queues.<name>.retention`. Their
 * shapes, defaults and bounds are the retention code's (src/runtime/retention-options.ts), and so
 * are the ages and their check (src/runtime/retention-ages.ts), which the operator API uses for the
 * ages given to its calls.
 */
import { ChokaQError } from '../errors.js';
import { AGE_KEYS, resolveAges, retentionAge } from '../runtime/retention-ages.js';
import {
  RETENTION_BATCH_SIZE,
  RETENTION_DEFAULTS,
  RETENTION_INTERVAL,
  type QueueRetention,
  type RetentionOptions,
} from '../runtime/retention-options.js';
import type { RetentionSettings } from '../runtime/settings.js';
import { checkInteger, checkOptions, isPlainObject } from '../util/check.js';
import { toMs } from '../util/duration.js';

const RETENTION_KEYS = [
  ...AGE_KEYS,
  'interval',
  'batchSize',
] as const satisfies readonly (keyof RetentionOptions)[];
const QUEUE_KEYS = ['archive', 'dlq'] as const satisfies readonly (keyof QueueRetention)[];

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
    intervalMs: toMs(
      interval ?? RETENTION_DEFAULTS.interval,
      'retention.interval',
      RETENTION_INTERVAL,
    ),
    batchSize: checkInteger(
      batchSize ?? RETENTION_DEFAULTS.batchSize,
      'retention.batchSize',
      RETENTION_BATCH_SIZE,
    ),
    ages: resolveAges(ages, 'retention'),
    queueAges,
  };
}
