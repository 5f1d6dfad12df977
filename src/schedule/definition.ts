/**
 * A schedule as users write it (`new ChokaQ({ schedules })`, `chokaq.schedules.add`), its checks,
 * and the checked form every process stores and reads back: the definition JSON of the
 * `schedules` table. Every mistake is a coded `ChokaQError` at definition, naming the field —
 * never a schedule that silently never fires.
 */
import { Cron } from 'croner';
import { ChokaQError } from '../errors.js';
import {
  checkEnvelopeText,
  LIMITS,
  serializePayload,
  validatePriority,
  validateQueueName,
  validateTypeKey,
} from '../job/envelope.js';
import { isJobDefinition, type AnyJobDefinition } from '../job/registry.js';
import { checkInteger, checkOneOf, checkOptions, invalid, isPlainObject } from '../util/check.js';
import { MAX_TIMER_MS, toMs, type Duration } from '../util/duration.js';
import { cronOptions, nextTicks, tickSeries, type MissedPolicy, type TickRule } from './ticks.js';
import { isKnownZone } from './zone.js';

/**
 * A payload made for each tick from the tick's time: synchronous (a promise is refused), called
 * once at definition with the next tick to check it.
 */
export type PayloadFunction = (tick: Date) => unknown;

/** One recurring job. Exactly one of `cron` and `every` is given. */
export interface Schedule {
  /** Unique name, 1–60 characters from `[A-Za-z0-9_.:-]`; the key of pause, trigger and so on. */
  name: string;
  /** The job definition to enqueue, or a bare type key (pipe mode). */
  job: AnyJobDefinition | string;
  /**
   * A cron expression of 5 fields (minute precision) or 6 (seconds first), read in `timeZone`;
   * croner's syntax (`L`, `W`, `#`, names such as `MON`, nicknames such as `@daily`). Default:
   * none (use `every`).
   */
  cron?: string;
  /** A fixed interval of at least one second, counted from the schedule's creation. Default: none. */
  every?: Duration;
  /** IANA time zone of the cron expression's wall-clock times. Default: `'UTC'`. */
  timeZone?: string;
  /**
   * The job's payload: a JSON value, or a function of the tick time called for each tick (only
   * processes that define the schedule fire it then). Default: `null`.
   */
  payload?: PayloadFunction | string | number | boolean | null | object;
  /** Queue of the jobs. Default: the job definition's queue, else `'default'`. */
  queue?: string;
  /** Priority of the jobs (a 32-bit integer). Default: the definition's priority, else `10`. */
  priority?: number;
  /** Tags of the jobs (≤ 1000 characters). Default: none. */
  tags?: string | null;
  /**
   * Ticks missed while no scheduler ran (found more than `missedAfter` late): `'skip'` them,
   * run the `'latest'` once, or run `'all'` of them (at most `catchUpLimit`). Default: `'skip'`.
   */
  missed?: MissedPolicy;
  /** A tick found later than this is missed, 1 s – 24.8 days. Default: `'1m'`. */
  missedAfter?: Duration;
  /** With `missed: 'all'`, the most missed ticks run after one outage (1–10,000). Default: `100`. */
  catchUpLimit?: number;
  /**
   * `'skip'` a tick while the job of the schedule's previous tick is still pending or running;
   * `'allow'` overlapping runs. Default: `'allow'`.
   */
  overlap?: 'allow' | 'skip';
  /** Each job waits a random 0 – `jitter` before it may run, 0 – 24.8 days. Default: `0`. */
  jitter?: Duration;
  /** No tick after this time. Default: none (no end). */
  endAt?: Date;
}

/** The checked, storable part of a {@link Schedule} (durations in ms, payload serialized). */
export interface ScheduleSpec extends TickRule {
  name: string;
  /** The stored type key. */
  type: string;
  queue: string;
  priority: number;
  tags: string | null;
  /** The serialized static payload, or `null` when a function makes it per tick. */
  payload: string | null;
  overlap: 'allow' | 'skip';
  jitterMs: number;
}

/** A checked schedule: its spec, and its payload function when it has one. */
export interface CheckedSchedule {
  spec: ScheduleSpec;
  payloadFn: PayloadFunction | undefined;
  /** The job definition, when `job` was one. */
  definition: AnyJobDefinition | undefined;
}

/** Most schedules one `new ChokaQ` declares (its `schedules` option). */
export const MAX_DECLARED_SCHEDULES = 1000;

/** Names of a {@link Schedule}'s fields. */
export const SCHEDULE_KEYS = [
  'name',
  'job',
  'cron',
  'every',
  'timeZone',
  'payload',
  'queue',
  'priority',
  'tags',
  'missed',
  'missedAfter',
  'catchUpLimit',
  'overlap',
  'jitter',
  'endAt',
] as const satisfies readonly (keyof Schedule)[];

/** Schedule names: 1–60 characters from `[A-Za-z0-9_.:-]`. */
const NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,60}$/;

/**
 * Checks a schedule name.
 * @throws ChokaQError `CHOKAQ_INVALID_SCHEDULE` naming `field`.
 */
export function checkScheduleName(value: unknown, field: string): string {
  if (typeof value !== 'string' || !NAME_PATTERN.test(value)) {
    throw invalid('CHOKAQ_INVALID_SCHEDULE', field, '1–60 characters from [A-Za-z0-9_.:-]', value);
  }
  return value;
}

/** The coded error for a cron expression croner rejects or that never fires. */
function badCron(field: string, cron: string, why: string, cause?: unknown): ChokaQError {
  return new ChokaQError(
    'CHOKAQ_INVALID_SCHEDULE',
    `${field} ${JSON.stringify(cron)} is not a valid cron expression of 5 or 6 fields: ${why}`,
    { field, ...(cause === undefined ? {} : { cause }) },
  );
}

/** The timing fields, checked. */
function checkTiming(s: Schedule, field: string): TickRule {
  const timeZone = s.timeZone ?? 'UTC';
  if (typeof timeZone !== 'string' || !isKnownZone(timeZone)) {
    throw invalid(
      'CHOKAQ_INVALID_SCHEDULE',
      `${field}.timeZone`,
      'an IANA time zone name',
      timeZone,
    );
  }
  if ((s.cron === undefined) === (s.every === undefined)) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_SCHEDULE',
      `${field} needs exactly one of cron and every`,
      { field: `${field}.${s.cron === undefined ? 'cron' : 'every'}` },
    );
  }
  let cron: string | null = null;
  let everyMs: number | null = null;
  if (s.cron !== undefined) {
    cron = s.cron;
    if (typeof cron !== 'string')
      throw invalid('CHOKAQ_INVALID_SCHEDULE', `${field}.cron`, 'a string', cron);
    try {
      new Cron(cron, cronOptions(timeZone));
    } catch (error) {
      throw badCron(
        `${field}.cron`,
        cron,
        error instanceof Error ? error.message : String(error),
        error,
      );
    }
  } else {
    everyMs = toMs(s.every as Duration, `${field}.every`);
    if (everyMs < 1000) {
      throw invalid('CHOKAQ_INVALID_SCHEDULE', `${field}.every`, 'at least one second', s.every);
    }
  }
  let endAt: Date | null = null;
  if (s.endAt !== undefined) {
    const value: unknown = s.endAt;
    if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
      throw invalid('CHOKAQ_INVALID_SCHEDULE', `${field}.endAt`, 'a valid Date', value);
    }
    endAt = value;
  }
  return {
    cron,
    everyMs,
    timeZone,
    missed: checkOneOf(
      s.missed ?? 'skip',
      `${field}.missed`,
      ['skip', 'latest', 'all'],
      'CHOKAQ_INVALID_SCHEDULE',
    ),
    missedAfterMs: toMs(s.missedAfter ?? '1m', `${field}.missedAfter`, {
      min: 1000,
      max: MAX_TIMER_MS,
    }),
    catchUpLimit: checkInteger(
      s.catchUpLimit ?? 100,
      `${field}.catchUpLimit`,
      { min: 1, max: 10_000 },
      'CHOKAQ_INVALID_SCHEDULE',
    ),
    endAt,
  };
}

/**
 * Checks a schedule: field names, name, job, timing, enqueue options and payload (a function is
 * called once with the next tick, and must return a serializable payload). The payload's schema,
 * if the job definition has one, is checked by the caller (it may be asynchronous).
 * @param nowMs Now, for the payload function's trial tick and `endAt`.
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION`, `CHOKAQ_INVALID_SCHEDULE` (cron, zone, interval,
 *   name, policies, a payload function that throws, a schedule that would never fire),
 *   `CHOKAQ_INVALID_DURATION`, `CHOKAQ_INVALID_QUEUE`, `CHOKAQ_INVALID_PRIORITY`,
 *   `CHOKAQ_INVALID_ENVELOPE`, `CHOKAQ_PAYLOAD_INVALID` or `CHOKAQ_PAYLOAD_TOO_LARGE`, naming the
 *   field.
 */
export function checkSchedule(
  value: Schedule,
  field: string,
  maxPayloadBytes: number,
  nowMs: number,
): CheckedSchedule {
  if (!isPlainObject(value))
    throw invalid('CHOKAQ_INVALID_SCHEDULE', field, 'a schedule object', value);
  const s = checkOptions(value, field, SCHEDULE_KEYS, 'CHOKAQ_INVALID_SCHEDULE');
  const name = checkScheduleName(s.name, `${field}.name`);
  const definition = isJobDefinition(s.job) ? s.job : undefined;
  if (definition === undefined) validateTypeKey(s.job, `${field}.job`);
  const type = definition?.type ?? (s.job as string);
  const rule = checkTiming(s, field);
  const [trial] = nextTicks(tickSeries(rule, new Date(nowMs)), new Date(nowMs), 1);
  if (trial === undefined) {
    if (rule.endAt !== null && rule.endAt.getTime() <= nowMs) {
      throw invalid(
        'CHOKAQ_INVALID_SCHEDULE',
        `${field}.endAt`,
        'a time in the future',
        rule.endAt,
      );
    }
    throw badCron(`${field}.cron`, rule.cron ?? '', 'it never fires');
  }
  const queue = s.queue ?? definition?.queue ?? 'default';
  validateQueueName(queue, `${field}.queue`);
  const priority = s.priority ?? definition?.priority ?? 10;
  validatePriority(priority, `${field}.priority`);
  const payloadFn = typeof s.payload === 'function' ? (s.payload as PayloadFunction) : undefined;
  const payload =
    payloadFn === undefined
      ? serializePayload(s.payload ?? null, maxPayloadBytes, `${field}.payload`)
      : null;
  if (payloadFn !== undefined) {
    serializePayload(
      callPayload(payloadFn, trial, `${field}.payload`),
      maxPayloadBytes,
      `${field}.payload`,
    );
  }
  return {
    spec: {
      ...rule,
      name,
      type,
      queue,
      priority,
      tags: checkEnvelopeText(s.tags, `${field}.tags`, LIMITS.tagsLength),
      payload,
      overlap: checkOneOf(
        s.overlap ?? 'allow',
        `${field}.overlap`,
        ['allow', 'skip'],
        'CHOKAQ_INVALID_SCHEDULE',
      ),
      jitterMs: toMs(s.jitter ?? 0, `${field}.jitter`, { min: 0, max: MAX_TIMER_MS }),
    },
    payloadFn,
    definition,
  };
}

/**
 * Calls a payload function for `tick`.
 * @throws ChokaQError `CHOKAQ_INVALID_SCHEDULE` naming `field` when it throws (the error is the
 *   `cause`) or returns a promise (payload functions are synchronous).
 */
export function callPayload(fn: PayloadFunction, tick: Date, field: string): unknown {
  let value: unknown;
  try {
    value = fn(new Date(tick.getTime()));
  } catch (error) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_SCHEDULE',
      `${field} threw for the tick ${tick.toISOString()}: ${error instanceof Error ? error.message : String(error)}`,
      { field, cause: error },
    );
  }
  if (typeof (value as { then?: unknown } | null)?.then === 'function') {
    throw new ChokaQError(
      'CHOKAQ_INVALID_SCHEDULE',
      `${field} returned a promise for the tick ${tick.toISOString()}; it must return the payload itself`,
      { field },
    );
  }
  return value;
}

/** The definition JSON stored for a spec (its name is the row's key). */
export function specToJson(spec: ScheduleSpec): string {
  return JSON.stringify({ ...spec, name: undefined, endAt: spec.endAt?.toISOString() ?? null });
}

/** A spec read back from its stored definition JSON. */
export function specFromJson(name: string, json: string): ScheduleSpec {
  const stored = JSON.parse(json) as Omit<ScheduleSpec, 'name' | 'endAt'> & {
    endAt: string | null;
  };
  return { ...stored, name, endAt: stored.endAt === null ? null : new Date(stored.endAt) };
}
