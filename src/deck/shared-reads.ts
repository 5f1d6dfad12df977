/**
 * Answers shared by every open tab for one feed interval. A panel re-reads its view when the live
 * feed ticks, and marks that read as live; live reads of the same view within one interval (ten
 * open overviews, the same DLQ page in two browsers) cost one storage read, not one per tab. A
 * read the user asked for (opening a view, paging) is never shared, and a change made through
 * this Deck forgets every shared answer, so its effect shows at once.
 */

/** The request header that marks a live re-read. */
export const LIVE_READ_HEADER = 'x-chokaq-live';

/** Most views kept at once; past it, the oldest goes. */
const MAX_VIEWS = 200;

interface Shared {
  at: number;
  answer: Promise<unknown>;
}

/** Shared answers of live reads, by view. */
export class SharedReads {
  private readonly views = new Map<string, Shared>();

  /**
   * @param ttlMs How long an answer is shared: the feed's interval.
   * @param now The clock, in ms. Default: `Date.now`.
   */
  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The shared answer of `view` if one was read (or is being read) less than the interval ago,
   * else `read()`'s, shared from now on. A failed read is not shared: the next one tries again.
   */
  read(view: string, read: () => Promise<unknown>): Promise<unknown> {
    const now = this.now();
    const shared = this.views.get(view);
    if (shared !== undefined && now - shared.at < this.ttlMs) return shared.answer;
    const answer = read();
    this.views.delete(view); // re-inserted last, so the map stays in age order
    this.views.set(view, { at: now, answer });
    answer.catch(() => {
      if (this.views.get(view)?.answer === answer) this.views.delete(view);
    });
    if (this.views.size > MAX_VIEWS) {
      const oldest = this.views.keys().next().value;
      if (oldest !== undefined) this.views.delete(oldest);
    }
    return answer;
  }

  /** Forgets every shared answer (after a change). */
  forget(): void {
    this.views.clear();
  }
}
