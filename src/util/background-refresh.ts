import type { Clock } from './clock.js';

/** Settings of a {@link BackgroundRefresh}. All required except `initial`. */
export interface BackgroundRefreshOptions<T> {
  /** Reads the value from its source (a database query, say). */
  read: () => Promise<T>;
  /** Age in ms after which the cached value is re-read, in the background. */
  maxAgeMs: number;
  /** Time source for the value's age. */
  clock: Clock;
  /**
   * Called with the error of a failed background read; the old value stays in use and the next
   * background read waits `maxAgeMs`.
   */
  onError: (error: unknown) => void;
  /**
   * A value to use (and {@link BackgroundRefresh.patch}) until the first read lands; it counts as
   * stale, so the first look starts a read.
   * @default undefined — nothing is cached until the first read lands
   */
  initial?: T;
}

/**
 * A slowly changing value kept in memory, re-read in the background once it is older than
 * `maxAgeMs`, so that callers answer from the cache and never wait for a re-read. A read that
 * started before a local change ({@link patch}, {@link invalidate}) never lands over it — neither
 * its value nor its failure. Reads run one at a time, except that a local change may start a new
 * read while an older one is still on its way.
 */
export class BackgroundRefresh<T> {
  private cached: { value: T; readAt: number } | undefined;
  /** Bumped by every local change; a read only lands if none happened since it started. */
  private generation = 0;
  private reading: { promise: Promise<T>; generation: number } | undefined;
  /** When the last background read failed; the next waits `maxAgeMs` from then. */
  private failedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: BackgroundRefreshOptions<T>) {
    if (options.initial !== undefined) {
      this.cached = { value: options.initial, readAt: Number.NEGATIVE_INFINITY };
    }
  }

  /**
   * The cached value, or `undefined` while there is none; starts a background read when the
   * value is missing or stale, unless a read is on its way or the last one failed less than
   * `maxAgeMs` ago.
   */
  peek(): T | undefined {
    this.refreshIfStale();
    return this.cached?.value;
  }

  /**
   * The cached value; waits for a read only when there is none (no `initial`, first use, or after
   * {@link invalidate}), and then rejects if that read fails. Otherwise like {@link peek}.
   */
  async get(): Promise<T> {
    if (this.cached === undefined) return this.read();
    this.refreshIfStale();
    return this.cached.value;
  }

  /** Changes the cached value locally at once (only the generation moves while there is none). */
  patch(change: (value: T) => T): void {
    this.generation += 1;
    if (this.cached) this.cached = { value: change(this.cached.value), readAt: this.cached.readAt };
  }

  /** Forgets the cached value: the next {@link get} waits for a fresh read. */
  invalidate(): void {
    this.generation += 1;
    this.cached = undefined;
  }

  private refreshIfStale(): void {
    if (this.reading?.generation === this.generation) return;
    const { clock, maxAgeMs, onError } = this.options;
    const now = clock.now();
    if (now - this.failedAt < maxAgeMs) return;
    if (this.cached && now - this.cached.readAt < maxAgeMs) return;
    const generation = this.generation;
    this.read().catch((error: unknown) => {
      if (generation !== this.generation) return; // superseded by a local change
      this.failedAt = clock.now();
      onError(error);
    });
  }

  /** Starts a read, or joins the one of the current generation. */
  private read(): Promise<T> {
    if (this.reading?.generation === this.generation) return this.reading.promise;
    const generation = this.generation;
    const readAt = this.options.clock.now();
    const promise = this.options.read().then((value) => {
      if (generation === this.generation) this.cached = { value, readAt };
      return value;
    });
    const reading = { promise, generation };
    this.reading = reading;
    const done = (): void => {
      if (this.reading === reading) this.reading = undefined;
    };
    promise.then(done, done);
    return promise;
  }
}
