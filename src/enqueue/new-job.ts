import {
  checkEnvelopeText,
  LIMITS,
  normalizeIdempotencyKey,
  serializePayload,
  validateJobId,
  validatePriority,
  validateQueueName,
} from '../job/envelope.js';
import { checkConcurrencyLimit, concurrencyKeyOf } from '../job/concurrency.js';
import { bucketOf } from '../job/rate-limit.js';
import type { AnyJobDefinition } from '../job/registry.js';
import type { NewJob } from '../storage/model.js';
import { checkOptions, invalid } from '../util/check.js';
import { MAX_DURATION_MS, toMs } from '../util/duration.js';
import { uuidv7 } from '../util/uuid.js';
import { checkDependsOn } from './dependencies.js';
import { ENQUEUE_ITEM_KEYS, type EnqueueItem } from './options.js';

/** What {@link toNewJob} needs besides the item. */
export interface NewJobContext {
  /** The stored type key. */
  type: string;
  /** The job's definition, if it has one (pipe mode: none). */
  definition: AnyJobDefinition | undefined;
  maxPayloadBytes: number;
  /** Now, in ms since the epoch (for ids and `runAt`). */
  nowMs: number;
  /** The enqueuing code's trace context (W3C `traceparent`), or `null`. */
  traceParent: string | null;
  /**
   * Whether the queue and priority items take from the definition (or the defaults) passed
   * their check in this call; {@link toNewJob} sets them, so later items skip a check of the
   * same value. Start both `false`.
   */
  defaultsChecked: { queue: boolean; priority: boolean };
}

/**
 * The row for one enqueue item, its envelope checked (the payload's schema is checked by the
 * caller). `field` names the item in error messages: `options` or `items[3]`.
 * @throws ChokaQError with the code of the offending field; nothing is written.
 */
export function toNewJob(
  item: EnqueueItem<unknown>,
  field: string,
  context: NewJobContext,
): NewJob {
  checkOptions(item, field, ENQUEUE_ITEM_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
  const { definition, defaultsChecked } = context;
  // Field names are built only where a check runs: enqueueMany checks thousands of items, most
  // of which set nothing but a payload.
  const queue = item.queue ?? definition?.queue ?? 'default';
  if (item.queue !== undefined || !defaultsChecked.queue) {
    validateQueueName(queue, `${field}.queue`);
    if (item.queue === undefined) defaultsChecked.queue = true;
  }
  const priority = item.priority ?? definition?.priority ?? 10;
  if (item.priority !== undefined || !defaultsChecked.priority) {
    validatePriority(priority, `${field}.priority`);
    if (item.priority === undefined) defaultsChecked.priority = true;
  }
  // A generated id is valid by construction.
  const id = item.id ?? uuidv7(context.nowMs);
  if (item.id !== undefined) validateJobId(id, `${field}.id`);
  const concurrencyKey = concurrencyKeyOfItem(item, field, definition);
  const concurrencyLimit = concurrencyLimitOf(item, field, definition);
  if (item.concurrencyLimit !== undefined && concurrencyKey === null) {
    throw invalid(
      'CHOKAQ_INVALID_ARGUMENT',
      `${field}.concurrencyLimit`,
      'set with a concurrency key',
      item.concurrencyLimit,
    );
  }
  // The rate bucket is found again when the job starts; a bad key fails here, writing nothing.
  if (definition?.rateLimit) {
    bucketOf(definition.rateLimit, context.type, item.payload, `${field}.payload`);
  }
  const job: NewJob = {
    id,
    queue,
    type: context.type,
    payload: serializePayload(item.payload, context.maxPayloadBytes, `${field}.payload`),
    priority,
    delayMs: delayOf(item, field, context.nowMs),
    idempotencyKey:
      item.idempotencyKey === undefined
        ? null
        : normalizeIdempotencyKey(item.idempotencyKey, `${field}.idempotencyKey`),
    tags:
      item.tags === undefined
        ? null
        : checkEnvelopeText(item.tags, `${field}.tags`, LIMITS.tagsLength),
    createdBy:
      item.createdBy === undefined
        ? null
        : checkEnvelopeText(item.createdBy, `${field}.createdBy`, LIMITS.createdByLength),
    traceParent: context.traceParent,
    concurrencyKey,
    // The definition's limit applies only to jobs its key function gave a key.
    concurrencyLimit: concurrencyKey === null ? null : concurrencyLimit,
  };
  if (item.dependsOn !== undefined) {
    const dependsOn = checkDependsOn(item.dependsOn, `${field}.dependsOn`, id);
    if (dependsOn.length > 0) job.dependsOn = dependsOn;
  }
  return job;
}

/** The item's concurrency key: its own option, else its definition's; `null` when neither. */
function concurrencyKeyOfItem(
  item: EnqueueItem<unknown>,
  field: string,
  definition: AnyJobDefinition | undefined,
): string | null {
  if (item.concurrencyKey === undefined && definition?.concurrencyKey === undefined) return null;
  return concurrencyKeyOf(
    item.concurrencyKey,
    definition?.concurrencyKey,
    item.payload,
    `${field}.concurrencyKey`,
  );
}

/** The item's concurrency limit: its own option, else its definition's; `null` for none. */
function concurrencyLimitOf(
  item: EnqueueItem<unknown>,
  field: string,
  definition: AnyJobDefinition | undefined,
): number | null {
  if (item.concurrencyLimit === undefined) return definition?.concurrencyLimit ?? null;
  return checkConcurrencyLimit(
    item.concurrencyLimit,
    `${field}.concurrencyLimit`,
    'CHOKAQ_INVALID_ARGUMENT',
  );
}

/** Milliseconds until the item may run: from `runAt` (a past time is now) or `delay`. */
function delayOf(item: EnqueueItem<unknown>, field: string, nowMs: number): number {
  if (item.runAt !== undefined) {
    const runAt: unknown = item.runAt;
    if (!(runAt instanceof Date) || Number.isNaN(runAt.getTime())) {
      throw invalid('CHOKAQ_INVALID_ARGUMENT', `${field}.runAt`, 'a valid Date', runAt);
    }
    const delayMs = Math.max(0, runAt.getTime() - nowMs);
    if (delayMs > MAX_DURATION_MS) {
      throw invalid(
        'CHOKAQ_INVALID_ARGUMENT',
        `${field}.runAt`,
        'at most 36,500 days from now',
        runAt,
      );
    }
    return delayMs;
  }
  return item.delay === undefined ? 0 : toMs(item.delay, `${field}.delay`);
}
