/**
 * The scheduler: every process that runs workers runs one. Each pass reads the schedules and the
 * store's clock, plans each schedule's due ticks (`ticks.ts`) and fires them through the store,
 * whose transaction lets each tick fire once however many schedulers race for it. Between passes
 * it sleeps until the earliest next tick, or at most `maxWaitMs` to see schedules other processes
 * added.
 */
import { logEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import type { ChokaQEvents } from '../runtime/events.js';
import { LoopService } from '../runtime/service.js';
import type { FireResult, StoredSchedule } from '../storage/schedules.js';
import type { Store } from '../storage/store.js';
import type { Clock } from '../util/clock.js';
import { specFromJson } from './definition.js';
import { firedEvent, tickToFire, type LocalSchedule } from './tick-job.js';
import { MAX_TICKS_PER_PASS, planTicks, tickSeries } from './ticks.js';

/** Options of a {@link Scheduler}. */
export interface SchedulerOptions {
  store: Store;
  /** Schedules this process defines, by name (payload functions and job definitions). */
  local: ReadonlyMap<string, LocalSchedule>;
  maxPayloadBytes: number;
  /** Where `schedule:fired` goes. */
  events: ChokaQEvents;
  logger: Logger;
  /** Waits between passes, and job ids. */
  clock: Clock;
  /** Jitter source. Default: `Math.random`. */
  random?: () => number;
  /** Longest sleep between passes, in ms. Default: `5000`. */
  maxWaitMs?: number;
}

/** What one pass fired, per schedule that had due ticks. */
export type PassReport = { name: string; results: FireResult[]; passedOver: boolean }[];

/** Shortest sleep between passes, in ms, so a clock gap between processes cannot spin. */
const MIN_WAIT_MS = 10;
/** Added to each sleep, so the store's clock has passed the tick when the pass runs. */
const LATE_MS = 5;

/** Fires due ticks of every schedule this process can fire. */
export class Scheduler {
  private readonly loop: LoopService;
  private readonly maxWaitMs: number;
  private waitMs: number;

  constructor(private readonly options: SchedulerOptions) {
    this.maxWaitMs = options.maxWaitMs ?? 5000;
    this.waitMs = this.maxWaitMs;
    this.loop = new LoopService({
      intervalMs: this.maxWaitMs,
      firstDelayMs: 0,
      nextDelayMs: () => this.waitMs,
      pass: async () => {
        await this.pass();
      },
      onError: (error) =>
        options.logger.warn('scheduler pass failed', {
          ...logEvent('SchedulerPassFailed'),
          error: String(error),
        }),
      clock: options.clock,
    });
  }

  /** Starts the loop (its first pass at once). Idempotent. */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for a pass in flight. Idempotent. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Runs a pass now when started (a schedule changed in this process). */
  wake(): void {
    if (this.loop.started) void this.loop.runNow();
  }

  /** Resolves when the next pass has finished (tests). */
  nextPass(): Promise<void> {
    return this.loop.nextPass();
  }

  /** One pass over every schedule; resolves to what it fired. */
  async pass(): Promise<PassReport> {
    const { store } = this.options;
    const schedules = await store.schedules.list();
    const now = await store.cluster.now();
    let wait = this.maxWaitMs;
    const report: PassReport = [];
    for (const row of schedules) {
      if (row.paused) continue;
      let fired: Awaited<ReturnType<Scheduler['fireDue']>> = null;
      try {
        fired = await this.fireDue(row, now);
      } catch (error) {
        // One schedule failing (a definition this version cannot read, a storage error) must
        // not keep the others from firing; the next pass tries it again.
        this.options.logger.warn('scheduler pass failed', {
          ...logEvent('SchedulerPassFailed'),
          schedule: row.name,
          error: String(error),
        });
      }
      if (fired !== null) report.push(fired.report);
      const next = fired?.next ?? null;
      if (next !== null) wait = Math.min(wait, next.getTime() - now.getTime() + LATE_MS);
    }
    this.waitMs = Math.max(MIN_WAIT_MS, wait);
    return report;
  }

  /** Fires one schedule's due ticks; `null` when this process cannot fire it. */
  private async fireDue(
    row: StoredSchedule,
    now: Date,
  ): Promise<{ report: PassReport[number]; next: Date | null } | null> {
    const { store, logger, clock } = this.options;
    const spec = specFromJson(row.name, row.definition);
    const local = this.options.local.get(row.name);
    // A function payload lives in the processes that define the schedule; others leave it.
    if (spec.payload === null && local?.payloadFn === undefined) return null;
    const series = tickSeries(spec, row.anchorAt);
    const plan = planTicks(spec, series, row.cursorAt, now);
    let results: FireResult[] = [];
    if (plan.upTo !== null) {
      const context = {
        maxPayloadBytes: this.options.maxPayloadBytes,
        nowMs: clock.now(),
        random: this.options.random ?? Math.random,
      };
      const ticks = await Promise.all(
        plan.fire.map((tick) => tickToFire(spec, local, tick, false, context)),
      );
      results = await store.schedules.fire({
        name: row.name,
        ticks,
        advanceTo: plan.upTo,
        overlap: spec.overlap,
      });
      ticks.forEach((tick, i) => {
        const result = results[i];
        if (result === 'enqueued' || result === 'skipped' || result === 'failed') {
          this.options.events.emit('schedule:fired', firedEvent(row.name, tick, result));
        }
        if (result === 'failed') {
          logger.warn('schedule tick failed', {
            ...logEvent('ScheduleTickFailed'),
            schedule: row.name,
            tick: tick.tickAt.toISOString(),
            error: tick.error,
          });
        }
      });
      if (plan.passedOver) {
        logger.info('missed schedule ticks passed over', {
          ...logEvent('ScheduleTicksMissed'),
          schedule: row.name,
          policy: spec.missed,
        });
      }
    }
    const more = plan.fire.length >= MAX_TICKS_PER_PASS;
    const latest = plan.upTo !== null && plan.upTo > now ? plan.upTo : now;
    return {
      report: { name: row.name, results, passedOver: plan.passedOver },
      next: more ? now : series.after(latest),
    };
  }
}
