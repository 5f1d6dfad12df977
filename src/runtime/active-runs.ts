import type { ClaimedJob } from '../storage/model.js';
import type { Lease } from '../storage/job-store.js';

/** Why a run's signal was aborted. */
export type AbortCause = 'timeout' | 'shutdown' | 'cancel' | 'lost' | 'heartbeat';

/** The reason object a run's `AbortSignal` carries. */
export class RunAborted extends Error {
  constructor(
    readonly why: AbortCause,
    message: string,
  ) {
    super(message);
    this.name = 'RunAborted';
  }
}

/** A handler run in progress in this process. */
export interface ActiveRun {
  readonly job: ClaimedJob;
  readonly lease: Lease;
  /** The handler's last reported progress (0–100), stored with the next heartbeat. */
  progress(): number | undefined;
  /** Aborts the run's signal with a cause; later calls do nothing (the first cause wins). */
  abort(why: AbortCause, message: string): void;
}

/** The runs in progress in this process, by job id: what heartbeats and local cancels act on. */
export class ActiveRuns {
  private readonly runs = new Map<string, ActiveRun>();

  /** Number of runs in progress. */
  get size(): number {
    return this.runs.size;
  }

  add(run: ActiveRun): void {
    this.runs.set(run.job.id, run);
  }

  delete(id: string): void {
    this.runs.delete(id);
  }

  get(id: string): ActiveRun | undefined {
    return this.runs.get(id);
  }

  /** A snapshot of every run in progress. */
  all(): ActiveRun[] {
    return [...this.runs.values()];
  }
}
