/**
 * What the operator API shows of a schedule: its checked definition, its next fire times and its
 * last run with the outcome of that run's job.
 */
import type { FoundJob } from '../storage/model.js';
import type { ScheduleTick, StoredSchedule } from '../storage/schedules.js';
import { specFromJson, type ScheduleSpec } from './definition.js';
import { nextTicks, tickSeries } from './ticks.js';

/** How many next fire times {@link ScheduleInfo.nextRuns} lists. */
export const NEXT_RUNS = 5;

/** Where the job of a schedule's last run is now. */
export type RunJobState =
  | 'awaiting'
  | 'scheduled'
  | 'pending'
  | 'fetched'
  | 'processing'
  | 'succeeded'
  | 'dead'
  /** Purged by retention, or the tick made no job. */
  | 'gone';

/** A schedule's latest fired tick, with where its job is now. */
export interface ScheduleRun extends ScheduleTick {
  /** The job's state now, when the tick enqueued one; `null` for a skipped or failed tick. */
  jobState: RunJobState | null;
}

/** One schedule as `chokaq.schedules.list()` and `get()` show it. */
export interface ScheduleInfo {
  name: string;
  /** The job type key its jobs get. */
  type: string;
  queue: string;
  priority: number;
  tags: string | null;
  /** The cron expression, or `null` for an interval. */
  cron: string | null;
  /** The interval in ms, or `null` for a cron expression. */
  everyMs: number | null;
  timeZone: string;
  /** The static payload, or `undefined` when a function makes it per tick. */
  payload?: unknown;
  /** Whether a function makes the payload (only processes that define it fire it). */
  payloadFunction: boolean;
  missed: ScheduleSpec['missed'];
  missedAfterMs: number;
  catchUpLimit: number;
  overlap: ScheduleSpec['overlap'];
  jitterMs: number;
  endAt: Date | null;
  paused: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** The next fire times (up to {@link NEXT_RUNS}) after now, by the store's clock; paused: `[]`. */
  nextRuns: Date[];
  /** The latest fired tick, or `null` before the first. */
  lastRun: ScheduleRun | null;
}

/** The state of a found job, for {@link ScheduleRun.jobState}. */
export function runJobState(found: FoundJob | null): RunJobState {
  if (found === null) return 'gone';
  if (found.where === 'archive') return 'succeeded';
  if (found.where === 'dlq') return 'dead';
  return found.job.state;
}

/** The info of a stored schedule at `now`, given its last run's job (looked up by the caller). */
export function scheduleInfo(
  row: StoredSchedule,
  now: Date,
  lastJob: FoundJob | null,
): ScheduleInfo {
  const spec = specFromJson(row.name, row.definition);
  const from = row.cursorAt > now ? row.cursorAt : now;
  const tick = row.lastTick;
  return {
    name: row.name,
    type: spec.type,
    queue: spec.queue,
    priority: spec.priority,
    tags: spec.tags,
    cron: spec.cron,
    everyMs: spec.everyMs,
    timeZone: spec.timeZone,
    ...(spec.payload === null ? {} : { payload: JSON.parse(spec.payload) as unknown }),
    payloadFunction: spec.payload === null,
    missed: spec.missed,
    missedAfterMs: spec.missedAfterMs,
    catchUpLimit: spec.catchUpLimit,
    overlap: spec.overlap,
    jitterMs: spec.jitterMs,
    endAt: spec.endAt,
    paused: row.paused,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    nextRuns: row.paused ? [] : nextTicks(tickSeries(spec, row.anchorAt), from, NEXT_RUNS),
    lastRun:
      tick === null
        ? null
        : { ...tick, jobState: tick.jobId === null ? null : runJobState(lastJob) },
  };
}
