import type { CancelTimer, Clock } from '../util/clock.js';
import { callReturned, callThrew, type CallResult } from './run-types.js';

/** The result of a call that did not return within its grace period. */
const GRACE_EXPIRED: CallResult = { done: false };

/**
 * The grace period of an aborted run: it runs out `abortGraceMs` after `start()`, unless `clear()`
 * came first (the run is over; no timer may outlive it and hold the process open).
 *
 * A timer serves either one run, through {@link outcome}, or the runs of one batch call, each
 * racing its work against {@link expired}. Nothing is allocated for the grace period until it is
 * needed: almost every run ends without an abort.
 */
export class GraceTimer {
  private phase: 'waiting' | 'started' | 'over' = 'waiting';
  private expiry: Promise<CallResult> | undefined;
  private resolveExpired: ((result: CallResult) => void) | undefined;
  private cancel: CancelTimer | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly ms: number,
  ) {}

  /** Resolves `{ done: false }` once the grace period runs out (made on first read). */
  get expired(): Promise<CallResult> {
    this.expiry ??= new Promise((resolve) => {
      this.resolveExpired = resolve;
      this.arm();
    });
    return this.expiry;
  }

  /**
   * How `work` ended (its value, or what it threw), or `{ done: false }` when the grace period ran
   * out first: one promise per run, instead of a race against {@link expired}.
   */
  outcome(work: Promise<unknown>): Promise<CallResult> {
    return new Promise((resolve) => {
      this.resolveExpired = resolve;
      this.arm();
      work.then(
        (value) => resolve(callReturned(value)),
        (error: unknown) => resolve(callThrew(error)),
      );
    });
  }

  /** Starts the grace period (once; not after {@link clear}). */
  start(): void {
    if (this.phase !== 'waiting') return;
    this.phase = 'started';
    this.arm();
  }

  clear(): void {
    this.phase = 'over';
    this.cancel?.();
    this.cancel = undefined;
    this.resolveExpired = undefined;
  }

  /** Sets the timer once the period started and someone waits for it. */
  private arm(): void {
    const resolve = this.resolveExpired;
    if (this.phase !== 'started' || this.cancel !== undefined || resolve === undefined) return;
    this.cancel = this.clock.schedule(() => resolve(GRACE_EXPIRED), this.ms);
  }
}
