import type { Span } from '@opentelemetry/api';
import { logEvent } from '../observability/logging/log-events.js';
import { ChokaQError } from '../errors.js';
import type { JobContext } from '../job/context.js';
import { parsePayload } from '../job/define-job.js';
import { classifyFailure, describeError } from '../job/classify.js';
import { RateLimitedError } from '../job/errors.js';
import { decideFailure } from '../job/failure-decision.js';
import type { FailureReason } from '../job/state.js';
import type { AnyJobDefinition } from '../job/registry.js';
import { resolveRetryPolicy, type RetryOptions, type RetryPolicy } from '../job/retry.js';
import type { ClaimedJob } from '../storage/model.js';
import type { Lease, Settlement } from '../storage/job-store.js';
import { type AbortCause, type ActiveRun, type RunAborted } from './active-runs.js';
import { composeMiddleware } from './middleware.js';
import { RunContext } from './run-context.js';
import { GraceTimer } from './grace-timer.js';
import type { StartRecord } from './start-record.js';
import { RunTimeouts, type TimedRun } from './run-timeouts.js';
import { runBatch, type BatchEntry } from './batch-run.js';
import { jobEventBase } from './events.js';
import {
  callReturned,
  callThrew,
  type CallResult,
  type ExecutorOptions,
  type RunResult,
} from './run-types.js';
import { endRunSpan, withSpan } from '../observability/tracing/spans.js';

/** Largest handler result kept with an archived job, in UTF-8 bytes of its JSON. */
export const MAX_RESULT_BYTES = 64 * 1024;

/** The result of a run that leaves nothing to count. */
const NOTHING_WRITTEN: Promise<boolean> = Promise.resolve(false);

/**
 * One run in progress as the heartbeater, cancellation and shutdown see it, and what the executor
 * needs to end it. Every abort goes through here (timeout, cancel, lost lease, heartbeat,
 * shutdown), so the grace period starts without a listener on the signal.
 */
class SingleRun implements ActiveRun, TimedRun {
  /** When the run times out; `Infinity` once it did (it may run on through its grace period). */
  deadlineMs: number;

  constructor(
    readonly job: ClaimedJob,
    readonly lease: Lease,
    readonly definition: AnyJobDefinition | undefined,
    readonly ctx: RunContext,
    readonly grace: GraceTimer,
    readonly startedMs: number,
    readonly span: Span | undefined,
    private readonly timeoutMs: number,
  ) {
    this.deadlineMs = startedMs + timeoutMs;
  }

  progress(): number | undefined {
    return this.ctx.reportedProgress;
  }

  abort(why: AbortCause, message: string): void {
    if (this.ctx.abort(why, message)) this.grace.start();
  }

  timedOut(): void {
    this.deadlineMs = Infinity;
    this.abort('timeout', `Timeout: execution exceeded ${this.timeoutMs} ms`);
  }
}

/** DLQ reason and text for runs aborted on purpose. */
const ABORT_DEATH: Partial<Record<AbortCause, FailureReason>> = {
  timeout: 'Timeout',
  cancel: 'Cancelled',
  heartbeat: 'HeartbeatFailure',
};

/**
 * Runs one started job: resolve its handler, parse and validate the payload, run the middleware
 * onion under a timeout, then turn the outcome into a settlement for the completer.
 *
 * A run's signal aborts on timeout, cancellation, lost lease, failing heartbeats or shutdown.
 * A handler that ignores it is abandoned after `abortGraceMs`: timed-out, cancelled and
 * heartbeat-failed runs are finalised in the DLQ then (the handler's late result can no longer
 * settle: the lease is gone); lost and shutdown runs are left for zombie rescue.
 */
export class Executor {
  private readonly policies = new Map<AnyJobDefinition, RetryPolicy>();
  private readonly timeouts: RunTimeouts;

  /** @throws ChokaQError when a job type's retry settings are invalid on top of the default ones. */
  constructor(private readonly options: ExecutorOptions) {
    this.timeouts = new RunTimeouts(options.clock, () => this.timedRuns());
    for (const definition of options.registry.all()) {
      if (definition.retry)
        this.policies.set(definition, resolveRetryPolicy(definition.retry, options.retry));
    }
  }

  /**
   * Runs `job` (processing under `lease`, or started on trust: see `recorded`) and hands its
   * settlement to the completer. Resolves as soon as the handler is done, so the slot is free for
   * the next job while the settlement is still being written (the completer batches it; `stop()`
   * drains it); the result's `settled` follows the write. Never throws.
   *
   * `recorded` (default: none, the start is already stored) is the write of the run's start
   * behind it: when that write finds the lease lost, the run is aborted as `lost`.
   */
  run(job: ClaimedJob, lease: Lease, recorded?: StartRecord): Promise<RunResult> {
    // Not an async function: a run is the hottest path, and an async frame per run (with its
    // awaits' promises) cost about a sixth of the worker's CPU per job (docs/benchmarks.md).
    try {
      const run = this.open(job, lease, recorded);
      let called: CallResult | Promise<CallResult>;
      try {
        called = withSpan(run.span, () => this.call(job, run.definition, run.ctx, run.grace));
      } catch (error) {
        this.close(run, 'aborted');
        throw error;
      }
      if (!(called instanceof Promise)) return Promise.resolve(this.end(run, called));
      return called.then(
        (result) => this.end(run, result),
        (error: unknown) => {
          this.close(run, 'aborted');
          throw error;
        },
      );
    } catch (error) {
      // Rare (a tracer or clock that threw): a rejection, as from the async function this was.
      return Promise.resolve().then(() => {
        throw error;
      });
    }
  }

  /** Sets a run up: its context, its place among the runs in progress, its timeout and span. */
  private open(job: ClaimedJob, lease: Lease, recorded: StartRecord | undefined): SingleRun {
    const { clock } = this.options;
    const definition = this.options.registry.find(job.type);
    const ctx = new RunContext(
      job,
      this.options.events,
      this.options.logger,
      this.options.dependencies,
      this.options.steps,
      lease,
      this.options.batch,
    );
    const startedMs = clock.now();
    const span = this.options.tracer.start(job, startedMs);
    const grace = new GraceTimer(clock, this.options.abortGraceMs);
    const timeoutMs =
      definition?.timeoutMs ?? this.options.queueTimeoutsMs[job.queue] ?? this.options.timeoutMs;
    const run = new SingleRun(job, lease, definition, ctx, grace, startedMs, span, timeoutMs);
    this.options.runs.add(run);
    recorded?.watch(run);
    this.timeouts.add(run);
    return run;
  }

  /** Ends a run whose handler call ended: its settlement (see {@link finish}), then {@link close}. */
  private end(run: SingleRun, result: CallResult): RunResult {
    let outcome = 'aborted';
    let failure: string | undefined;
    try {
      const ended = this.finish(run.job, run.lease, run.definition, run.ctx, result, run.startedMs);
      ({ outcome, failure } = ended);
      return ended.run;
    } finally {
      this.close(run, outcome, failure);
    }
  }

  /** Ends the run's span with `outcome`, stops its timers and takes it off the runs in progress. */
  private close(run: SingleRun, outcome: string, failure?: string): void {
    endRunSpan(run.span, outcome, failure);
    run.grace.clear();
    this.options.runs.delete(run.job.id);
  }

  /** Stops the runs' time-limit timer; for the engine's stop, once its handlers returned. */
  stop(): void {
    this.timeouts.clear();
  }

  /** The single runs in progress (batch runs keep their own timeout). */
  private *timedRuns(): Iterable<SingleRun> {
    for (const run of this.options.runs.all()) if (run instanceof SingleRun) yield run;
  }

  /**
   * Turns how a started job's handler call ended into its settlement (handed to the completer):
   * a sleep or wait that gave the job back → nothing (the store moved it already);
   * success → archive; an aborted run → its abort's settlement; `RateLimitedError` → back after
   * the wait; any other failure → `decideFailure`. Also returns the outcome and failure text of
   * the run's span. Shared by single runs and batches (`batch-run.ts`).
   */
  finish(
    job: ClaimedJob,
    lease: Lease,
    definition: AnyJobDefinition | undefined,
    ctx: RunContext,
    result: CallResult,
    startedMs: number,
  ): { run: RunResult; outcome: string; failure?: string } {
    const { clock } = this.options;
    const cause = ctx.abortedBy;
    // A sleep or wait gave the job back to the store (whatever the handler did with the throw).
    const suspended = ctx.suspended;
    if (suspended !== undefined) {
      const { wakeAt } = suspended;
      if (wakeAt !== null) {
        this.options.events.emit('job:suspended', {
          ...jobEventBase(job),
          attempt: job.attempts,
          wakeAt,
        });
      }
      return {
        run: { outcome: 'neutral', settled: Promise.resolve(true) },
        outcome: 'suspended',
        failure: suspended.message,
      };
    }
    if (result.done && result.error === undefined) {
      const durationMs = Math.max(0, clock.now() - startedMs);
      const skipNote = ctx.skipNote;
      const stored = this.resultText(job, result.value);
      const settlement: Extract<Settlement, { kind: 'archive' }> = {
        kind: 'archive',
        lease,
        durationMs,
      };
      if (definition?.keepSucceeded === false) settlement.keep = false;
      if (ctx.usedSteps) settlement.steps = true;
      if (skipNote !== undefined) settlement.note = skipNote;
      if (stored !== undefined) settlement.result = stored;
      let settled = this.settle(job, settlement);
      if (skipNote !== undefined) {
        settled = settled.then((applied) => {
          if (applied) {
            this.options.events.emit('job:skipped', {
              id: job.id,
              type: job.type,
              queue: job.queue,
              reason: skipNote,
            });
          }
          return applied;
        });
      }
      return { run: { outcome: 'succeeded', settled }, outcome: 'succeeded' };
    }
    if (cause) {
      const run = this.finishAborted(job, lease, cause, result.done);
      return { run, outcome: `aborted: ${cause.why}`, failure: cause.message };
    }
    const error = result.done ? result.error : undefined;
    if (error instanceof RateLimitedError) {
      const failure = describeError(error);
      return {
        run: this.finishRateLimited(job, lease, error, failure),
        outcome: 'rate limited',
        failure,
      };
    }
    const decision = decideFailure({
      error,
      attempts: job.attempts,
      policy: this.policyOf(definition),
      createdAtMs: job.createdAt.getTime(),
      nowMs: clock.now(),
    });
    const settled = this.settle(
      job,
      decision.kind === 'retry'
        ? {
            kind: 'retry',
            lease,
            from: 'processing',
            delayMs: decision.delayMs,
            error: decision.error,
          }
        : { kind: 'dead', lease, reason: decision.reason, error: decision.error },
    );
    return {
      run: { outcome: classifyFailure(error).kind === 'fatal' ? 'neutral' : 'failed', settled },
      outcome: decision.kind === 'retry' ? 'retried' : 'dead',
      failure: decision.error,
    };
  }

  /**
   * Runs started jobs of one type and one queue with one call of their definition's `handleBatch`
   * (see `batch-run.ts`); a single entry, or a type without one, runs as {@link run} does. One
   * result per entry, in order, each resolving once that job's settlement is handed over. Never
   * rejects.
   */
  runBatch(entries: readonly BatchEntry[]): Promise<RunResult>[] {
    const [first] = entries;
    const definition = first && this.options.registry.find(first.job.type);
    const handleBatch = definition?.handleBatch;
    if (entries.length === 1 || definition === undefined || handleBatch === undefined) {
      return entries.map((entry) => this.run(entry.job, entry.lease, entry.recorded));
    }
    return runBatch(
      {
        ...this.options,
        finish: (entry, ctx, result, startedMs) =>
          this.finish(entry.job, entry.lease, definition, ctx, result, startedMs),
      },
      definition,
      handleBatch,
      entries,
    );
  }

  /**
   * Runs the handler; once the run is aborted, waits at most the grace period for it to return.
   * A handler that returned without a promise (or threw) has its result at once: no promise
   * made, nothing to race against the grace period.
   */
  private call(
    job: ClaimedJob,
    definition: AnyJobDefinition | undefined,
    ctx: JobContext,
    grace: GraceTimer,
  ): CallResult | Promise<CallResult> {
    let work: unknown;
    try {
      work = this.invoke(job, definition, ctx);
    } catch (error) {
      return callThrew(error);
    }
    if (!isThenable(work)) return callReturned(work);
    return this.awaitHandler(job, Promise.resolve(work), grace);
  }

  /** The outcome of a handler still running: see {@link call}. */
  private async awaitHandler(
    job: ClaimedJob,
    work: Promise<unknown>,
    grace: GraceTimer,
  ): Promise<CallResult> {
    const result = await grace.outcome(work);
    if (!result.done) {
      const base = jobEventBase(job);
      this.options.logger.error('handler ignored its abort signal; abandoning it', {
        ...logEvent('JobHandlerAbandoned'),
        ...base,
        graceMs: this.options.abortGraceMs,
      });
      const late = (): void =>
        this.options.logger.warn('abandoned handler finished late; its result was discarded', {
          ...logEvent('JobLateResultDiscarded'),
          ...base,
        });
      void work.then(late, late);
    }
    return result;
  }

  /**
   * Settles a run whose handler threw `RateLimitedError`: back to pending after the wait with the
   * attempt refunded (a lost run), and the job's rate bucket blocked for every process.
   */
  private finishRateLimited(
    job: ClaimedJob,
    lease: Lease,
    error: RateLimitedError,
    text: string,
  ): RunResult {
    // Measured with the engine's clock: an `until` is a time on the engine's timeline.
    const waitMs = error.waitMs(this.options.clock.now());
    const settled = this.settle(job, {
      kind: 'retry',
      lease,
      from: 'processing',
      delayMs: waitMs,
      error: text,
      lost: true,
    });
    void this.options.onRateLimited?.(job, waitMs);
    return { outcome: 'neutral', settled };
  }

  /** Settles a run whose signal was aborted; `cooperative` when the handler returned in time. */
  private finishAborted(
    job: ClaimedJob,
    lease: Lease,
    cause: RunAborted,
    cooperative: boolean,
  ): RunResult {
    const reason = ABORT_DEATH[cause.why];
    let settled = NOTHING_WRITTEN;
    if (reason) {
      settled = this.settle(job, { kind: 'dead', lease, reason, error: cause.message });
    } else if (cause.why === 'shutdown' && cooperative) {
      // Our own shutdown interrupted the run: refund the attempt and run it again at once.
      settled = this.settle(job, {
        kind: 'retry',
        lease,
        from: 'processing',
        delayMs: 0,
        error: cause.message,
        lost: true,
      });
    }
    // A lost lease has nothing left to settle; an abandoned shutdown run is left for zombie rescue.
    return { outcome: 'neutral', settled };
  }

  /**
   * Calls the handler, inside the middleware onion if there is one; returns what the handler
   * returned (a value or a promise) and throws what it threw. Without a payload schema or
   * middleware the handler is called directly, in this turn (the common case: no promise or
   * closure of ours per run).
   */
  private invoke(
    job: ClaimedJob,
    definition: AnyJobDefinition | undefined,
    ctx: JobContext,
  ): unknown {
    const { middleware, pipe } = this.options;
    if (definition) {
      const parsed: unknown = JSON.parse(job.payload);
      if (!definition.schema && middleware.length === 0) return definition.handle(parsed, ctx);
      return this.invokeChecked(definition, parsed, ctx);
    }
    if (pipe) {
      if (middleware.length === 0) return pipe(job.type, job.payload, ctx);
      return this.throughMiddleware(ctx, job.payload, () => pipe(job.type, job.payload, ctx));
    }
    throw new ChokaQError('CHOKAQ_UNKNOWN_JOB_TYPE', `no job definition for type '${job.type}'`);
  }

  /** The handler called with the payload checked against its schema, inside the middleware. */
  private async invokeChecked(
    definition: AnyJobDefinition,
    parsed: unknown,
    ctx: JobContext,
  ): Promise<unknown> {
    const payload: unknown = definition.schema ? await parsePayload(definition, parsed) : parsed;
    if (this.options.middleware.length === 0) return await definition.handle(payload, ctx);
    return await this.throughMiddleware(ctx, payload, () => definition.handle(payload, ctx));
  }

  /** Runs `handle` inside the middleware onion; resolves to what it returned. */
  private async throughMiddleware(
    ctx: JobContext,
    payload: unknown,
    handle: () => unknown,
  ): Promise<unknown> {
    let value: unknown;
    const inner = async (): Promise<void> => {
      value = await handle();
    };
    await composeMiddleware(this.options.middleware, inner, ctx, payload)();
    return value;
  }

  /**
   * The handler's return value as JSON to keep with the archived job: `undefined` for none, and
   * (with a warning) for a value that cannot be serialised or exceeds {@link MAX_RESULT_BYTES}.
   */
  private resultText(job: ClaimedJob, value: unknown): string | undefined {
    if (value === undefined) return undefined;
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      this.options.logger.warn('handler result cannot be serialised to JSON; not kept', {
        ...logEvent('JobResultNotSerializable'),
        id: job.id,
        type: job.type,
        queue: job.queue,
        error: String(error),
      });
      return undefined;
    }
    if (text === undefined) return undefined;
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_RESULT_BYTES) {
      this.options.logger.warn('handler result too large; not kept', {
        ...logEvent('JobResultTooLarge'),
        id: job.id,
        type: job.type,
        queue: job.queue,
        bytes,
        maxBytes: MAX_RESULT_BYTES,
      });
      return undefined;
    }
    return text;
  }

  private settle(job: ClaimedJob, settlement: Settlement): Promise<boolean> {
    // Chained rather than awaited: no async frame per job (see run).
    return this.options.completer.settle(settlement).then(
      (applied) => this.settled(job, settlement, applied),
      (error: unknown) => {
        this.options.logger.error('could not settle job; it stays processing until rescued', {
          ...logEvent('JobSettleFailed'),
          ...jobEventBase(job),
          error: String(error),
        });
        this.options.events.emit('worker:error', { where: 'settle', error });
        return false;
      },
    );
  }

  /** Emits what a settlement's write did (`applied`: whether the lease still held). */
  private settled(job: ClaimedJob, settlement: Settlement, applied: boolean): boolean {
    const { events, logger } = this.options;
    if (!applied) {
      const base = jobEventBase(job);
      logger.warn('settle conflict: the job was moved by someone else', {
        ...logEvent('StateTransitionNotApplied'),
        ...base,
        step: settlement.kind,
      });
      events.emit('job:conflict', { ...base, step: settlement.kind });
      return false;
    }
    if (settlement.kind === 'archive') {
      // Written out, not spread from a shared base: this runs once per succeeded job.
      events.emit('job:succeeded', {
        id: job.id,
        type: job.type,
        queue: job.queue,
        attempt: job.attempts,
        durationMs: settlement.durationMs,
      });
    } else if (settlement.kind === 'retry') {
      events.emit('job:retrying', {
        ...jobEventBase(job),
        attempt: job.attempts,
        delayMs: settlement.delayMs,
        error: settlement.error,
        lost: settlement.lost === true,
      });
    } else if (settlement.kind === 'dead') {
      const base = jobEventBase(job);
      logger.warn('job moved to the dead-letter queue', {
        ...logEvent('JobDeadLettered'),
        ...base,
        reason: settlement.reason,
      });
      events.emit('job:dead', {
        ...base,
        attempt: job.attempts,
        reason: settlement.reason,
        error: settlement.error,
      });
    }
    return true;
  }

  /**
   * Changes the retry settings of job type `type` in this process, on top of those it runs with
   * now, for every later failure. Resolves `false` when this process has no definition of it.
   * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` naming the field of a bad setting.
   */
  setRetry(type: string, retry: RetryOptions): boolean {
    const definition = this.options.registry.find(type);
    if (definition === undefined) return false;
    this.policies.set(definition, resolveRetryPolicy(retry, this.policyOf(definition)));
    return true;
  }

  /** The retry policy that applies to a stored type key. */
  retryPolicyFor(type: string): RetryPolicy {
    return this.policyOf(this.options.registry.find(type));
  }

  private policyOf(definition: AnyJobDefinition | undefined): RetryPolicy {
    return (definition && this.policies.get(definition)) ?? this.options.retry;
  }
}

/** Whether a handler returned a promise (or another thenable) rather than its value. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
