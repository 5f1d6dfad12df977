/**
 * The storage half of recurring jobs: schedules (a name, an opaque JSON definition, a pause flag
 * and a cursor) and their ticks, one row per fired tick, unique per (schedule, tick time). Every
 * provider offers them over its own database through `Store.schedules`.
 *
 * A tick fires at most once because {@link ScheduleStore.fire} runs in one transaction that locks
 * the schedule, refuses ticks at or before its cursor, inserts the tick under its unique key and
 * enqueues the tick's job — the job exists exactly when its tick row does. Tick rows outlive the
 * jobs' archiving; retention prunes them by age (`scheduleTicks`).
 */
import type { NewJob } from './model.js';

/** The error text of a tick skipped by `overlap: 'skip'`. */
export const OVERLAP_SKIPPED = 'the previous run is still active';

/** What became of a fired tick: a job, a skip (the previous run still active), or a failure. */
export type TickOutcome = 'enqueued' | 'skipped' | 'failed';

/** One fired tick as stored. */
export interface ScheduleTick {
  /** The tick's time: when the schedule said it fires (a trigger: when it was asked). */
  tickAt: Date;
  /** When it was fired (store clock). */
  firedAt: Date;
  /** `true` for `schedules.trigger()`, `false` for the schedule's own ticks. */
  manual: boolean;
  outcome: TickOutcome;
  /** The job it enqueued (`enqueued` only), else `null`. */
  jobId: string | null;
  /** Why it failed or was skipped, else `null`. */
  error: string | null;
}

/** One schedule as stored. */
export interface StoredSchedule {
  name: string;
  /** The checked definition as JSON (see `schedule/definition.ts`); opaque to the store. */
  definition: string;
  paused: boolean;
  /** Ticks at or before this time were fired or passed over; only later ones may fire. */
  cursorAt: Date;
  /** When the schedule was created (store clock): where `every` intervals count from. */
  anchorAt: Date;
  createdAt: Date;
  updatedAt: Date;
  /** The latest fired tick (by tick time), or `null` before the first. */
  lastTick: ScheduleTick | null;
}

/** One tick to fire through {@link ScheduleStore.fire}. */
export interface TickToFire {
  tickAt: Date;
  /** A trigger: fires whatever the cursor, and moves no cursor. */
  manual: boolean;
  /** The job to enqueue; `null` when building it failed (the tick is then stored `failed`). */
  job: NewJob | null;
  /** Why building the job failed (with `job: null`). Default: `null`. */
  error?: string | null;
}

/** A batch of ticks of one schedule, fired in one transaction. */
export interface FireRequest {
  name: string;
  /** Ticks in ascending time order. */
  ticks: readonly TickToFire[];
  /**
   * Moves the cursor here (never back) once the ticks are written: the latest tick the caller
   * considered, fired or passed over. `null` leaves it.
   */
  advanceTo: Date | null;
  /** `skip`: a tick whose schedule's previous job is still hot (pending or running) is skipped. */
  overlap: 'allow' | 'skip';
}

/**
 * Per tick of a {@link FireRequest}: its {@link TickOutcome} when it was written, `taken` when it
 * was already fired or is at or before the cursor, `early` when it is later than the store's
 * now, `gone` when the schedule no longer exists.
 */
export type FireResult = TickOutcome | 'taken' | 'early' | 'gone';

/** Schedules and their ticks in a store's database. */
export interface ScheduleStore {
  /**
   * Creates the schedule (cursor and anchor: now) or replaces the definition of an existing one,
   * keeping its pause flag, cursor, anchor and ticks. Resolves to the row as stored.
   */
  save(name: string, definition: string): Promise<StoredSchedule>;
  /** One schedule with its latest tick, or `null`. */
  get(name: string): Promise<StoredSchedule | null>;
  /** Every schedule with its latest tick, by name. */
  list(): Promise<StoredSchedule[]>;
  /**
   * Pauses or resumes a schedule; resuming moves the cursor to now, so ticks that fell in the
   * pause never fire. Resolves to the row, or `null` when there is no such schedule.
   */
  setPaused(name: string, paused: boolean): Promise<StoredSchedule | null>;
  /** Deletes a schedule and its ticks; `false` when there was none. */
  remove(name: string): Promise<boolean>;
  /**
   * Fires ticks in one transaction: locks the schedule; per tick, in order, refuses it when it
   * is not manual and at or before the cursor (`taken`) or later than now (`early`); otherwise
   * inserts its row under the unique (schedule, tick time) key (`taken` on a conflict) with its
   * outcome — `skipped` under `overlap: 'skip'` while the schedule's latest job is hot, `failed`
   * without a job, else `enqueued` with the job inserted (as `JobStore.enqueue`) in the same
   * transaction. Non-manual written ticks move the cursor, as does `advanceTo`.
   */
  fire(request: FireRequest): Promise<FireResult[]>;
}
