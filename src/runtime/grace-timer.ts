import type { CancelTimer, Clock } from '../util/clock.js';
import type { CallResult } from './run-types.js';

/**
 * The grace period of an aborted run: `expired` resolves `abortGraceMs` after `start()`, unless
 * `clear()` came first (the run is over; no timer may outlive it and hold the process open).
 */
export class GraceTimer {
  readonly expired: Promise<CallResult>;
  private resolve: ((result: CallResult) => void) | undefined;
  private cancel: CancelTimer | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly ms: number,
  ) {
    this.expired = new Promise((resolve) => (this.resolve = resolve));
  }

  start(): void {
    if (this.cancel || !this.resolve) return;
    const resolve = this.resolve;
    this.cancel = this.clock.schedule(() => resolve({ done: false }), this.ms);
  }

  clear(): void {
    this.cancel?.();
    this.resolve = undefined;
  }
}
