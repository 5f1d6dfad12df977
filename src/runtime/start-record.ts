import { logEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import type { Lease } from '../storage/job-store.js';
import type { Pending } from '../util/batcher.js';
import type { ActiveRun } from './active-runs.js';

/** A run's start as an item of a settle round (see `Completer.recordStart`). */
export interface StartMark {
  readonly kind: 'start';
  readonly lease: Lease;
}

/**
 * The write of a run's start behind the run, and what its settle round answers: a start that
 * found the lease gone aborts the run it {@link watch}es as `lost`, at once or when the run is
 * watched (the answer may come first). A start that could not be written at all leaves the run
 * going under its lease (see `Completer.writeStarts`).
 *
 * It is the round's pending item itself: every run started on trust makes one, so one object
 * stands where a promise, its callbacks and a `then` chain stood.
 */
export class StartRecord implements Pending<StartMark, boolean> {
  readonly item: StartMark;
  private lost = false;
  private run: ActiveRun | undefined;

  constructor(
    lease: Lease,
    private readonly logger: Logger,
  ) {
    this.item = { kind: 'start', lease };
  }

  /** The round's answer: whether the lease was still held. */
  resolve(held: boolean): void {
    if (held) return;
    this.lost = true;
    this.abortRun();
  }

  /** The start could not be written: the run goes on (its settlement is lease-guarded). */
  reject(): void {}

  /** Aborts `run` as `lost` if its start was lost, now or once the answer comes. */
  watch(run: ActiveRun): void {
    this.run = run;
    if (this.lost) this.abortRun();
  }

  private abortRun(): void {
    const run = this.run;
    if (run === undefined) return;
    this.run = undefined;
    // Told like a lease lost to a heartbeat: the run was called, and someone else has the job.
    this.logger.warn('lease lost before the start of the run was recorded; aborting the run', {
      ...logEvent('JobStartLeaseLost'),
      id: run.job.id,
      type: run.job.type,
      queue: run.job.queue,
    });
    run.abort('lost', 'Lease lost before the start of the run was recorded');
  }
}
