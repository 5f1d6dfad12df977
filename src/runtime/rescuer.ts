import type { Store } from '../storage/store.js';
import { logEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import type { RescueOptions, RescueResult } from '../storage/job-store.js';
import type { Clock } from '../util/clock.js';
import type { ChokaQEvents } from './events.js';
import { LoopService } from './service.js';

/** Settings of a {@link Rescuer}. */
export interface RescuerOptions {
  store: Pick<Store, 'jobs'>;
  /** Mean time between passes, in ms (±20 % jitter). */
  intervalMs: number;
  /** What a pass looks for (timeouts, zombie-retry opt-ins). */
  rescue: RescueOptions;
  events: ChokaQEvents;
  logger: Logger;
  clock: Clock;
}

/** Delay of the first pass after start, in ms (capped by the interval). */
const FIRST_PASS_MS = 1000;

/**
 * The recovery loop: stale claims back to pending, zombies (expired heartbeats) to the DLQ or,
 * for opted-in types, back to pending, orphaned cancel requests to the DLQ, and expired
 * idempotency claims deleted. Every started worker runs it; the store lets one process at a time
 * do a pass, and every move is guarded, so running it everywhere stays safe.
 */
export class Rescuer {
  private readonly loop: LoopService;

  constructor(private readonly options: RescuerOptions) {
    this.loop = new LoopService({
      intervalMs: options.intervalMs,
      firstDelayMs: Math.min(FIRST_PASS_MS, options.intervalMs),
      pass: async () => {
        await this.runOnce();
      },
      onError: () => undefined, // runOnce() logs and reports its own failures
      clock: options.clock,
    });
  }

  /** Starts the loop; the first pass runs after a short delay. */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for a pass in flight. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Runs one pass now and reports what moved. Errors are logged and rethrown. */
  async runOnce(): Promise<RescueResult> {
    const { store, events, logger } = this.options;
    try {
      const result = await store.jobs.rescue(this.options.rescue);
      if (result.released > 0)
        logger.info('released stale claims', {
          ...logEvent('AbandonedJobsRecovered'),
          count: result.released,
        });
      for (const job of result.dead) {
        logger.warn('zombie moved to the dead-letter queue', {
          ...logEvent('ZombieJobsArchived'),
          ...job,
        });
        events.emit('job:rescued', { ...job, outcome: 'dead' });
      }
      for (const job of result.retried) events.emit('job:rescued', { ...job, outcome: 'retried' });
      for (const job of result.cancelled)
        events.emit('job:rescued', { ...job, outcome: 'cancelled' });
      return result;
    } catch (error) {
      logger.warn('rescue pass failed', {
        ...logEvent('ZombieRescueCycleFailed'),
        error: String(error),
      });
      events.emit('worker:error', { where: 'rescue', error });
      throw error;
    }
  }
}
