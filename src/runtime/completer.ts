import { logEvent } from '../observability/log-events.js';
import type { Logger } from '../observability/logger.js';
import type { Settlement, Store } from '../storage/store.js';
import { Batcher, ItemFailure } from '../util/batcher.js';
import { sleep, type Clock } from '../util/clock.js';

/** Options of a {@link Completer}. */
export interface CompleterOptions {
  store: Store;
  logger: Logger;
  clock: Clock;
  /** Most settlements per transaction. Default: `500`. */
  maxBatch?: number;
  /** Attempts per batch when the storage fails, with doubling back-off from 200 ms. Default: `5`. */
  attempts?: number;
  /** Told the size of every batch written (metrics). Default: none. */
  onBatch?: (size: number) => void;
}

/**
 * Settles finished runs in batches: one transaction moves many jobs, each still guarded by its own
 * lease. A failing batch is retried with back-off; if it keeps failing the items are tried one by
 * one, so a single bad item cannot block the others.
 */
export class Completer {
  private readonly batcher: Batcher<Settlement, boolean>;
  private readonly store: Store;
  private readonly logger: Logger;
  private readonly attempts: number;
  private readonly clock: Clock;
  private readonly onBatch: ((size: number) => void) | undefined;

  constructor(options: CompleterOptions) {
    this.onBatch = options.onBatch;
    this.store = options.store;
    this.logger = options.logger;
    this.attempts = options.attempts ?? 5;
    this.clock = options.clock;
    this.batcher = new Batcher({
      run: (items) => this.settleBatch(items),
      maxBatch: options.maxBatch ?? 500,
    });
  }

  /**
   * Resolves once at most `most` settlements are unwritten (waiting for their batch or in the one
   * being written).
   */
  whenUnsettledAtMost(most: number): Promise<void> {
    return this.batcher.whenAtMost(most);
  }

  /** Queues a settlement; resolves `true` if it applied, `false` on a lease conflict. */
  settle(settlement: Settlement): Promise<boolean> {
    return this.batcher.add(settlement);
  }

  /** Waits for every queued settlement. */
  drain(): Promise<void> {
    return this.batcher.drain();
  }

  private async settleBatch(items: Settlement[]): Promise<(boolean | ItemFailure)[]> {
    try {
      const applied = await this.withRetries(() => this.store.settle(items));
      this.onBatch?.(items.length);
      return applied;
    } catch (error) {
      if (items.length === 1) throw error;
      this.logger.warn('batch settle failed; settling one by one', {
        ...logEvent('SettleBatchSplit'),
        size: items.length,
        error: String(error),
      });
      const results: (boolean | ItemFailure)[] = [];
      for (const item of items) {
        results.push(
          await this.store.settle([item]).then(
            (r) => r[0] ?? false,
            (itemError: unknown) => new ItemFailure(itemError),
          ),
        );
      }
      return results;
    }
  }

  private async withRetries<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (attempt >= this.attempts) throw error;
        const delay = 200 * 2 ** (attempt - 1);
        this.logger.warn('settle failed; retrying', {
          ...logEvent('SettleRetried'),
          attempt,
          delayMs: delay,
          error: String(error),
        });
        await sleep(this.clock, delay);
      }
    }
  }
}
