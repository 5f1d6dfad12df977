import type { CancelTimer, Clock } from '../util/clock.js';

/**
 * A wake-up hint for a sleeping loop: `wait(ms)` resolves on the next `notify()` or after `ms` on
 * the clock, whichever comes first. A notify while nobody waits is remembered once.
 */
export class Wakeup {
  private pending = false;
  private waiter: (() => void) | undefined;

  constructor(private readonly clock: Clock) {}

  /** Wakes the waiting loop, or the next one to wait. */
  notify(): void {
    if (this.waiter) {
      const wake = this.waiter;
      this.waiter = undefined;
      wake();
    } else {
      this.pending = true;
    }
  }

  /** Resolves `true` when notified, `false` when `ms` passed. */
  wait(ms: number): Promise<boolean> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const cancel: CancelTimer = this.clock.schedule(() => {
        this.waiter = undefined;
        resolve(false);
      }, ms);
      this.waiter = () => {
        cancel();
        resolve(true);
      };
    });
  }
}

/** `ms` ± `fraction` at random, so many processes do not poll in lockstep. Default fraction: 0.2. */
export function jitter(ms: number, fraction = 0.2, random: () => number = Math.random): number {
  return Math.max(1, Math.round(ms * (1 - fraction + 2 * fraction * random())));
}
