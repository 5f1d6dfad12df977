import type { IdempotencyOutcome } from '../idempotency/outcome.js';
import type { JobContext } from '../job/define-job.js';
import type { ChokaQEvents } from './events.js';
import { withFields, type Logger } from '../observability/logger.js';
import type { ClaimedJob } from '../storage/model.js';
import { RunAborted, type AbortCause } from './active-runs.js';

/**
 * The context a handler gets for one run, and the run's abort state.
 *
 * Built once per job on the hot path, so it is a class (one stable shape; an object literal with
 * a getter cost microseconds per job) and the scoped logger is made only when a handler first
 * reads `log`: most handlers never do. `progress` and `skip` are bound, so handlers may
 * destructure them; a spread copy (`{ ...ctx }`) has every field but `log`.
 */
export class RunContext implements JobContext {
  readonly id: string;
  readonly type: string;
  readonly queue: string;
  readonly attempt: number;
  readonly createdAt: Date;
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #events: ChokaQEvents;
  readonly #parentLogger: Logger;
  #logger: Logger | undefined;
  #abortedBy: RunAborted | undefined;
  #skipNote: string | undefined;
  #progress: number | undefined;

  constructor(job: ClaimedJob, events: ChokaQEvents, parentLogger: Logger) {
    this.id = job.id;
    this.type = job.type;
    this.queue = job.queue;
    this.attempt = job.attempts;
    this.createdAt = job.createdAt;
    this.signal = this.#controller.signal;
    this.#events = events;
    this.#parentLogger = parentLogger;
  }

  /** Logger scoped to this job; its records carry the job's id, type, queue and attempt. */
  get log(): Logger {
    this.#logger ??= withFields(this.#parentLogger.child(`job:${this.type}`), {
      id: this.id,
      type: this.type,
      queue: this.queue,
      attempt: this.attempt,
    });
    return this.#logger;
  }

  /** Why the run was aborted, once it was (the first cause wins). */
  get abortedBy(): RunAborted | undefined {
    return this.#abortedBy;
  }

  /** The last percentage given to {@link progress}, if any. */
  get reportedProgress(): number | undefined {
    return this.#progress;
  }

  /** The reason given to {@link skip}, if the handler skipped the job. */
  get skipNote(): string | undefined {
    return this.#skipNote;
  }

  readonly skip = (reason: string): void => {
    this.#skipNote = reason;
  };

  readonly progress = (percent: number): Promise<void> => {
    const clamped = Math.min(100, Math.max(0, Number.isFinite(percent) ? percent : 0));
    this.#progress = clamped;
    this.#events.emit('job:progress', {
      id: this.id,
      type: this.type,
      queue: this.queue,
      percent: clamped,
    });
    return Promise.resolve();
  };

  /** Reports a decision of the idempotency middleware about this run (`idempotency:outcome`). */
  idempotencyOutcome(outcome: IdempotencyOutcome): void {
    this.#events.emit('idempotency:outcome', {
      id: this.id,
      type: this.type,
      queue: this.queue,
      outcome,
    });
  }

  /** Aborts the run's signal; returns `false` if it was already aborted. */
  abort(why: AbortCause, message: string): boolean {
    if (this.#abortedBy) return false;
    this.#abortedBy = new RunAborted(why, message);
    this.#controller.abort(this.#abortedBy);
    return true;
  }
}
