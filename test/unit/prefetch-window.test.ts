/**
 * The worker's local queue: a fixed prefetch stays as set; `auto` opens with the rate at which
 * runs finish (about 100 ms of work, at most 500 jobs) and closes again when they stop.
 */
import { describe, expect, it } from 'vitest';
import {
  AUTO_PREFETCH_HORIZON_MS,
  AUTO_PREFETCH_MAX,
  PrefetchWindow,
} from '../../src/runtime/prefetch-window.js';
import { FakeClock } from '../../src/util/clock.js';

/** Finishes `runs` runs evenly over `ms` on `clock`, asking for the size after each 5 ms. */
function finish(window: PrefetchWindow, clock: FakeClock, runs: number, ms: number): number {
  let size = window.size();
  const steps = ms / 5;
  let done = 0;
  for (let step = 1; step <= steps; step++) {
    for (; done < Math.floor((runs * step) / steps); done++) window.noteFinished();
    clock.advance(5);
    size = window.size();
  }
  return size;
}

describe('prefetch window', () => {
  it('keeps a fixed prefetch whatever the rate', () => {
    const clock = new FakeClock();
    const window = new PrefetchWindow(clock, 7);
    expect(finish(window, clock, 10_000, 100)).toBe(7);
  });

  it('opens to about 100 ms of work for short jobs, at most 500', () => {
    const clock = new FakeClock();
    const window = new PrefetchWindow(clock, 'auto');
    expect(window.size()).toBe(0); // nothing finished yet: the free slots only
    // 2 jobs per ms → 200 in 100 ms, reached within a few hundred ms of steady work.
    const size = finish(window, clock, 1000, 500);
    expect(size).toBeGreaterThan(150);
    expect(size).toBeLessThanOrEqual(2 * AUTO_PREFETCH_HORIZON_MS);
    expect(finish(window, clock, 100_000, 500)).toBe(AUTO_PREFETCH_MAX);
  });

  it('stays small for long jobs and forgets the rate after an idle spell', () => {
    const clock = new FakeClock();
    const window = new PrefetchWindow(clock, 'auto');
    expect(finish(window, clock, 32, 1000)).toBeLessThanOrEqual(4); // 32 jobs/s: ~3 per 100 ms
    finish(window, clock, 100_000, 500);
    clock.advance(60_000);
    expect(window.size()).toBe(0);
  });
});
