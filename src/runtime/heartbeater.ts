import type { Store } from '../storage/store.js';
import { logEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import { requesterOf } from '../storage/rescue-rules.js';
import type { Clock } from '../util/clock.js';
import type { ActiveRun, ActiveRuns } from './active-runs.js';
import type { ChokaQEvents } from './events.js';
import { LoopService } from './service.js';

/** Settings of a {@link Heartbeater}. */
export interface HeartbeaterOptions {
  store: Pick<Store, 'jobs'>;
  runs: ActiveRuns;
  /** Mean time between heartbeats, in ms (±20 % jitter). */
  intervalMs: number;
  /** Consecutive failed writes before a run counts as degraded. */
  failureThreshold: number;
  /** Abort a run whose heartbeats keep failing (DLQ `HeartbeatFailure`) instead of only warning. */
  cancelOnFailure: boolean;
  events: ChokaQEvents;
  logger: Logger;
  clock: Clock;
}

/**
 * Keeps running jobs alive: on a jittered interval, one storage call refreshes the heartbeat of
 * every run in this process. A run whose lease is gone (rescued, moved) is aborted as `lost`; a
 * run with a persisted cancel request is aborted as `cancel` — from any process, within one
 * interval — with `Cancelled by <requester> while running`, the actor stored with the request.
 * Failed writes are counted per run; at the threshold the run is either aborted
 * (`cancelOnFailure`) or reported as degraded and the count restarts.
 */
export class Heartbeater {
  private readonly failures = new Map<string, number>();
  private readonly loop: LoopService;

  constructor(private readonly options: HeartbeaterOptions) {
    this.loop = new LoopService({
      intervalMs: options.intervalMs,
      pass: () => this.beat(),
      onError: () => undefined, // beat() handles its own failures
      clock: options.clock,
    });
  }

  /** Starts the interval. */
  start(): void {
    this.loop.start();
  }

  /** Stops the interval and waits for a beat in flight. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Runs one heartbeat for every run in progress now. */
  async beat(): Promise<void> {
    const { store, runs, logger, events } = this.options;
    const active = runs.all();
    for (const id of this.failures.keys()) if (!runs.get(id)) this.failures.delete(id);
    if (active.length === 0) return;
    try {
      const results = await store.jobs.heartbeat(
        active.map((run) => {
          const progress = run.progress();
          return progress === undefined ? run.lease : { ...run.lease, progress };
        }),
      );
      active.forEach((run, i) => {
        // A run that ended while the heartbeat was on its way has settled (or is settling) its
        // job: a missing lease is its own doing, not a loss.
        if (!this.stillRunning(run)) return;
        const result = results[i];
        this.failures.delete(run.job.id);
        if (!result?.alive) {
          logger.warn('lease lost while running; aborting the run', {
            ...logEvent('JobHeartbeatLeaseLost'),
            id: run.job.id,
            type: run.job.type,
            queue: run.job.queue,
          });
          run.abort('lost', 'Lease lost: the job was rescued or moved by someone else');
        } else if (result.cancelRequested) {
          // The same text as a cancel of a run in this process: the requester's actor, from any
          // process, ends up in the DLQ error (and the row's lastModifiedBy and history).
          run.abort(
            'cancel',
            `Cancelled by ${requesterOf(result.cancelRequestedBy)} while running`,
          );
        }
      });
    } catch (error) {
      logger.warn('heartbeat failed', {
        ...logEvent('JobHeartbeatWriteFailed'),
        runs: active.length,
        error: String(error),
      });
      events.emit('worker:error', { where: 'heartbeat', error });
      for (const run of active) {
        if (!this.stillRunning(run)) continue;
        this.countFailure(run);
      }
    }
  }

  private stillRunning(run: ActiveRun): boolean {
    return this.options.runs.get(run.job.id) === run;
  }

  private countFailure(run: ActiveRun): void {
    const { id, type, queue } = run.job;
    const count = (this.failures.get(id) ?? 0) + 1;
    if (count < this.options.failureThreshold) {
      this.failures.set(id, count);
      return;
    }
    this.failures.delete(id);
    const meta = { id, type, queue, failures: count };
    if (this.options.cancelOnFailure) {
      this.options.logger.error('heartbeats kept failing; aborting the run', {
        ...logEvent('JobHeartbeatThresholdReached'),
        ...meta,
      });
      run.abort('heartbeat', 'HeartbeatFailure: heartbeats kept failing');
    } else {
      this.options.logger.warn('heartbeats keep failing; the run continues degraded', {
        ...logEvent('JobHeartbeatDegraded'),
        ...meta,
      });
    }
  }
}
