import { describe, expect, it } from 'vitest';
import { RunTimeouts, type TimedRun } from '../../src/runtime/run-timeouts.js';
import { FakeClock } from '../../src/util/clock.js';

/** Runs in progress, as the executor keeps them, with a log of their timeouts. */
function setUp() {
  const clock = new FakeClock(0);
  let armed = 0;
  const counting = {
    now: () => clock.now(),
    schedule: (callback: () => void, ms: number) => {
      armed += 1;
      return clock.schedule(callback, ms);
    },
  };
  const inProgress = new Set<TimedRun>();
  const timeouts = new RunTimeouts(counting, () => inProgress);
  const log: string[] = [];
  const start = (name: string, timeoutMs: number): TimedRun => {
    const run = {
      deadlineMs: clock.now() + timeoutMs,
      timedOut: () => {
        run.deadlineMs = Infinity;
        log.push(`${name}@${clock.now()}`);
      },
    };
    inProgress.add(run);
    timeouts.add(run);
    return run;
  };
  const end = (run: TimedRun): void => {
    inProgress.delete(run);
  };
  return { clock, timeouts, log, start, end, armed: () => armed };
}

describe('run timeouts', () => {
  it('times each run out at its own deadline, on one timer, whatever order they came in', () => {
    const { clock, log, start } = setUp();
    start('a', 300);
    clock.advance(50);
    start('b', 100);
    start('c', 400);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(99);
    expect(log).toEqual([]);
    clock.advance(1);
    expect(log).toEqual(['b@150']);
    clock.advance(1000);
    expect(log).toEqual(['b@150', 'a@300', 'c@450']);
  });

  it('never times out a run that ended first; a timer that finds no run stops', () => {
    const { clock, log, start, end } = setUp();
    const first = start('first', 100);
    const second = start('second', 200);
    end(first);
    clock.advance(150);
    expect(log).toEqual([]);
    expect(clock.pendingTimers).toBe(1);
    end(second);
    clock.advance(1000);
    expect(log).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('arms once for runs that each end before the next starts', () => {
    const { clock, log, start, end, armed } = setUp();
    for (let i = 0; i < 50; i++) {
      end(start(`run${i}`, 100));
      clock.advance(1);
    }
    expect(armed()).toBe(1);
    start('last', 100);
    clock.advance(50);
    // The timer armed for the first run's deadline found only `last`, and armed for it.
    expect(armed()).toBe(2);
    expect(log).toEqual([]);
    clock.advance(50);
    expect(log).toEqual(['last@150']);
  });

  it('stops on clear, and arms again for a run added after', () => {
    const { clock, log, start, end, timeouts } = setUp();
    end(start('before', 100));
    timeouts.clear();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(200);
    expect(log).toEqual([]);
    start('after', 50);
    clock.advance(50);
    expect(log).toEqual(['after@250']);
  });

  it('times a run out once, stops while only runs it timed out are left, and arms again for the next', () => {
    const { clock, log, start } = setUp();
    start('stuck', 100);
    clock.advance(100);
    expect(log).toEqual(['stuck@100']);
    expect(clock.pendingTimers).toBe(0);
    start('next', 50);
    clock.advance(50);
    expect(log).toEqual(['stuck@100', 'next@150']);
  });
});
