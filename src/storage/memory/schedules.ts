/**
 * Schedules of the memory provider: maps keyed by name and by (name, tick time), with the same
 * semantics as the SQL tables. Every method does its work synchronously before its promise
 * settles, so a fire is atomic with respect to every other call, like the SQL transaction.
 *
 * @internal Reach it through `memory().schedules`.
 */
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
import { atomically } from './state.js';

/** One schedule's row, with what the store keeps beside the public shape. */
interface ScheduleRow extends Omit<StoredSchedule, 'lastTick'> {
  lastJobId: string | null;
  /** Its ticks by tick time (ms). */
  ticks: Map<number, ScheduleTick>;
}

/** What {@link MemorySchedules} borrows from its store. */
export interface MemorySchedulesHost {
  /** The store clock's current time. */
  now: () => Date;
  /** Inserts a job as `JobStore.enqueue` does, synchronously, waking its queue. */
  enqueue: (job: NewJob) => void;
  /** Whether a job is in the hot table (pending, fetched or processing). */
  isHot: (id: string) => boolean;
}

/** The memory {@link ScheduleStore}: times follow the store's injected clock. */
export class MemorySchedules implements ScheduleStore {
  private readonly rows = new Map<string, ScheduleRow>();

  /** @param host What the store lends: its clock, enqueue and hot lookup. */
  constructor(private readonly host: MemorySchedulesHost) {}

  /** {@inheritDoc ScheduleStore.save} */
  save(name: string, definition: string): Promise<StoredSchedule> {
    return atomically(() => {
      const now = this.host.now();
      const row = this.rows.get(name);
      if (row === undefined) {
        this.rows.set(name, {
          name,
          definition,
          paused: false,
          cursorAt: now,
          anchorAt: now,
          createdAt: now,
          updatedAt: now,
          lastJobId: null,
          ticks: new Map(),
        });
      } else {
        row.definition = definition;
        row.updatedAt = now;
      }
      return this.copy(this.rows.get(name) as ScheduleRow);
    });
  }

  /** {@inheritDoc ScheduleStore.get} */
  get(name: string): Promise<StoredSchedule | null> {
    return atomically(() => {
      const row = this.rows.get(name);
      return row === undefined ? null : this.copy(row);
    });
  }

  /** {@inheritDoc ScheduleStore.list} */
  list(): Promise<StoredSchedule[]> {
    return atomically(() =>
      [...this.rows.values()]
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((row) => this.copy(row)),
    );
  }

  /** {@inheritDoc ScheduleStore.setPaused} */
  setPaused(name: string, paused: boolean): Promise<StoredSchedule | null> {
    return atomically(() => {
      const row = this.rows.get(name);
      if (row === undefined) return null;
      const now = this.host.now();
      row.paused = paused;
      if (!paused && row.cursorAt < now) row.cursorAt = now;
      row.updatedAt = now;
      return this.copy(row);
    });
  }

  /** {@inheritDoc ScheduleStore.remove} */
  remove(name: string): Promise<boolean> {
    return atomically(() => this.rows.delete(name));
  }

  /** {@inheritDoc ScheduleStore.fire} */
  fire(request: FireRequest): Promise<FireResult[]> {
    return atomically(() => {
      const row = this.rows.get(request.name);
      if (row === undefined) return request.ticks.map((): FireResult => 'gone');
      const now = this.host.now();
      let busy = row.lastJobId !== null && this.host.isHot(row.lastJobId);
      const out: FireResult[] = [];
      for (const tick of request.ticks) {
        const at = tick.tickAt.getTime();
        if (!tick.manual && at <= row.cursorAt.getTime()) {
          out.push('taken');
          continue;
        }
        if ((!tick.manual && at > now.getTime()) || row.ticks.has(at)) {
          out.push(row.ticks.has(at) ? 'taken' : 'early');
          continue;
        }
        const outcome: TickOutcome =
          tick.job === null
            ? 'failed'
            : request.overlap === 'skip' && busy
              ? 'skipped'
              : 'enqueued';
        if (outcome === 'enqueued' && tick.job !== null) {
          this.host.enqueue(tick.job);
          row.lastJobId = tick.job.id;
          busy = true;
        }
        row.ticks.set(at, {
          tickAt: new Date(at),
          firedAt: now,
          manual: tick.manual,
          outcome,
          jobId: outcome === 'enqueued' ? (tick.job?.id ?? null) : null,
          error:
            outcome === 'enqueued'
              ? null
              : outcome === 'skipped'
                ? OVERLAP_SKIPPED
                : (tick.error ?? null),
        });
        if (!tick.manual && at > row.cursorAt.getTime()) row.cursorAt = new Date(at);
        out.push(outcome);
      }
      const advance = Math.min(request.advanceTo?.getTime() ?? 0, now.getTime());
      if (advance > row.cursorAt.getTime()) row.cursorAt = new Date(advance);
      return out;
    });
  }

  /** Deletes up to `limit` ticks fired before `cutoff`, oldest first; resolves how many went. */
  purgeTicks(cutoff: Date, limit: number): number {
    const old = this.oldTicks(cutoff).slice(0, limit);
    for (const { row, at } of old) row.ticks.delete(at);
    return old.length;
  }

  /** How many ticks were fired before `cutoff`. */
  countTicks(cutoff: Date): number {
    return this.oldTicks(cutoff).length;
  }

  private oldTicks(cutoff: Date): { row: ScheduleRow; at: number; firedAt: number }[] {
    const old: { row: ScheduleRow; at: number; firedAt: number }[] = [];
    for (const row of this.rows.values()) {
      for (const [at, tick] of row.ticks) {
        if (tick.firedAt < cutoff) old.push({ row, at, firedAt: tick.firedAt.getTime() });
      }
    }
    return old.sort((a, b) => a.firedAt - b.firedAt);
  }

  /** The public copy of a row, with its latest tick. */
  private copy(row: ScheduleRow): StoredSchedule {
    let last: ScheduleTick | null = null;
    for (const tick of row.ticks.values())
      if (last === null || tick.tickAt > last.tickAt) last = tick;
    return {
      name: row.name,
      definition: row.definition,
      paused: row.paused,
      cursorAt: row.cursorAt,
      anchorAt: row.anchorAt,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      lastTick: last === null ? null : { ...last },
    };
  }
}
