import { logEvent } from '../observability/logging/log-events.js';
import { batchEnds, type BatchHandler, type BatchJob, type JobEnd } from '../job/batch.js';
import { parsePayload } from '../job/define-job.js';
import type { AnyJobDefinition } from '../job/registry.js';
import type { ClaimedJob } from '../storage/model.js';
import type { Lease } from '../storage/job-store.js';
import { withFields } from '../observability/logging/logger.js';
import { endRunSpan, withSpan } from '../observability/tracing/spans.js';
import type { ActiveRun } from './active-runs.js';
import type { StartRecord } from './start-record.js';
import { jobEventBase } from './events.js';
import {
  callReturned,
  callThrew,
  type CallResult,
  type ExecutorOptions,
  type RunResult,
} from './run-types.js';
import { GraceTimer } from './grace-timer.js';
import { composeMiddleware } from './middleware.js';
import { RunContext } from './run-context.js';

/** A started job of a batch: its lease, and the write of its start when it began on trust. */
export interface BatchEntry {
  job: ClaimedJob;
  lease: Lease;
  /** The write of its start when it began on trust (see `StartRecord`); none when stored. */
  recorded: StartRecord | undefined;
}

/** What a batch run needs of the executor: its options and its outcome → settlement mapping. */
export interface BatchRunDeps extends Pick<
  ExecutorOptions,
  | 'middleware'
  | 'timeoutMs'
  | 'queueTimeoutsMs'
  | 'events'
  | 'logger'
  | 'clock'
  | 'runs'
  | 'abortGraceMs'
  | 'tracer'
  | 'dependencies'
  | 'steps'
  | 'batch'
> {
  /** Settles one job of the batch the way a single run is settled (`Executor.finish`). */
  finish(
    entry: BatchEntry,
    ctx: RunContext,
    result: CallResult,
    startedMs: number,
  ): { run: RunResult; outcome: string; failure?: string };
}

/** A job of the batch that reached its `next()`, waiting for the call's outcome for it. */
interface Arrival {
  index: number;
  job: BatchJob<unknown>;
  end(end: JobEnd): void;
}

/**
 * Runs started jobs of one type and queue through one call of `handleBatch`, each job still a run
 * of its own: its own context and signal, its entry in the active runs (heartbeats, cancels,
 * shutdown), its span, its payload check and its pass through the middleware onion.
 *
 * Each job's middleware runs up to its `next()`; once every job has reached it (or left: a payload
 * that fails its schema, a middleware that skips or throws), the handler is called once with the
 * jobs that reached it, in claim order, and each `next()` resolves or rejects with that job's
 * outcome. One timeout covers the batch; the batch's signal fires when no job is left to run for
 * (every one aborted or done), and the grace period then starts for the whole call. Returns one
 * result per entry, each resolving once that job's settlement is handed over; none rejects.
 */
export function runBatch(
  deps: BatchRunDeps,
  definition: AnyJobDefinition,
  handleBatch: BatchHandler<unknown>,
  entries: readonly BatchEntry[],
): Promise<RunResult>[] {
  return new BatchRun(deps, definition, handleBatch, entries).start();
}

/** The state of one batch call (see {@link runBatch}). */
class BatchRun {
  private readonly type: string;
  private readonly queue: string;
  private readonly grace: GraceTimer;
  private readonly batchAbort = new AbortController();
  private readonly contexts: RunContext[];
  private readonly active: ActiveRun[];
  private readonly timeoutMs: number;
  private readonly startedMs: number;
  /** Jobs that reached their `next()`. */
  private readonly arrived: Arrival[] = [];
  /** Jobs that reached their `next()` or left without it: the call starts once all have. */
  private readonly counted = new Set<number>();
  /** Jobs aborted or done: once all are, the call has nothing left to run for. */
  private readonly gone = new Set<number>();
  private handlerDone = false;
  private finished = 0;

  constructor(
    private readonly deps: BatchRunDeps,
    private readonly definition: AnyJobDefinition,
    private readonly handleBatch: BatchHandler<unknown>,
    private readonly entries: readonly BatchEntry[],
  ) {
    const first = (entries[0] as BatchEntry).job;
    this.type = first.type;
    this.queue = first.queue;
    this.grace = new GraceTimer(deps.clock, deps.abortGraceMs);
    this.contexts = entries.map(
      (entry) =>
        new RunContext(
          entry.job,
          deps.events,
          deps.logger,
          deps.dependencies,
          deps.steps,
          entry.lease,
          deps.batch,
        ),
    );
    this.active = entries.map((entry, index) => this.register(entry, index));
    this.timeoutMs = definition.timeoutMs ?? deps.queueTimeoutsMs[this.queue] ?? deps.timeoutMs;
    this.startedMs = deps.clock.now();
  }

  /** Starts the batch's timeout and every job's run; one result per entry. */
  start(): Promise<RunResult>[] {
    const cancelTimeout = this.deps.clock.schedule(() => {
      for (const run of this.active) {
        run.abort('timeout', `Timeout: the batch exceeded ${this.timeoutMs} ms`);
      }
    }, this.timeoutMs);
    return this.entries.map((entry, index) =>
      this.runJob(entry, index).finally(() => {
        this.finished += 1;
        if (this.finished === this.entries.length) {
          cancelTimeout();
          this.grace.clear();
        }
      }),
    );
  }

  /** Adds a job to the active runs, its aborts going through its context. */
  private register(entry: BatchEntry, index: number): ActiveRun {
    const ctx = this.contexts[index] as RunContext;
    const run: ActiveRun = {
      job: entry.job,
      lease: entry.lease,
      progress: () => ctx.reportedProgress,
      abort: (why, message) => {
        if (ctx.abort(why, message)) this.leave(index);
      },
    };
    this.deps.runs.add(run);
    entry.recorded?.watch(run);
    return run;
  }

  /** One job's run: its span, its chain up to the call, and its settlement. */
  private async runJob(entry: BatchEntry, index: number): Promise<RunResult> {
    const { deps } = this;
    const ctx = this.contexts[index] as RunContext;
    const { job } = entry;
    const span = deps.tracer.start(job, this.startedMs);
    let outcome = 'aborted';
    let failure: string | undefined;
    try {
      const work = withSpan(span, () => this.chain(job, ctx, index)).then(callReturned, callThrew);
      // A job that leaves before the call (bad payload, skipped or failed in middleware) no
      // longer holds the others back.
      void work.then(() => this.reach(index));
      const result = await Promise.race([work, this.grace.expired]);
      if (!result.done) this.abandoned(job, work);
      const ended = deps.finish(entry, ctx, result, this.startedMs);
      ({ outcome, failure } = ended);
      return ended.run;
    } finally {
      endRunSpan(span, outcome, failure);
      deps.runs.delete(job.id);
      this.leave(index);
    }
  }

  /** Parses the payload and runs the middleware onion, whose innermost step joins the call. */
  private async chain(job: ClaimedJob, ctx: RunContext, index: number): Promise<unknown> {
    const payload: unknown = await parsePayload(this.definition, JSON.parse(job.payload));
    let value: unknown;
    const inner = async (): Promise<void> => {
      const end = await new Promise<JobEnd>((resolve) => {
        this.arrived.push({ index, job: { id: job.id, payload, ctx }, end: resolve });
        this.reach(index);
      });
      if ('error' in end) throw end.error;
      value = end.value;
    };
    await composeMiddleware(this.deps.middleware, inner, ctx, payload)();
    return value;
  }

  /** Counts a job as ready for the call (arrived, or left without arriving); the last one calls. */
  private reach(index: number): void {
    if (this.counted.has(index)) return;
    this.counted.add(index);
    if (this.counted.size === this.entries.length) void this.call();
  }

  /** Counts a job as aborted or done; when none is left during the call, aborts the batch. */
  private leave(index: number): void {
    if (this.gone.has(index)) return;
    this.gone.add(index);
    if (this.gone.size < this.entries.length || this.handlerDone) return;
    if (this.batchAbort.signal.aborted) return;
    this.batchAbort.abort(this.contexts[index]?.abortedBy);
    this.grace.start();
  }

  /** Calls the handler with the jobs that arrived, in claim order, and ends each one's `next()`. */
  private async call(): Promise<void> {
    const { arrived, type, queue } = this;
    if (arrived.length === 0) return;
    arrived.sort((a, b) => a.index - b.index);
    let ends: JobEnd[];
    try {
      const result: unknown = await this.handleBatch(
        arrived.map((a) => a.job),
        {
          type,
          queue,
          signal: this.batchAbort.signal,
          log: withFields(this.deps.logger.child(`job:${type}`), {
            type,
            queue,
            batch: arrived.length,
          }),
        },
      );
      ends = batchEnds(type, result, arrived.length);
    } catch (error) {
      const thrown = error ?? new Error('batch handler threw undefined');
      ends = arrived.map(() => ({ error: thrown }));
    }
    this.handlerDone = true;
    arrived.forEach((a, i) => a.end(ends[i] ?? { value: undefined }));
  }

  /** Logs a job whose batch handler ignored its abort past the grace period, and its late end. */
  private abandoned(job: ClaimedJob, work: Promise<CallResult>): void {
    const { logger, abortGraceMs } = this.deps;
    const base = jobEventBase(job);
    logger.error('batch handler ignored its abort signal; abandoning the job', {
      ...logEvent('JobHandlerAbandoned'),
      ...base,
      graceMs: abortGraceMs,
    });
    void work.then(() =>
      logger.warn('abandoned handler finished late; its result was discarded', {
        ...logEvent('JobLateResultDiscarded'),
        ...base,
      }),
    );
  }
}
