/**
 * Schedules over SQL (migration 0011): `schedules` and `schedule_ticks` in the store's schema.
 * Firing is one transaction: the schedule row is locked first, so fires of one schedule never
 * interleave, and each tick's row and job commit together (see `ScheduleStore.fire`).
 *
 * @internal Reach it through `SqlStore.schedules`.
 */
import type { EnqueueResult } from '../model.js';
import {
  OVERLAP_SKIPPED,
  type FireRequest,
  type FireResult,
  type ScheduleStore,
  type ScheduleTick,
  type StoredSchedule,
  type TickOutcome,
} from '../schedules.js';
import type { NewJob } from '../model.js';
import type { Executor } from './executor.js';
import type { QueryName } from './generated.js';
import { toDate, toStr } from './rows.js';
import * as run from './statements.js';
import type { ScheduleListRow } from './statements.js';

/** The statements {@link SqlSchedules} runs, bound to the store's schema. */
export type ScheduleStatements = Pick<
  Readonly<Record<QueryName, string>>,
  | 'schedule_save'
  | 'schedule_list'
  | 'schedule_pause'
  | 'schedule_remove'
  | 'schedule_lock'
  | 'schedule_tick_insert'
  | 'schedule_advance'
>;

/** What {@link SqlSchedules} borrows from its store. */
export interface SqlSchedulesHost {
  /** The store's open executor (opening the store on first use). */
  db: () => Promise<Executor>;
  sql: ScheduleStatements;
  /** The time statements read, `null` for the database's (`SqlContext.now`). */
  now: () => Date | null;
  /** Inserts jobs on `db` (inside the firing transaction), as `JobStore.enqueue` does. */
  enqueueOn: (db: Executor, jobs: readonly NewJob[]) => Promise<EnqueueResult[]>;
  /** Sends wake-ups for queues that received jobs, after the transaction committed. */
  wake: (queues: readonly string[]) => void;
}

/** The SQL {@link ScheduleStore}; tick times and the cursor follow the database clock. */
export class SqlSchedules implements ScheduleStore {
  /** @param host What the store lends: executor, statements, enqueue and wake-ups. */
  constructor(private readonly host: SqlSchedulesHost) {}

  /** {@inheritDoc ScheduleStore.save} */
  async save(name: string, definition: string): Promise<StoredSchedule> {
    const db = await this.host.db();
    await run.scheduleSave(db, this.host.sql, { name, definition, now: this.host.now() });
    const saved = await this.get(name);
    if (saved === null) throw new Error(`schedule ${name} vanished while it was saved`);
    return saved;
  }

  /** {@inheritDoc ScheduleStore.get} */
  async get(name: string): Promise<StoredSchedule | null> {
    const db = await this.host.db();
    const [row] = await run.scheduleList(db, this.host.sql, { name });
    return row === undefined ? null : scheduleOf(row);
  }

  /** {@inheritDoc ScheduleStore.list} */
  async list(): Promise<StoredSchedule[]> {
    const db = await this.host.db();
    return (await run.scheduleList(db, this.host.sql, { name: null })).map(scheduleOf);
  }

  /** {@inheritDoc ScheduleStore.setPaused} */
  async setPaused(name: string, paused: boolean): Promise<StoredSchedule | null> {
    const db = await this.host.db();
    const rows = await run.schedulePause(db, this.host.sql, {
      name,
      paused,
      now: this.host.now(),
    });
    return rows.length === 0 ? null : this.get(name);
  }

  /** {@inheritDoc ScheduleStore.remove} */
  async remove(name: string): Promise<boolean> {
    const db = await this.host.db();
    return (await run.scheduleRemove(db, this.host.sql, { name })).length > 0;
  }

  /** {@inheritDoc ScheduleStore.fire} */
  async fire(request: FireRequest): Promise<FireResult[]> {
    const { sql } = this.host;
    const queues: string[] = [];
    const db = await this.host.db();
    const results = await db.transaction(async (tx) => {
      const [lock] = await run.scheduleLock(tx, sql, { name: request.name, now: this.host.now() });
      if (lock === undefined) return request.ticks.map((): FireResult => 'gone');
      let cursor = toDate(lock.cursor_at).getTime();
      const now = toDate(lock.now).getTime();
      let busy = lock.busy;
      let lastJobId: string | null = null;
      const out: FireResult[] = [];
      for (const tick of request.ticks) {
        const at = tick.tickAt.getTime();
        if (!tick.manual && at <= cursor) {
          out.push('taken');
          continue;
        }
        if (!tick.manual && at > now) {
          out.push('early');
          continue;
        }
        const outcome: TickOutcome =
          tick.job === null
            ? 'failed'
            : request.overlap === 'skip' && busy
              ? 'skipped'
              : 'enqueued';
        const error = outcome === 'skipped' ? OVERLAP_SKIPPED : (tick.error ?? null);
        const jobId = outcome === 'enqueued' ? (tick.job?.id ?? null) : null;
        const inserted = await run.scheduleTickInsert(tx, sql, {
          schedule: request.name,
          tickAt: tick.tickAt,
          manual: tick.manual,
          outcome,
          jobId,
          error: outcome === 'enqueued' ? null : error,
          now: this.host.now(),
        });
        if (inserted.length === 0) {
          out.push('taken');
          continue;
        }
        if (!tick.manual) cursor = Math.max(cursor, at);
        if (outcome === 'enqueued' && tick.job !== null) {
          await this.host.enqueueOn(tx, [tick.job]);
          queues.push(tick.job.queue);
          lastJobId = tick.job.id;
          busy = true;
        }
        out.push(outcome);
      }
      // Never past the database's now: a later tick must still be able to fire.
      const advance = Math.max(cursor, Math.min(request.advanceTo?.getTime() ?? cursor, now));
      await run.scheduleAdvance(tx, sql, {
        name: request.name,
        cursor: new Date(advance),
        lastJobId,
      });
      return out;
    });
    if (queues.length > 0) this.host.wake([...new Set(queues)]);
    return results;
  }
}

/** A schedule row (of schedule_list) as a {@link StoredSchedule}. */
function scheduleOf(row: ScheduleListRow): StoredSchedule {
  return {
    name: row.name,
    definition: row.definition,
    paused: row.paused,
    cursorAt: toDate(row.cursor_at),
    anchorAt: toDate(row.anchor_at),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    lastTick: row.tick_at === null ? null : tickOf(row),
  };
}

/**
 * The schedule's latest tick, from a row whose tick_at is set. Converted, not read as typed: the
 * tick's columns come from a LEFT JOIN, NULL only when tick_at is.
 */
function tickOf(row: ScheduleListRow): ScheduleTick {
  return {
    tickAt: toDate(row.tick_at),
    firedAt: toDate(row.fired_at),
    manual: row.manual === true,
    outcome: toStr(row.outcome) as TickOutcome,
    jobId: row.job_id,
    error: row.error,
  };
}
