/**
 * The `memory` storage provider: volatile, single-process, with the same semantics as
 * `postgres` and `embedded` (delays, retries, resurrection, dedupe, exact `maxWorkers` caps).
 * For tests and work that may be lost on exit.
 */
import { checkOptions } from '../../util/check.js';
import { checkClock, systemClock, type Clock } from '../../util/clock.js';
import type { Store } from '../store.js';
import { MemoryStore } from './memory-store.js';

/** Options of {@link memory}. */
export interface MemoryOptions {
  /**
   * Source of "now" for scheduling, claim eligibility and every stored timestamp; inject a
   * `FakeClock` to drive delays in tests.
   * @default systemClock
   */
  clock?: Clock;
}

const PREFIX = 'memory(options)';

/**
 * Creates an in-memory store. Nothing survives the process; every store is independent.
 *
 * @throws `CHOKAQ_UNKNOWN_OPTION` for an unknown option name; `CHOKAQ_INVALID_CONFIG` when
 *   `clock` lacks `now()` or `schedule()`.
 *
 * @example
 * ```ts
 * const chokaq = new ChokaQ({ storage: memory(), jobs: [sendEmail] });
 * ```
 */
export function memory(options: MemoryOptions = {}): Store {
  const given = checkOptions(options, PREFIX, ['clock']);
  return new MemoryStore(
    given.clock === undefined ? systemClock : checkClock(given.clock, `${PREFIX}.clock`),
  );
}
