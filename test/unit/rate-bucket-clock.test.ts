/**
 * A memory rate bucket is made and drawn from at one reading of the clock: with a clock that moves
 * on every reading, a new bucket still starts full (a later reading used to date the bucket after
 * the draw and take back a fraction of its first token).
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, memory } from '../../src/testing/index.js';

/** A fake clock that moves one millisecond forward each time it is read. */
class TickingClock extends FakeClock {
  override now(): number {
    const now = super.now();
    this.advance(1);
    return now;
  }
}

describe('memory rate bucket clock', () => {
  it('starts a new bucket full when the clock moves between readings', async () => {
    const rates = memory({ clock: new TickingClock() }).rateLimits;
    const hour = 3_600_000;
    expect(await rates.take({ name: 'api', limit: 3, perMs: hour, count: 3 })).toEqual({
      granted: 3,
      waitMs: 0,
    });
    await rates.block('quiet', 2, hour, 0);
    expect((await rates.take({ name: 'quiet', limit: 2, perMs: hour, count: 2 })).granted).toBe(2);
  });
});
