import { hasMethods, invalid } from './check.js';

/** Cancels a timer made by {@link Clock.schedule}; calling it again does nothing. */
export type CancelTimer = () => void;

/**
 * Source of the current time and of timers; inject a {@link FakeClock} in tests. Every wait
 * ChokaQ makes in process (polls, heartbeats, recovery passes, timeouts, grace periods) goes
 * through `schedule`, so a fake clock moves them all.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Calls `callback` once, `ms` from now (at most 2^31 − 1 ms). A pending timer does not keep
   * the process alive.
   */
  schedule(callback: () => void, ms: number): CancelTimer;
}

/** The real wall clock and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  schedule(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Resolves after `ms` on `clock`, or at once when `signal` is aborted. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.schedule(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

interface FakeTimer {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * A clock that only moves when told to; for tests of time-dependent logic. Its timers fire
 * during {@link FakeClock.advance}, in time order, each seeing `now()` at its own due time.
 */
export class FakeClock implements Clock {
  private current: number;
  private timers: FakeTimer[] = [];
  private seq = 0;

  /** @param start Initial time in ms since the epoch. Default: 2026-01-01T00:00:00Z. */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  schedule(callback: () => void, ms: number): CancelTimer {
    const timer: FakeTimer = { at: this.current + Math.max(0, ms), seq: this.seq++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Timers waiting to fire. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /**
   * Moves the clock forward by `ms`, firing every timer that falls due on the way (also timers
   * that those callbacks schedule within the window).
   */
  advance(ms: number): void {
    const target = this.current + ms;
    while (this.fireNext(target));
    this.current = target;
  }

  /**
   * Like {@link advance}, but lets promise callbacks run after each timer fires, so async work a
   * timer starts (a poll, a heartbeat) gets going before the clock moves on.
   */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.current + ms;
    do await settle();
    while (this.fireNext(target));
    this.current = target;
    await settle();
  }

  /** Fires the earliest timer due by `target`, moving the clock to it; `false` when none is. */
  private fireNext(target: number): boolean {
    const next = this.nextDue(target);
    if (next === undefined) return false;
    this.timers = this.timers.filter((t) => t !== next);
    this.current = next.at;
    next.callback();
    return true;
  }

  private nextDue(target: number): FakeTimer | undefined {
    let next: FakeTimer | undefined;
    for (const timer of this.timers) {
      if (timer.at > target) continue;
      if (!next || timer.at < next.at || (timer.at === next.at && timer.seq < next.seq)) {
        next = timer;
      }
    }
    return next;
  }
}

/** Lets pending promise callbacks (and one macrotask turn) run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Waits for `promise`, but at most `ms` on `clock`; resolves `true` when it settled in time,
 * `false` when the time ran out first (the promise is left running).
 */
export async function waitAtMost(
  clock: Clock,
  promise: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  let cancel: CancelTimer | undefined;
  const timedOut = new Promise<false>((resolve) => {
    cancel = clock.schedule(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timedOut]);
  } finally {
    cancel?.();
  }
}

/**
 * Checks that `value` is a {@link Clock}: an object with `now` and `schedule` functions.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` naming `field` otherwise.
 */
export function checkClock(value: unknown, field: string): Clock {
  if (!hasMethods(value, ['now', 'schedule'])) {
    throw invalid('CHOKAQ_INVALID_CONFIG', field, 'an object with now() and schedule()', value);
  }
  return value as Clock;
}
