/** Source of the current time; inject a fake one in tests. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests of time-dependent logic. */
export class FakeClock implements Clock {
  private current: number;

  /** @param start Initial time in ms since the epoch. Default: 2026-01-01T00:00:00Z. */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.current += ms;
  }
}
