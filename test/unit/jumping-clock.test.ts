/** The test helper the engine suites move time with: jumps fire the timers they pass. */
import { describe, expect, it } from 'vitest';
import { JumpingClock } from '../helpers/jumping-clock.js';
import { sleep } from '../helpers/wait.js';

describe('JumpingClock', () => {
  it('moves now() by a jump and fires, in due order, only the timers the jump passed', () => {
    const clock = new JumpingClock();
    const fired: string[] = [];
    const before = clock.now();
    clock.schedule(() => fired.push(`b at ${clock.now() - before >= 5000}`), 5000);
    clock.schedule(() => fired.push('a'), 1000);
    clock.schedule(() => fired.push('later'), 60_000);
    const cancel = clock.schedule(() => fired.push('cancelled'), 2000);
    cancel();
    clock.jump(10_000);
    expect(clock.now() - before).toBeGreaterThanOrEqual(10_000);
    expect(fired).toEqual(['a', 'b at true']);
  });

  it('still fires timers on real time, once', async () => {
    const clock = new JumpingClock();
    let fired = 0;
    clock.schedule(() => fired++, 5);
    await sleep(30);
    clock.jump(1000);
    expect(fired).toBe(1);
  });

  it('glides in steps: a 100 ms ticker keeps ticking and is never late by a stall', async () => {
    const clock = new JumpingClock();
    let worstLate = 0;
    let ticks = 0;
    let stopped = false;
    const arm = (): void => {
      const expected = clock.now() + 100;
      clock.schedule(() => {
        worstLate = Math.max(worstLate, clock.now() - expected);
        ticks++;
        if (!stopped) arm();
      }, 100);
    };
    arm();
    await clock.glide(2000);
    stopped = true;
    // Each tick comes up to a step (40 ms) late and re-arms from there: every 140 ms at worst.
    expect(ticks).toBeGreaterThanOrEqual(14);
    // A step is 40 ms; the rest is real time between steps, generous for a loaded machine.
    expect(worstLate).toBeLessThan(200);
  });
});
