import { describe, expect, it } from 'vitest';
import { Slots } from '../../src/runtime/slots.js';
import { jitter, Wakeup } from '../../src/runtime/wakeup.js';
import { FakeClock, systemClock } from '../../src/util/clock.js';

/** Lets pending promise callbacks run (no timers involved). */
async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

/** Tracks whether a promise has settled. */
function track(promise: Promise<unknown>): { done: boolean } {
  const state = { done: false };
  void promise.then(() => {
    state.done = true;
  });
  return state;
}

describe('Slots', () => {
  it('hands out slots up to the capacity', () => {
    const slots = new Slots(2);
    expect(slots.capacity).toBe(2);
    expect(slots.free).toBe(2);
    expect(slots.tryAcquire()).toBe(true);
    expect(slots.tryAcquire()).toBe(true);
    expect(slots.tryAcquire()).toBe(false);
    expect(slots.inUse).toBe(2);
    expect(slots.free).toBe(0);
  });

  it('frees a slot on release', () => {
    const slots = new Slots(1);
    expect(slots.tryAcquire()).toBe(true);
    slots.release();
    expect(slots.inUse).toBe(0);
    expect(slots.free).toBe(1);
    expect(slots.tryAcquire()).toBe(true);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects size %d', (size) => {
    expect(() => new Slots(size)).toThrow(RangeError);
    expect(() => new Slots(1).resize(size)).toThrow(RangeError);
  });

  it('keeps the old size when a resize is rejected', () => {
    const slots = new Slots(3);
    expect(() => slots.resize(0)).toThrow(RangeError);
    expect(slots.capacity).toBe(3);
  });

  it('frees slots at once when resized up', () => {
    const slots = new Slots(1);
    slots.tryAcquire();
    expect(slots.tryAcquire()).toBe(false);
    slots.resize(3);
    expect(slots.capacity).toBe(3);
    expect(slots.free).toBe(2);
    expect(slots.tryAcquire()).toBe(true);
    expect(slots.tryAcquire()).toBe(true);
    expect(slots.tryAcquire()).toBe(false);
  });

  it('does not preempt running work when resized down', () => {
    const slots = new Slots(4);
    for (let i = 0; i < 4; i += 1) slots.tryAcquire();
    slots.resize(2);
    expect(slots.capacity).toBe(2);
    expect(slots.inUse).toBe(4);
    expect(slots.free).toBe(0);
    slots.release(); // 3 running, size 2
    expect(slots.free).toBe(0);
    expect(slots.tryAcquire()).toBe(false);
    slots.release(); // 2 running
    expect(slots.free).toBe(0);
    expect(slots.tryAcquire()).toBe(false);
    slots.release(); // 1 running
    expect(slots.free).toBe(1);
    expect(slots.tryAcquire()).toBe(true);
    expect(slots.tryAcquire()).toBe(false);
  });

  it('throws on release without a matching acquire', () => {
    const slots = new Slots(2);
    expect(() => slots.release()).toThrow(/without a matching acquire/);
    slots.tryAcquire();
    slots.release();
    expect(() => slots.release()).toThrow(Error);
    expect(slots.inUse).toBe(0);
  });

  it('idle resolves at once with nothing running', async () => {
    const slots = new Slots(2);
    const idle = track(slots.idle());
    await flushMicrotasks();
    expect(idle.done).toBe(true);
  });

  it('idle resolves only after the last release', async () => {
    const slots = new Slots(2);
    slots.tryAcquire();
    slots.tryAcquire();
    const idle = track(slots.idle());
    slots.release();
    await flushMicrotasks();
    expect(idle.done).toBe(false);
    slots.resize(5);
    await flushMicrotasks();
    expect(idle.done).toBe(false);
    slots.release();
    await flushMicrotasks();
    expect(idle.done).toBe(true);
  });
});

describe('Wakeup', () => {
  it('resolves true when notified during a wait, and cancels its timer', async () => {
    const clock = new FakeClock();
    const wakeup = new Wakeup(clock);
    const result = wakeup.wait(10_000);
    wakeup.notify();
    await expect(result).resolves.toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('resolves false when the time passes on its clock without a notify', async () => {
    const clock = new FakeClock();
    const wakeup = new Wakeup(clock);
    const result = track(wakeup.wait(1000));
    await clock.advanceAsync(999);
    expect(result.done).toBe(false);
    await clock.advanceAsync(1);
    expect(result.done).toBe(true);
    await expect(new Wakeup(systemClock).wait(5)).resolves.toBe(false);
  });

  it('remembers a notify made before the wait, once', async () => {
    const clock = new FakeClock();
    const wakeup = new Wakeup(clock);
    wakeup.notify();
    wakeup.notify();
    await expect(wakeup.wait(10_000)).resolves.toBe(true);
    const second = wakeup.wait(50);
    await clock.advanceAsync(50);
    await expect(second).resolves.toBe(false);
  });

  it('does not remember a notify that woke a waiter', async () => {
    const clock = new FakeClock();
    const wakeup = new Wakeup(clock);
    const first = wakeup.wait(1000);
    wakeup.notify();
    await expect(first).resolves.toBe(true);
    const second = wakeup.wait(100);
    await clock.advanceAsync(100);
    await expect(second).resolves.toBe(false);
  });

  it('a notify after a timed-out wait is remembered for the next wait', async () => {
    const clock = new FakeClock();
    const wakeup = new Wakeup(clock);
    const first = wakeup.wait(10);
    await clock.advanceAsync(10);
    await expect(first).resolves.toBe(false);
    wakeup.notify();
    await expect(wakeup.wait(10_000)).resolves.toBe(true);
  });
});

describe('jitter', () => {
  it('spans ms ± fraction using the injected random source', () => {
    expect(jitter(1000, 0.2, () => 0)).toBe(800);
    expect(jitter(1000, 0.2, () => 0.5)).toBe(1000);
    expect(jitter(1000, 0.2, () => 0.999_999)).toBe(1200);
    expect(jitter(1000, 0.1, () => 0.25)).toBe(950);
  });

  it('defaults to ±20 %', () => {
    expect(jitter(1000, undefined, () => 0)).toBe(800);
  });

  it('stays within ±fraction with the real random source', () => {
    for (let i = 0; i < 500; i += 1) {
      const value = jitter(5000, 0.2);
      expect(value).toBeGreaterThanOrEqual(4000);
      expect(value).toBeLessThanOrEqual(6000);
      expect(Number.isInteger(value)).toBe(true);
    }
  });

  it('never returns less than 1 ms', () => {
    expect(jitter(0, 0.2, () => 0.5)).toBe(1);
    expect(jitter(1, 0.9, () => 0)).toBe(1);
  });
});
