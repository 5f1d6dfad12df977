/**
 * The grace period of an aborted run on a fake clock: a run's outcome is its work's unless the
 * period started and ran out first; no timer is set before anyone waits, none survives clear().
 */
import { describe, expect, it } from 'vitest';
import { GraceTimer } from '../../src/runtime/grace-timer.js';
import { FakeClock } from '../../src/util/clock.js';

const GRACE_MS = 1_000;

describe('GraceTimer', () => {
  it("gives the work's value or error when it ends before the period runs out", async () => {
    const clock = new FakeClock();
    const ok = new GraceTimer(clock, GRACE_MS);
    await expect(ok.outcome(Promise.resolve(7))).resolves.toEqual({ done: true, value: 7 });
    const failed = new GraceTimer(clock, GRACE_MS);
    failed.start();
    const error = new Error('handler failed');
    await expect(failed.outcome(Promise.reject(error))).resolves.toEqual({ done: true, error });
    const undefinedThrow = new GraceTimer(clock, GRACE_MS);
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a handler can throw undefined
    const result = await undefinedThrow.outcome(Promise.reject(undefined));
    expect(result).toMatchObject({ done: true, error: new Error('handler threw undefined') });
  });

  it('gives { done: false } once a started period runs out, whether it started before or after', async () => {
    const clock = new FakeClock();
    const never = new Promise<never>(() => undefined);
    const early = new GraceTimer(clock, GRACE_MS);
    early.start(); // an abort before the handler was even called
    const late = new GraceTimer(clock, GRACE_MS);
    const earlyOutcome = early.outcome(never);
    const lateOutcome = late.outcome(never);
    late.start();
    let settled = 0;
    void earlyOutcome.then(() => (settled += 1));
    void lateOutcome.then(() => (settled += 1));
    await clock.advanceAsync(GRACE_MS - 1);
    expect(settled).toBe(0);
    await clock.advanceAsync(1);
    await expect(earlyOutcome).resolves.toEqual({ done: false });
    await expect(lateOutcome).resolves.toEqual({ done: false });
  });

  it('sets no timer until the period starts, and none after clear()', () => {
    const clock = new FakeClock();
    const never = new Promise<never>(() => undefined);
    const idle = new GraceTimer(clock, GRACE_MS);
    void idle.outcome(never);
    expect(clock.pendingTimers).toBe(0);
    idle.start();
    expect(clock.pendingTimers).toBe(1);
    idle.clear();
    expect(clock.pendingTimers).toBe(0);
    idle.start();
    expect(clock.pendingTimers).toBe(0);
  });

  it('resolves every race on expired for a batch, made only when read', async () => {
    const clock = new FakeClock();
    const grace = new GraceTimer(clock, GRACE_MS);
    grace.start();
    expect(clock.pendingTimers).toBe(0);
    const races = [1, 2].map(() => Promise.race([new Promise(() => undefined), grace.expired]));
    expect(clock.pendingTimers).toBe(1);
    await clock.advanceAsync(GRACE_MS);
    await expect(Promise.all(races)).resolves.toEqual([{ done: false }, { done: false }]);
  });
});
