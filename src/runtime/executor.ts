import { ChokaQError } from '../errors.js';
import { parsePayload, type JobContext } from '../job/define-job.js';
import { decideFailure } from '../job/failure-decision.js';
import type { AnyJobDefinition, JobRegistry } from '../job/registry.js';
import { resolveRetryPolicy, type RetryPolicy } from '../job/retry.js';
import type { ChokaQEvents } from '../observability/events.js';
import type { Logger } from '../observability/logger.js';
import type { HotJob, Lease, Settlement } from '../storage/contract.js';
import type { Clock } from '../util/clock.js';
import type { Completer } from './completer.js';
import { composeMiddleware, type Middleware } from './middleware.js';

/** Pipe mode: one raw handler for every type key, called with the stored type and payload text. */
export type PipeHandler = (type: string, payload: string, ctx: JobContext) => Promise<void> | void;

/** Dependencies of an {@link Executor}. */
export interface ExecutorOptions {
  registry: JobRegistry;
  pipe: PipeHandler | undefined;
  middleware: readonly Middleware[];
  retry: RetryPolicy;
  /** Default handler time limit in ms. */
  timeoutMs: number;
  /** Per-queue handler time limits in ms; a job type's own timeout wins over them. */
  queueTimeoutsMs: Readonly<Record<string, number>>;
  completer: Completer;
  events: ChokaQEvents;
  logger: Logger;
  clock: Clock;
  /** Aborted when the engine stops waiting for running handlers. */
  shutdown: AbortSignal;
}

/** Why a run's signal was aborted. */
class RunAborted extends Error {
  constructor(
    readonly why: 'timeout' | 'shutdown',
    message: string,
  ) {
    super(message);
    this.name = 'RunAborted';
  }
}

/**
 * Runs one started job: resolve its handler, parse and validate the payload, run the middleware
 * onion under a timeout, then turn the outcome into a settlement for the completer.
 */
export class Executor {
  private readonly policies = new Map<AnyJobDefinition, RetryPolicy>();

  /** @throws ChokaQError when a job type's retry settings are invalid on top of the default ones. */
  constructor(private readonly options: ExecutorOptions) {
    for (const definition of options.registry.all()) {
      if (definition.retry)
        this.policies.set(definition, resolveRetryPolicy(definition.retry, options.retry));
    }
  }

  /** Runs `job` (already processing under `lease`) and settles it. Never throws. */
  async run(job: HotJob, lease: Lease): Promise<void> {
    const { clock, shutdown } = this.options;
    const definition = this.options.registry.find(job.type);
    const controller = new AbortController();
    const onShutdown = (): void => controller.abort(new RunAborted('shutdown', 'Worker shutdown'));
    shutdown.addEventListener('abort', onShutdown, { once: true });
    const timeoutMs =
      definition?.timeoutMs ?? this.options.queueTimeoutsMs[job.queue] ?? this.options.timeoutMs;
    const timer = setTimeout(
      () =>
        controller.abort(new RunAborted('timeout', `Timeout: execution exceeded ${timeoutMs} ms`)),
      timeoutMs,
    );
    const startedMs = clock.now();
    let settlement: Settlement;
    try {
      await this.invoke(job, definition, this.context(job, controller.signal));
      settlement = { kind: 'archive', lease, durationMs: Math.max(0, clock.now() - startedMs) };
    } catch (error) {
      settlement = this.failure(job, lease, definition, controller.signal, error);
    } finally {
      clearTimeout(timer);
      shutdown.removeEventListener('abort', onShutdown);
    }
    await this.settle(job, settlement);
  }

  private failure(
    job: HotJob,
    lease: Lease,
    definition: AnyJobDefinition | undefined,
    signal: AbortSignal,
    error: unknown,
  ): Settlement {
    const aborted: unknown = signal.aborted ? signal.reason : undefined;
    if (aborted instanceof RunAborted && aborted.why === 'timeout') {
      return { kind: 'dead', lease, reason: 'Timeout', error: aborted.message };
    }
    if (aborted instanceof RunAborted && aborted.why === 'shutdown') {
      return { kind: 'retry', lease, from: 'processing', delayMs: 0, error: aborted.message };
    }
    const decision = decideFailure({
      error,
      attempts: job.attempts,
      policy: this.policyOf(definition),
      createdAtMs: job.createdAt.getTime(),
      nowMs: this.options.clock.now(),
    });
    return decision.kind === 'retry'
      ? {
          kind: 'retry',
          lease,
          from: 'processing',
          delayMs: decision.delayMs,
          error: decision.error,
        }
      : { kind: 'dead', lease, reason: decision.reason, error: decision.error };
  }

  private async invoke(
    job: HotJob,
    definition: AnyJobDefinition | undefined,
    ctx: JobContext,
  ): Promise<void> {
    let payload: unknown;
    let inner: () => Promise<void>;
    if (definition) {
      payload = await parsePayload(definition, JSON.parse(job.payload));
      inner = async () => definition.handle(payload, ctx);
    } else if (this.options.pipe) {
      const pipe = this.options.pipe;
      payload = job.payload;
      inner = async () => pipe(job.type, job.payload, ctx);
    } else {
      throw new ChokaQError('CHOKAQ_UNKNOWN_JOB_TYPE', `no job definition for type '${job.type}'`);
    }
    await composeMiddleware(this.options.middleware, inner, ctx, payload)();
  }

  private context(job: HotJob, signal: AbortSignal): JobContext {
    const { events, logger } = this.options;
    const base = { id: job.id, type: job.type, queue: job.queue };
    return {
      ...base,
      attempt: job.attempts,
      createdAt: job.createdAt,
      signal,
      log: logger.child(`job:${job.type}`),
      progress: (percent: number) => {
        const clamped = Math.min(100, Math.max(0, Number.isFinite(percent) ? percent : 0));
        events.emit('job:progress', { ...base, percent: clamped });
        return Promise.resolve();
      },
    };
  }

  private async settle(job: HotJob, settlement: Settlement): Promise<void> {
    const { events, logger } = this.options;
    const base = { id: job.id, type: job.type, queue: job.queue };
    let applied: boolean;
    try {
      applied = await this.options.completer.settle(settlement);
    } catch (error) {
      logger.error('could not settle job; it stays processing until rescued', {
        ...base,
        error: String(error),
      });
      events.emit('worker:error', { where: 'settle', error });
      return;
    }
    if (!applied) {
      logger.warn('settle conflict: the job was moved by someone else', {
        ...base,
        step: settlement.kind,
      });
      events.emit('job:conflict', { ...base, step: settlement.kind });
      return;
    }
    if (settlement.kind === 'archive') {
      events.emit('job:succeeded', {
        ...base,
        attempt: job.attempts,
        durationMs: settlement.durationMs,
      });
    } else if (settlement.kind === 'retry') {
      events.emit('job:retrying', {
        ...base,
        attempt: job.attempts,
        delayMs: settlement.delayMs,
        error: settlement.error,
      });
    } else if (settlement.kind === 'dead') {
      logger.warn('job moved to the dead-letter queue', { ...base, reason: settlement.reason });
      events.emit('job:dead', {
        ...base,
        attempt: job.attempts,
        reason: settlement.reason,
        error: settlement.error,
      });
    }
  }

  private policyOf(definition: AnyJobDefinition | undefined): RetryPolicy {
    return (definition && this.policies.get(definition)) ?? this.options.retry;
  }
}
