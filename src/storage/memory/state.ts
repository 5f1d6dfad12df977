/**
 * What the parts of one memory store share: its tables, its clock and its wake-up subscribers,
 * and the rule that makes each of their operations atomic.
 *
 * @internal
 */
import type { Clock } from '../../util/clock.js';
import { Tables } from './tables.js';
import { WakeHub } from './wake.js';

/**
 * Runs `operation` synchronously, turning its result or throw into a settled promise. Every
 * operation of the memory provider goes through it: it runs from start to end inside one promise
 * executor, so it is atomic with respect to every other operation (JavaScript runs one of them at
 * a time), and a throw rejects the returned promise having written nothing.
 */
export function atomically<T>(operation: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(operation()));
}

/** The state of one memory store, made once by the store and lent to each of its parts. */
export class MemoryState {
  /** The store's tables; every part reads and writes these, never copies of them. */
  readonly tables: Tables;
  /** The store's wake-up subscribers: the memory provider's LISTEN/NOTIFY. */
  readonly wake = new WakeHub();
  private readonly clock: Clock;

  /** @param clock Source of "now" for scheduling, eligibility and every timestamp. */
  constructor(clock: Clock) {
    this.clock = clock;
    this.tables = new Tables(this.time());
    this.tables.onBatchFired = (queues) => this.wake.notify(queues);
  }

  /** The store clock's current time. */
  time(): Date {
    return new Date(this.clock.now());
  }
}
