import type { Store } from '../storage/store.js';
import { logEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import type { RescueOptions } from '../storage/job-store.js';
import type { Clock } from '../util/clock.js';
import type { ChokaQEvents } from './events.js';
import { ReportingLoop } from './service.js';

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
export class Rescuer extends ReportingLoop {
  constructor(private readonly options: RescuerOptions) {
    super({
      intervalMs: options.intervalMs,
      firstDelayMs: Math.min(FIRST_PASS_MS, options.intervalMs),
      failure: { message: 'rescue pass failed', event: 'ZombieRescueCycleFailed', where: 'rescue' },
      events: options.events,
      logger: options.logger,
      clock: options.clock,
    });
  }

  /** Asks the store for one rescue and tells what it moved. */
  protected async pass(): Promise<void> {
    const { store, events, logger } = this.options;
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
  }
}
