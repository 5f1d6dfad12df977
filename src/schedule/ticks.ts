/**
 * When a schedule fires: its series of tick times (croner for cron expressions, arithmetic for
 * intervals) and the plan of one scheduler pass — which due ticks to fire under the missed-tick
 * policy, and how far the cursor moves. Pure functions of their inputs: no clock, no storage.
 *
 * Daylight saving (cron only; intervals count real time):
 * - a wall-clock time that occurs twice (clocks go back) fires once, at its first occurrence;
 * - a wall-clock time that does not occur (clocks go forward) fires, for an expression whose
 *   second, minute and hour fields have no wildcard or step (`30 2 * * *`, `0 2,14 * * *`), at the
 *   first wall-clock time after the gap (03:00 for 02:30 in Europe/Berlin); for other expressions
 *   (`*\/15 * * * *`, `0 * * * *`) the times in the gap are skipped.
 */
import { Cron } from 'croner';
import { wallClock, zoneOffsetMs } from './zone.js';

/** What to do with ticks that were due while no scheduler ran (or ran late). */
export type MissedPolicy = 'skip' | 'latest' | 'all';

/** The timing half of a schedule, checked (see `definition.ts`). */
export interface TickRule {
  /** A 5- or 6-field cron expression, or `null` for an interval. */
  cron: string | null;
  /** The interval in ms, or `null` for a cron expression. */
  everyMs: number | null;
  /** IANA zone the cron expression reads its wall-clock times in. */
  timeZone: string;
  missed: MissedPolicy;
  /** A tick found later than this is missed. */
  missedAfterMs: number;
  /** `missed: 'all'`: most missed ticks fired in one catch-up. */
  catchUpLimit: number;
  /** No tick after this time; `null`: no end. */
  endAt: Date | null;
}

/** Most ticks one pass fires for one schedule; the rest wait for the next pass. */
export const MAX_TICKS_PER_PASS = 1000;

/** A schedule's tick times. */
export interface TickSeries {
  /** The first tick strictly after `time`, or `null` when there is none. */
  after(time: Date): Date | null;
  /** Up to `count` latest ticks at or before `time`, latest first. */
  atOrBefore(time: Date, count: number): Date[];
}

/** The croner options every expression is read with. */
export function cronOptions(timeZone: string): ConstructorParameters<typeof Cron>[1] {
  return {
    timezone: timeZone,
    paused: true,
    mode: '5-or-6-parts',
    // Fixed-time for lists and ranges too (as Vixie cron): they run after a DST gap, once.
    fixedTimeRule: 'no-wildcard',
  };
}

/** Whether the wall-clock time of `tick` in `zone` already occurred earlier (clocks went back). */
export function isRepeatedWallTime(tick: Date, zone: string): boolean {
  if (zone === 'UTC') return false;
  const before = zoneOffsetMs(new Date(tick.getTime() - 6 * 3_600_000), zone);
  const offset = zoneOffsetMs(tick, zone);
  if (before <= offset) return false;
  const earlier = new Date(tick.getTime() - (before - offset));
  return wallClock(earlier, zone) === wallClock(tick, zone);
}

/** The series of a cron expression in a zone (the expression already checked). */
function cronSeries(pattern: string, zone: string, endAt: Date | null): TickSeries {
  const cron = new Cron(pattern, cronOptions(zone));
  const inRange = (tick: Date) => endAt === null || tick <= endAt;
  return {
    after(time) {
      // A repeated wall time is skipped; at most a handful follow each other.
      let from = time;
      for (let i = 0; i < 1000; i++) {
        const next = cron.nextRun(from);
        if (next === null || !inRange(next)) return null;
        if (!isRepeatedWallTime(next, zone)) return next;
        from = next;
      }
      return null;
    },
    atOrBefore(time, count) {
      const until = endAt !== null && endAt < time ? endAt : time;
      // previousRuns looks strictly before its reference; repeated wall times are dropped after.
      const found = cron.previousRuns(count + 4, new Date(until.getTime() + 1));
      return found.filter((tick) => !isRepeatedWallTime(tick, zone)).slice(0, count);
    },
  };
}

/** The series of an interval counted from `anchor` (ticks at anchor + k × every, k ≥ 1). */
function intervalSeries(everyMs: number, anchor: Date, endAt: Date | null): TickSeries {
  const start = anchor.getTime();
  const inRange = (ms: number) => endAt === null || ms <= endAt.getTime();
  return {
    after(time) {
      const k = Math.max(1, Math.floor((time.getTime() - start) / everyMs) + 1);
      const next = start + k * everyMs;
      return inRange(next) ? new Date(next) : null;
    },
    atOrBefore(time, count) {
      const until = endAt !== null && endAt < time ? endAt.getTime() : time.getTime();
      const out: Date[] = [];
      for (let k = Math.floor((until - start) / everyMs); k >= 1 && out.length < count; k--) {
        out.push(new Date(start + k * everyMs));
      }
      return out;
    },
  };
}

/** The tick series of a rule; `anchor` is where an interval counts from. */
export function tickSeries(rule: TickRule, anchor: Date): TickSeries {
  if (rule.cron !== null) return cronSeries(rule.cron, rule.timeZone, rule.endAt);
  return intervalSeries(rule.everyMs ?? 1000, anchor, rule.endAt);
}

/** The next `count` ticks strictly after `after`, earliest first. */
export function nextTicks(series: TickSeries, after: Date, count: number): Date[] {
  const out: Date[] = [];
  for (let next = series.after(after); next !== null && out.length < count;) {
    out.push(next);
    next = series.after(next);
  }
  return out;
}

/** What one scheduler pass does for one schedule. */
export interface TickPlan {
  /** Ticks to fire, earliest first. */
  fire: Date[];
  /** The latest due tick considered (fired or passed over): the new cursor; `null`: none due. */
  upTo: Date | null;
  /** Whether missed ticks were passed over without firing. */
  passedOver: boolean;
}

/**
 * The plan for ticks after `cursor` up to `now`: a tick no later than `missedAfterMs` before
 * `now` is on time and fires; earlier ones are missed and follow `rule.missed` — `skip` fires
 * none, `latest` fires the latest when no on-time tick fires, `all` fires the latest
 * `catchUpLimit`. At most {@link MAX_TICKS_PER_PASS} fire; the rest stay after the cursor.
 */
export function planTicks(rule: TickRule, series: TickSeries, cursor: Date, now: Date): TickPlan {
  const graceStart = new Date(now.getTime() - rule.missedAfterMs);
  const onTime: Date[] = [];
  const from = cursor > graceStart ? cursor : graceStart;
  for (let t = series.after(from); t !== null && t <= now; t = series.after(t)) {
    onTime.push(t);
    if (onTime.length >= MAX_TICKS_PER_PASS) break;
  }
  const first = cursor < graceStart ? series.after(cursor) : null;
  const hasMissed = first !== null && first <= graceStart;
  let missed: Date[] = [];
  if (hasMissed) {
    const want = rule.missed === 'all' ? rule.catchUpLimit : 1;
    missed = series
      .atOrBefore(graceStart, want)
      .filter((t) => t > cursor)
      .reverse();
  }
  const latestMissed = missed.at(-1) ?? null;
  let fire: Date[];
  if (rule.missed === 'all') fire = [...missed, ...onTime].slice(0, MAX_TICKS_PER_PASS);
  else if (rule.missed === 'latest' && onTime.length === 0 && latestMissed !== null)
    fire = [latestMissed];
  else fire = onTime;
  const upTo = fire.at(-1) ?? onTime.at(-1) ?? latestMissed ?? null;
  // Passed over: the earliest missed tick is not among those fired.
  const passedOver = hasMissed && !fire.some((t) => t.getTime() === first.getTime());
  return { fire, upTo, passedOver };
}
