import type { Store } from '../storage/store.js';
import { logEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import type { ClaimedJob } from '../storage/model.js';
import type { HandoffRequest, Lease, Settlement } from '../storage/job-store.js';
import { Batcher, ItemFailure } from '../util/batcher.js';
import { sleep, type Clock } from '../util/clock.js';
import { StartRecord, type StartMark } from './start-record.js';

/** Options of a {@link Completer}. */
export interface CompleterOptions {
  store: Pick<Store, 'jobs'>;
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
 * The worker side of a hand-off (see `JobStore.settleAndClaim`): a worker that keeps free slots for
 * the jobs a settle starts in the capped queues it frees.
 */
export interface HandoffTaker {
  /** Keeps free slots for the jobs `items` may free; `null` when it takes none now. */
  offer(items: readonly Settlement[]): HandoffRequest | null;
  /** Receives the jobs started for it (none when the write failed); frees the slots left over. */
  take(request: HandoffRequest, started: readonly ClaimedJob[]): void;
}

/** What one settle round writes: settlements and start marks. */
type RoundItem = Settlement | StartMark;

/**
 * Settles finished runs in batches: one transaction moves many jobs, each still guarded by its own
 * lease. A failing batch is retried with back-off; if it keeps failing the items are tried one by
 * one, so a single bad item cannot block the others.
 *
 * Each round also records the starts of runs begun since the round before: a start whose run
 * succeeded in the same round is written with its archive (no statement of its own); the others
 * are written first (`JobStore.start`), then the settlements.
 */
export class Completer {
  private readonly batcher: Batcher<RoundItem, boolean>;
  private readonly store: Pick<Store, 'jobs'>;
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
      // Back-pressure counts settlements; a start mark is at most one per run in flight.
      counts: (item) => item.kind !== 'start',
    });
  }

  /** Settlements not written yet: waiting for their round or in the round being written. */
  get unsettled(): number {
    return this.batcher.unfinished;
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

  /**
   * Records that the run of a fetched job under `lease` began (fetched → processing, attempts + 1)
   * with the next round; the record aborts the run it watches when the lease was lost before. A
   * run that ends within the same round has its start written with its settlement.
   */
  recordStart(lease: Lease): StartRecord {
    const record = new StartRecord(lease, this.logger);
    this.batcher.push(record);
    return record;
  }

  /** Waits for every queued settlement. */
  drain(): Promise<void> {
    return this.batcher.drain();
  }

  private async settleBatch(items: RoundItem[]): Promise<(boolean | ItemFailure)[]> {
    const settlements = items.filter((item): item is Settlement => item.kind !== 'start');
    const archived = new Set(
      settlements.filter((s) => s.kind === 'archive').map((s) => s.lease.id),
    );
    // Starts whose run succeeded in this round go with the archive, which accepts fetched rows.
    const starts = items.filter(
      (item): item is StartMark => item.kind === 'start' && !archived.has(item.lease.id),
    );
    const started = await this.writeStarts(starts);
    const settled = await this.writeSettlements(settlements);
    const byId = new Map<string, boolean | ItemFailure>();
    settlements.forEach((s, i) => {
      if (!byId.has(s.lease.id)) byId.set(s.lease.id, settled[i] ?? false);
    });
    if (settlements.length > 0) this.onBatch?.(settlements.length);
    let next = 0;
    return items.map((item) => {
      if (item.kind !== 'start') return settled[next++] ?? false;
      return archived.has(item.lease.id)
        ? (byId.get(item.lease.id) ?? false)
        : (started.get(item.lease.id) ?? false);
    });
  }

  /** Writes start marks; by id, whether each lease was still held (a failed write: an error). */
  private async writeStarts(
    starts: readonly StartMark[],
  ): Promise<Map<string, boolean | ItemFailure>> {
    const out = new Map<string, boolean | ItemFailure>();
    if (starts.length === 0) return out;
    try {
      const rows = await this.withRetries(() => this.store.jobs.start(starts.map((s) => s.lease)));
      const ids = new Set(rows.map((row) => row.id));
      for (const start of starts) out.set(start.lease.id, ids.has(start.lease.id));
    } catch (error) {
      // The runs go on; their settlements are guarded by the lease as always, and rescue treats
      // an unrecorded start as a claim that never ran.
      for (const start of starts) out.set(start.lease.id, new ItemFailure(error));
    }
    return out;
  }

  private async writeSettlements(items: Settlement[]): Promise<(boolean | ItemFailure)[]> {
    if (items.length === 0) return [];
    try {
      return await this.withRetries(() => this.write(items));
    } catch (error) {
      if (items.length === 1) return [new ItemFailure(error)];
      this.logger.warn('batch settle failed; settling one by one', {
        ...logEvent('SettleBatchSplit'),
        size: items.length,
        error: String(error),
      });
      const results: (boolean | ItemFailure)[] = [];
      for (const item of items) {
        results.push(
          await this.store.jobs.settle([item]).then(
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
    if (taker === undefined || request === null) return this.store.jobs.settle(items);
    let started: readonly ClaimedJob[] = [];
    try {
      const result = await this.store.jobs.settleAndClaim(items, request);
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
