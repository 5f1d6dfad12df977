import type { Store } from '../storage/store.js';
import { logEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import type { Clock } from '../util/clock.js';
import type { ChokaQEvents } from './events.js';
import { ReportingLoop } from './service.js';
import { jitter } from './wakeup.js';

/** Most jobs one promoter pass moves (one statement); a full pass is followed by another at once. */
export const PROMOTE_BATCH = 1000;

/**
 * Shortest wait after a pass that was not full, in ms: a due job it left was held by another
 * transaction (another promoter's pass, an operator's edit), which ends within a few ms.
 */
const MIN_WAIT_MS = 10;

/** Settings of a {@link Promoter}. */
export interface PromoterOptions {
  store: Pick<Store, 'jobs'>;
  /**
   * Longest wait between passes, in ms (±20 % jitter): the bound on how late a scheduled job
   * becomes claimable when this process has not seen it yet. The engine passes `pollInterval`.
   */
  intervalMs: number;
  /** Most jobs a pass moves. Default: {@link PROMOTE_BATCH}. */
  batchSize?: number;
  events: ChokaQEvents;
  logger: Logger;
  clock: Clock;
}

/**
 * The promotion loop: scheduled jobs whose due time came move to pending, where claims find them
 * (the fetch indexes hold pending jobs only, so claims never step over jobs due later). Every
 * started worker process runs it; each pass is one statement that locks the due rows with
 * `SKIP LOCKED`, so promoters of several processes share the work and hold no lock between
 * passes. After a pass it sleeps until the next scheduled job is due (the pass reads when), at
 * most one jittered interval (a job another process scheduled sooner is seen by then), and not
 * at all when the pass moved a full batch. The store wakes the workers of the queues that got
 * jobs, in every process, as after an enqueue.
 */
export class Promoter extends ReportingLoop {
  private readonly batchSize: number;
  /** The wait the last pass asked for; `null` (after a failure): one jittered interval. */
  private nextDelayMs: number | null = null;

  constructor(private readonly options: PromoterOptions) {
    super({
      intervalMs: options.intervalMs,
      firstDelayMs: 0,
      nextDelayMs: () => this.nextDelayMs ?? jitter(options.intervalMs),
      failure: { message: 'promotion pass failed', event: 'PromotionFailed', where: 'promote' },
      events: options.events,
      logger: options.logger,
      clock: options.clock,
    });
    this.batchSize = options.batchSize ?? PROMOTE_BATCH;
  }

  /** Promotes one batch and sets the wait before the next pass. */
  protected async pass(): Promise<void> {
    const { store, logger, intervalMs } = this.options;
    this.nextDelayMs = null;
    const result = await store.jobs.promote(this.batchSize);
    const moved = result.promoted.reduce((sum, p) => sum + p.count, 0);
    if (moved > 0)
      logger.debug('scheduled jobs promoted', { ...logEvent('JobsPromoted'), count: moved });
    const interval = jitter(intervalMs);
    this.nextDelayMs =
      moved >= this.batchSize
        ? 0
        : result.nextDueInMs === null
          ? interval
          : Math.max(MIN_WAIT_MS, Math.min(interval, result.nextDueInMs));
  }
}
