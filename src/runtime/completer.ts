import { logEvent } from '../observability/log-events.js';
import type { Logger } from '../observability/logger.js';
import type { ClaimedJob } from '../storage/model.js';
import type { HandoffRequest, Settlement, Store } from '../storage/store.js';
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
 * The worker side of a hand-off (see `Store.settleAndClaim`): a worker that keeps free slots for
 * the jobs a settle starts in the capped queues it frees.
 */
export interface HandoffTaker {
  /** Keeps free slots for the jobs `items` may free; `null` when it takes none now. */
  offer(items: readonly Settlement[]): HandoffRequest | null;
  /** Receives the jobs started for it (none when the write failed); frees the slots left over. */
  take(request: HandoffRequest, started: readonly ClaimedJob[]): void;
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
  private taker: HandoffTaker | undefined;

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

  /**
   * Hands the capped slots each batch frees to `taker` (`undefined`: to nobody; every process is
   * woken instead). Default: nobody.
   */
  useHandoff(taker: HandoffTaker | undefined): void {
    this.taker = taker;
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
      const applied = await this.withRetries(() => this.write(items));
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

  /** One write of a batch, with a hand-off when the taker has slots for one. */
  private async write(items: Settlement[]): Promise<boolean[]> {
    const taker = this.taker;
    const request = taker?.offer(items) ?? null;
    if (taker === undefined || request === null) return this.store.settle(items);
    let started: readonly ClaimedJob[] = [];
    try {
      const result = await this.store.settleAndClaim(items, request);
      started = result.started;
      return result.applied;
    } finally {
      taker.take(request, started);
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
