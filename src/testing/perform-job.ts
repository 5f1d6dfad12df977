/** `performJob`: run one job's handler with a payload and a context, without storage. */
import { parsePayload, type JobDefinition } from '../job/define-job.js';
import type { JobBatch } from '../job/batch-info.js';
import type { JobDependency } from '../job/dependencies.js';
import { serializePayload } from '../job/envelope.js';
import { silentLogger, type Logger } from '../observability/logging/logger.js';
import { ChokaQEvents } from '../runtime/events.js';
import { RunContext } from '../runtime/run-context.js';
import type { ClaimedJob } from '../storage/model.js';
import { localSteps } from './local-steps.js';

/** Options of {@link performJob}: the context the handler gets. */
export interface PerformJobOptions {
  /** `ctx.id`. Default: `'perform-job'`. */
  id?: string;
  /** `ctx.queue`. Default: the job's queue. */
  queue?: string;
  /** `ctx.attempt`, 1 for the first run. Default: `1`. */
  attempt?: number;
  /** `ctx.createdAt`. Default: now. */
  createdAt?: Date;
  /** Parent of `ctx.log`. Default: `silentLogger`. */
  logger?: Logger;
  /** Aborts `ctx.signal` (its reason a `RunAborted` with `why: 'cancel'`) when it aborts. Default: none. */
  signal?: AbortSignal;
  /** What `ctx.dependencies()` resolves to. Default: `[]` (a job without dependencies). */
  dependencies?: readonly JobDependency[];
  /**
   * Results of `ctx.step` calls an earlier run recorded, by step name: those steps return them
   * without calling their function, as in a retried job. Default: `{}` (every step runs).
   */
  steps?: Readonly<Record<string, unknown>>;
  /**
   * The data of the event each topic's `ctx.waitForEvent` receives, by topic; a wait on another
   * topic returns `{ received: false }` (timed out). `ctx.sleep` returns at once. Default: `{}`.
   */
  events?: Readonly<Record<string, unknown>>;
  /** What `ctx.batch()` resolves to. Default: `null` (a job in no batch). */
  batch?: JobBatch | null;
}

/** What one {@link performJob} run ended with. */
export interface PerformedJob {
  /** What the handler returned. */
  result: unknown;
  /** The last percentage the handler gave `ctx.progress` (clamped to 0–100); `undefined`: none. */
  progress: number | undefined;
  /** The reason the handler gave `ctx.skip`; `undefined`: it did not skip. */
  skipped: string | undefined;
  /** What the run's steps recorded (each step's result, each wait's outcome), by step name. */
  steps: Record<string, unknown>;
}

/**
 * Runs `job`'s handler once with `payload` as a worker would hand it over (through JSON, then the
 * job's schema) and a context built from `options`; no store, middleware, timeout or retry.
 * @throws ChokaQError `CHOKAQ_PAYLOAD_INVALID` when the payload is not JSON or fails the job's
 *   schema; else rejects with what the handler threw.
 */
export async function performJob<In, Out>(
  job: JobDefinition<In, Out>,
  payload: In,
  options: PerformJobOptions = {},
): Promise<PerformedJob> {
  const createdAt = options.createdAt ?? new Date();
  const claimed: ClaimedJob = {
    id: options.id ?? 'perform-job',
    queue: options.queue ?? job.queue,
    type: job.type,
    // No size limit: that is enqueue's check (maxPayloadBytes), not the handler's.
    payload: serializePayload(payload, Number.POSITIVE_INFINITY),
    state: 'processing',
    attempts: options.attempt ?? 1,
    workerId: null,
    leaseToken: null,
    runAt: createdAt,
    createdAt,
    traceParent: null,
    hasDependents: false,
  };
  const logger = options.logger ?? silentLogger;
  // The worker's own context class, so progress clamps, skip notes and the signal behave alike.
  const dependencies = [...(options.dependencies ?? [])];
  const steps: Record<string, unknown> = {};
  const batch = options.batch ?? null;
  const ctx = new RunContext(
    claimed,
    new ChokaQEvents(logger),
    logger,
    () => Promise.resolve(dependencies),
    localSteps(options.steps ?? {}, options.events ?? {}, steps),
    null,
    () => Promise.resolve(batch),
  );
  const { signal } = options;
  const onAbort = (): void => {
    ctx.abort('cancel', String(signal?.reason));
  };
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort);
  try {
    const parsed = await parsePayload(job, JSON.parse(claimed.payload));
    const result: unknown = await job.handle(parsed, ctx);
    return { result, progress: ctx.reportedProgress, skipped: ctx.skipNote, steps };
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
