/** Returned by `run` in place of a result to fail that one item with `error`. */
export class ItemFailure {
  constructor(readonly error: unknown) {}
}

/** Options of a {@link Batcher}. */
export interface BatcherOptions<T, R> {
  /** Runs one batch; must return one result (or {@link ItemFailure}) per item, in order. */
  run(items: T[]): Promise<(R | ItemFailure)[]>;
  /** Largest batch handed to `run`. Default: `500`. */
  maxBatch?: number;
  /** Whether an item counts as unfinished work ({@link Batcher.unfinished}). Default: every item. */
  counts?: (item: T) => boolean;
}

/** An item with where its result goes (see {@link Batcher.push}). */
export interface Pending<T, R> {
  readonly item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/**
 * Gathers items added in quick succession into one call of `run` (one database round trip for many
 * jobs), and runs at most one batch at a time: items that arrive during a batch form the next one.
 */
export class Batcher<T, R> {
  private readonly run: (items: T[]) => Promise<(R | ItemFailure)[]>;
  private readonly maxBatch: number;
  private readonly counts: (item: T) => boolean;
  private queue: Pending<T, R>[] = [];
  /** Counted items in {@link queue}. */
  private queued = 0;
  private scheduled: NodeJS.Immediate | undefined;
  private running: Promise<void> | undefined;
  private inFlight = 0;
  private waiters: { most: number; resolve(): void }[] = [];

  constructor(options: BatcherOptions<T, R>) {
    this.run = (items) => options.run(items);
    this.maxBatch = options.maxBatch ?? 500;
    this.counts = options.counts ?? (() => true);
  }

  /** Counted items not yet done: waiting plus in the batch being run. */
  get unfinished(): number {
    return this.queued + this.inFlight;
  }

  /** Resolves once at most `most` items are unfinished (at once if that holds now). */
  whenAtMost(most: number): Promise<void> {
    if (this.unfinished <= most) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ most, resolve }));
  }

  /** Adds an item; resolves with its result once its batch ran. */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => this.push({ item, resolve, reject }));
  }

  /**
   * Adds an item that receives its result itself, once its batch ran: no promise and no
   * closures, for an item added once per job whose result few wait for.
   */
  push(pending: Pending<T, R>): void {
    this.queue.push(pending);
    if (this.counts(pending.item)) this.queued += 1;
    this.schedule();
  }

  /** Resolves once every item added so far has been run. */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.running) {
      if (this.running) await this.running;
      else this.flushNow();
    }
  }

  /**
   * Flushes at the end of this event-loop turn (setImmediate): everything added in the same turn
   * goes into one batch, at no added latency to speak of.
   */
  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = setImmediate(() => this.flushNow());
  }

  private flushNow(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.running || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight = batch.filter((p) => this.counts(p.item)).length;
    this.queued -= this.inFlight;
    this.running = this.execute(batch).finally(() => {
      this.running = undefined;
      this.inFlight = 0;
      this.wakeWaiters();
      if (this.queue.length > 0) this.schedule();
    });
  }

  private wakeWaiters(): void {
    const unfinished = this.unfinished;
    const ready = this.waiters.filter((w) => w.most >= unfinished);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.most < unfinished);
    for (const waiter of ready) waiter.resolve();
  }

  private async execute(batch: Pending<T, R>[]): Promise<void> {
    try {
      const results = await this.run(batch.map((p) => p.item));
      batch.forEach((p, i) => {
        const result = results[i];
        if (result instanceof ItemFailure) p.reject(result.error);
        else p.resolve(result as R);
      });
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }
}
