import type { ChokaQEvents } from '../observability/events.js';
import type { Logger } from '../observability/logger.js';
import type { RescueOptions, RescueResult, Store } from '../storage/contract.js';
import { jitter } from './wakeup.js';

/** Settings of a {@link Rescuer}. */
export interface RescuerOptions {
  store: Store;
  /** Mean time between passes, in ms (±20 % jitter). */
  intervalMs: number;
  /** What a pass looks for (timeouts, zombie-retry opt-ins). */
  rescue: RescueOptions;
  events: ChokaQEvents;
  logger: Logger;
}

/**
 * The recovery loop: stale claims back to pending, zombies (expired heartbeats) to the DLQ or,
 * for opted-in types, back to pending, orphaned cancel requests to the DLQ, and expired
 * idempotency claims deleted. Every started
 * worker runs it; the store lets one process at a time do a pass, and every move is guarded, so
 * running it everywhere stays safe.
 */
export class Rescuer {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly options: RescuerOptions) {}

  /** Starts the loop; the first pass runs after a short jittered delay. */
  start(): void {
    this.stopped = false;
    this.schedule(Math.min(1000, this.options.intervalMs));
  }

  /** Stops the loop and waits for a pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.pass;
  }

  /** Runs one pass now and reports what moved. Errors are logged and rethrown. */
  async runOnce(): Promise<RescueResult> {
    const { store, events, logger } = this.options;
    try {
      const result = await store.rescue(this.options.rescue);
      if (result.released > 0) logger.info('released stale claims', { count: result.released });
      for (const job of result.dead) {
        logger.warn('zombie moved to the dead-letter queue', { ...job });
        events.emit('job:rescued', { ...job, outcome: 'dead' });
      }
      for (const job of result.retried) events.emit('job:rescued', { ...job, outcome: 'retried' });
      for (const job of result.cancelled)
        events.emit('job:rescued', { ...job, outcome: 'cancelled' });
      return result;
    } catch (error) {
      logger.warn('rescue pass failed', { error: String(error) });
      events.emit('worker:error', { where: 'rescue', error });
      throw error;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.pass = this.runOnce()
        .catch(() => undefined)
        .finally(() => this.schedule(jitter(this.options.intervalMs)));
    }, delayMs);
    this.timer.unref();
  }
}
