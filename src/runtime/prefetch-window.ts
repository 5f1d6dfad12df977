import type { Clock } from '../util/clock.js';

/** Jobs a worker claims ahead of its free slots with `prefetch: 'auto'`, at most. */
export const AUTO_PREFETCH_MAX = 500;
/** With `prefetch: 'auto'`, claimed jobs wait for a slot about this long at most, in ms. */
export const AUTO_PREFETCH_HORIZON_MS = 100;
/** The finishing rate is measured over spans of at least this long, in ms. */
const SAMPLE_MS = 25;

/**
 * How many jobs a worker claims beyond its free slots (its local queue). A fixed number, or
 * (`auto`) as many as its slots finish in {@link AUTO_PREFETCH_HORIZON_MS} at the rate they have
 * been finishing, at most {@link AUTO_PREFETCH_MAX}: short jobs are claimed hundreds at a time,
 * long ones only for the free slots, so a process never holds work that others could start.
 */
export class PrefetchWindow {
  /** Smoothed jobs finished per ms. */
  private rate = 0;
  private finished = 0;
  private since: number;

  constructor(
    private readonly clock: Clock,
    private readonly fixed: number | 'auto',
  ) {
    this.since = clock.now();
  }

  /** Counts one finished run. */
  noteFinished(): void {
    this.finished += 1;
  }

  /** The jobs to claim beyond the free slots now. */
  size(): number {
    if (this.fixed !== 'auto') return this.fixed;
    const now = this.clock.now();
    const elapsed = now - this.since;
    if (elapsed >= SAMPLE_MS) {
      const sample = this.finished / elapsed;
      // A span weighs by its length against the horizon: a drain's window opens within a few
      // spans, and after a long idle span the old rate is forgotten.
      const weight = Math.min(1, elapsed / AUTO_PREFETCH_HORIZON_MS);
      this.rate += weight * (sample - this.rate);
      this.finished = 0;
      this.since = now;
    }
    return Math.min(AUTO_PREFETCH_MAX, Math.floor(this.rate * AUTO_PREFETCH_HORIZON_MS));
  }
}
