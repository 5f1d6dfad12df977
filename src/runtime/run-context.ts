import type { IdempotencyOutcome } from './idempotency-outcome.js';
import type { EventResult, JobContext, StepOptions, WaitForEventOptions } from '../job/context.js';
import type { JobDependency } from '../job/dependencies.js';
import type { DependencyReader } from './dependency-reader.js';
import { NO_BATCH, type BatchReader } from './batch-reader.js';
import type { JobBatch } from '../job/batch-info.js';
import type { ChokaQEvents } from './events.js';
import { withFields, type Logger } from '../observability/logging/logger.js';
import type { Lease } from '../storage/job-store.js';
import type { ClaimedJob } from '../storage/model.js';
import type { Duration } from '../util/duration.js';
import { RunAborted, type AbortCause } from './active-runs.js';
import type { JobSuspended, StepRunner, StepSource } from './steps.js';

/**
 * The context a handler gets for one run, and the run's abort state.
 *
 * Built once per job on the hot path, so it is a class (one stable shape; an object literal with
 * a getter cost microseconds per job), and what most handlers never touch is made on first use:
 * the scoped logger when a handler reads `log`, the signal's `AbortController` (5–7 µs each on
 * the benchmark machine, about a tenth of the worker's CPU per no-op job) when something reads
 * `signal` or the run is aborted, and the durable steps' runner at the first step. `progress`,
 * `skip`, `dependencies` and the steps' functions are bound, so handlers may destructure them; a
 * spread copy (`{ ...ctx }`) has every field but `log`.
 */
export class RunContext implements JobContext {
  readonly id: string;
  readonly type: string;
  readonly queue: string;
  readonly attempt: number;
  readonly createdAt: Date;
  declare readonly signal: AbortSignal;
  #controller: AbortController | undefined;
  readonly #events: ChokaQEvents;
  readonly #parentLogger: Logger;
  #logger: Logger | undefined;
  #abortedBy: RunAborted | undefined;
  #skipNote: string | undefined;
  #progress: number | undefined;
  readonly #readDependencies: DependencyReader;
  readonly #stepSource: StepSource;
  readonly #lease: Lease | null;
  #steps: StepRunner | undefined;
  readonly #readBatch: BatchReader;

  /** `signal`: the run's signal, its controller made on the first read. */
  static readonly #signalProperty: PropertyDescriptor = {
    get(this: RunContext): AbortSignal {
      this.#controller ??= new AbortController();
      return this.#controller.signal;
    },
    enumerable: true,
  };

  /**
   * @param readDependencies Reads the job's dependencies for {@link RunContext.dependencies}.
   * @param steps Makes the runner of the durable steps, at the run's first step.
   * @param lease The run's lease, which a sleep or wait gives back; `null` outside a worker.
   * @param readBatch Reads the job's batch for {@link RunContext.batch}. Default: none (`null`).
   */
  constructor(
    job: ClaimedJob,
    events: ChokaQEvents,
    parentLogger: Logger,
    readDependencies: DependencyReader,
    steps: StepSource,
    lease: Lease | null,
    readBatch: BatchReader = NO_BATCH,
  ) {
    this.id = job.id;
    this.type = job.type;
    this.queue = job.queue;
    this.attempt = job.attempts;
    this.createdAt = job.createdAt;
    // An own enumerable accessor, so a spread copy still carries the signal (a prototype getter
    // would not be copied); it costs a fraction of a microsecond against the controller's 5–7.
    Object.defineProperty(this, 'signal', RunContext.#signalProperty);
    this.#events = events;
    this.#parentLogger = parentLogger;
    this.#readDependencies = readDependencies;
    this.#stepSource = steps;
    this.#lease = lease;
    this.#readBatch = readBatch;
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

  /** Whether the run called a durable step (`step`, `sleep`, `waitForEvent`). */
  get usedSteps(): boolean {
    return this.#steps !== undefined;
  }

  /** Set once a sleep or wait gave the job back to the store: the run settles nothing. */
  get suspended(): JobSuspended | undefined {
    return this.#steps?.suspended;
  }

  readonly dependencies = (): Promise<JobDependency[]> => this.#readDependencies(this.id);

  readonly step = <T>(name: string, fn: () => T | Promise<T>, options?: StepOptions): Promise<T> =>
    this.#runner().step(name, fn, options);

  readonly sleep = (name: string, duration: Duration): Promise<void> =>
    this.#runner().sleep(name, duration);

  readonly waitForEvent = <T = unknown>(
    name: string,
    topic: string,
    options: WaitForEventOptions,
  ): Promise<EventResult<T>> => this.#runner().waitForEvent<T>(name, topic, options);
  readonly batch = (): Promise<JobBatch | null> => this.#readBatch(this.id);

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

  /** The run's step runner, made at its first step. */
  #runner(): StepRunner {
    this.#steps ??= this.#stepSource(this.id, this.#lease);
    return this.#steps;
  }

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
    this.#controller ??= new AbortController();
    this.#controller.abort(this.#abortedBy);
    return true;
  }
}
