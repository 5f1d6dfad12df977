import type { Logger } from '../observability/logging/logger.js';
import type { Store } from '../storage/store.js';
import type { Clock } from '../util/clock.js';
import type { ChokaQEvents } from './events.js';
import { ReportingLoop } from './service.js';

/** Most awaiting jobs one page of a pass decides (one transaction). */
export const RESOLVE_PAGE = 500;
/** Most pages one pass walks (a quarter of a million jobs at the default page size). */
const MAX_PAGES = 500;

/** Settings of a {@link Resolver}. */
export interface ResolverOptions {
  store: Pick<Store, 'workflows'>;
  /** Mean time between passes, in ms (±20 % jitter). The engine passes `rescueInterval`. */
  intervalMs: number;
  /** Most jobs a page decides. Default: {@link RESOLVE_PAGE}. */
  pageSize?: number;
  events: ChokaQEvents;
  logger: Logger;
  clock: Clock;
}

/**
 * The resolver's safety net: a job that waits for others is decided by the call that moved its
 * last dependency out of the hot table (a settle, a rescue, a cancel), after that call
 * committed. A process that died in between leaves the waiting job undecided; this loop walks
 * every awaiting job, a page after another, and decides it from where its dependencies are.
 * Every started worker runs it, as the rescue loop, at the same interval; the store's row locks
 * make concurrent passes decide each job once.
 */
export class Resolver extends ReportingLoop {
  private readonly pageSize: number;

  constructor(private readonly options: ResolverOptions) {
    super({
      intervalMs: options.intervalMs,
      firstDelayMs: options.intervalMs,
      failure: { message: 'resolver pass failed', event: 'ResolverPassFailed', where: 'resolve' },
      events: options.events,
      logger: options.logger,
      clock: options.clock,
    });
    this.pageSize = options.pageSize ?? RESOLVE_PAGE;
  }

  /** One whole pass: every awaiting job, a page after another. */
  protected async pass(): Promise<void> {
    let after: string | null = null;
    for (let page = 0; page < MAX_PAGES && (page === 0 || after !== null); page++) {
      const result = await this.options.store.workflows.resolve({ after, limit: this.pageSize });
      after = result.next;
    }
  }
}
