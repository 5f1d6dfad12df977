import { logEvent, type LogEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import type { CancelTimer, Clock } from '../util/clock.js';
import type { ChokaQEvents } from './events.js';
import { jitter } from './wakeup.js';

/** Settings of a {@link LoopService}. */
export interface LoopServiceOptions {
  /** Mean time between passes, in ms (each wait jittered ±20 %). */
  intervalMs: number;
  /** Wait before the first pass, in ms. Default: one jittered interval. */
  firstDelayMs?: number;
  /**
   * The wait after each pass, in ms, asked when the pass ends (a loop that knows when its next
   * work is due). Default: one jittered interval.
   */
  nextDelayMs?: () => number;
  /** One pass. A throw is reported to `onError` and the loop goes on. */
  pass: () => Promise<void>;
  /** Called with the error of a failed pass. */
  onError: (error: unknown) => void;
  clock: Clock;
}

/**
 * One lifecycle for every background loop (heartbeats, recovery, and later retention and
 * schedules): `start()` schedules passes on the clock, one at a time; `stop()` is idempotent, safe
 * before `start()`, cancels the next pass and waits for the one in flight. Tests wait for a pass
 * with {@link LoopService.nextPass} instead of sleeping.
 */
export class LoopService {
  private cancelTimer: CancelTimer | undefined;
  private running: Promise<void> | undefined;
  private active = false;
  private passWaiters: (() => void)[] = [];

  constructor(private readonly options: LoopServiceOptions) {}

  /** Whether the loop is started and not stopped. */
  get started(): boolean {
    return this.active;
  }

  /** Starts the loop. Idempotent. */
  start(): void {
    if (this.active) return;
    this.active = true;
    this.schedule(this.options.firstDelayMs ?? jitter(this.options.intervalMs));
  }

  /** Stops the loop and waits for a pass in flight. Idempotent; safe before `start()`. */
  async stop(): Promise<void> {
    this.active = false;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    await this.running;
  }

  /**
   * Runs one pass now, after the one in flight (if any); resolves when it is done. Errors go to
   * `onError`, as for scheduled passes.
   */
  async runNow(): Promise<void> {
    while (this.running) await this.running;
    this.running = this.runPass();
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
  }

  /** Resolves when the next pass (scheduled or {@link runNow}) has finished. */
  nextPass(): Promise<void> {
    return new Promise((resolve) => this.passWaiters.push(resolve));
  }

  private async runPass(): Promise<void> {
    try {
      await this.options.pass();
    } catch (error) {
      this.options.onError(error);
    } finally {
      const waiters = this.passWaiters;
      this.passWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private schedule(delayMs: number): void {
    if (!this.active) return;
    this.cancelTimer = this.options.clock.schedule(() => {
      this.cancelTimer = undefined;
      void this.runNow().finally(() =>
        this.schedule(this.options.nextDelayMs?.() ?? jitter(this.options.intervalMs)),
      );
    }, delayMs);
  }
}

/** How a {@link ReportingLoop}'s failed pass is told: its log line and event, its place. */
export interface PassFailure {
  /** The warning's message, e.g. `'rescue pass failed'`. */
  message: string;
  /** The warning's stable log event. */
  event: LogEvent;
  /** `where` of the `worker:error` event it emits. */
  where: string;
}

/** Settings of a {@link ReportingLoop}: a {@link LoopService}'s timing, and where failures go. */
export interface ReportingLoopOptions extends Omit<LoopServiceOptions, 'pass' | 'onError'> {
  /** How a failed pass is logged and reported. */
  failure: PassFailure;
  /** Where `worker:error` is emitted. */
  events: ChokaQEvents;
  /** Where the warning goes. */
  logger: Logger;
}

/**
 * A background loop whose failed pass is logged as a warning and emitted as `worker:error`, after
 * which the loop goes on: the rescuer, the promoter and the resolver.
 */
export abstract class ReportingLoop {
  private readonly loop: LoopService;

  protected constructor(options: ReportingLoopOptions) {
    const { failure, logger, events, ...timing } = options;
    this.loop = new LoopService({
      ...timing,
      pass: () => this.pass(),
      onError: (error) => {
        logger.warn(failure.message, { ...logEvent(failure.event), error: String(error) });
        events.emit('worker:error', { where: failure.where, error });
      },
    });
  }

  /** Starts the loop. Idempotent. */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for a pass in flight. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass. */
  protected abstract pass(): Promise<void>;
}
