import { ChokaQError } from '../errors.js';
import type { Logger } from '../observability/logging/logger.js';
import { checkInteger, describeValue } from '../util/check.js';
import type { JobContext } from './context.js';

/** Largest `batchSize` a job definition may ask for. */
export const MAX_BATCH_SIZE = 1000;
/** The `batchSize` of a definition with `handleBatch` that names none. */
export const DEFAULT_BATCH_SIZE = 100;

/** One job of a batch, as a batch handler gets it. */
export interface BatchJob<P> {
  /** Job id (the same as `ctx.id`). */
  readonly id: string;
  /** The job's payload, parsed and validated like a single job's. */
  readonly payload: P;
  /**
   * This job's own context: its attempt, its `signal` (which fires on the batch's timeout and
   * shutdown, and on a cancel or lost lease of this job alone), `progress`, `skip` and `log`.
   */
  readonly ctx: JobContext;
}

/** What a batch handler receives besides its jobs. */
export interface BatchContext {
  /** Stable type key of every job in the batch. */
  readonly type: string;
  /** The queue every job of the batch came from. */
  readonly queue: string;
  /**
   * Fires once every job of the batch was aborted: the batch's timeout passed, the process shuts
   * down, or each job was cancelled or lost on its own.
   */
  readonly signal: AbortSignal;
  /** Logger scoped to this job type; its records carry the type, the queue and the batch size. */
  readonly log: Logger;
}

/**
 * How one job of a batch ended, in the shape `Promise.allSettled` returns: `fulfilled` succeeds
 * the job (its `value` kept as its result, as a single handler's return value is), `rejected`
 * fails it with `reason` as if its own handler had thrown it. `undefined` also succeeds.
 */
export type BatchOutcome = PromiseSettledResult<unknown> | undefined;

/**
 * What a batch handler returns: nothing (every job succeeded) or one {@link BatchOutcome} per job,
 * in the order of its `jobs`. Throwing fails every job of the batch.
 */
export type BatchResult = readonly BatchOutcome[] | undefined | void;

/**
 * A handler that runs up to `batchSize` jobs of one type and queue in one call. Each job still
 * succeeds, retries or dies on its own (see {@link BatchResult}).
 */
export type BatchHandler<P> = (
  jobs: readonly BatchJob<P>[],
  ctx: BatchContext,
) => BatchResult | Promise<BatchResult>;

/** How one job of a batch ended, after the handler's result was checked. */
export type JobEnd = { error: unknown } | { value: unknown };

/**
 * Checks a definition's `batchSize` (`undefined`: {@link DEFAULT_BATCH_SIZE}).
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` unless an integer from 1 to {@link MAX_BATCH_SIZE}.
 */
export function checkBatchSize(value: unknown, field: string): number {
  if (value === undefined) return DEFAULT_BATCH_SIZE;
  return checkInteger(value, field, { min: 1, max: MAX_BATCH_SIZE });
}

/**
 * Turns what a batch handler returned for `size` jobs into how each job ended. A result that is
 * neither nothing nor an array of `size` outcomes fails every job with
 * `CHOKAQ_INVALID_BATCH_RESULT` (a transient failure: a fixed handler succeeds on the retry).
 */
export function batchEnds(type: string, result: unknown, size: number): JobEnd[] {
  if (result === undefined) return Array.from({ length: size }, () => ({ value: undefined }));
  const problem = outcomeProblem(result, size);
  if (problem !== undefined) {
    const error = new ChokaQError(
      'CHOKAQ_INVALID_BATCH_RESULT',
      `the batch handler of '${type}' returned ${problem}; expected nothing or an array of ${size} outcomes ({ status: 'fulfilled', value } or { status: 'rejected', reason }), one per job in order`,
    );
    return Array.from({ length: size }, () => ({ error }));
  }
  return (result as readonly BatchOutcome[]).map((outcome) =>
    outcome === undefined
      ? { value: undefined }
      : outcome.status === 'fulfilled'
        ? { value: outcome.value }
        : {
            error:
              (outcome.reason as unknown) ?? new Error('batch outcome rejected with undefined'),
          },
  );
}

/** Why `result` is not `size` outcomes, or `undefined` when it is. */
function outcomeProblem(result: unknown, size: number): string | undefined {
  if (!Array.isArray(result)) return describeValue(result);
  if (result.length !== size) return `${result.length} outcomes for ${size} jobs`;
  const bad = result.findIndex((outcome: unknown) => !isOutcome(outcome));
  return bad === -1 ? undefined : `${describeValue(result[bad])} at index ${bad}`;
}

function isOutcome(value: unknown): value is BatchOutcome {
  if (value === undefined) return true;
  if (typeof value !== 'object' || value === null) return false;
  const status = (value as { status?: unknown }).status;
  return status === 'fulfilled' || (status === 'rejected' && 'reason' in value);
}

/**
 * The single-job handler of a batch definition: runs `handleBatch` with a batch of one, so a
 * batch of one is a plain run (its signal and timeout are the job's), and code that calls a
 * definition's `handle` works with either kind. Throws the job's error; returns its result.
 */
export function handleAsBatchOfOne<P>(
  type: string,
  handleBatch: BatchHandler<P>,
): (payload: P, ctx: JobContext) => Promise<unknown> {
  return async (payload, ctx) => {
    const result = await handleBatch([{ id: ctx.id, payload, ctx }], {
      type: ctx.type,
      queue: ctx.queue,
      signal: ctx.signal,
      log: ctx.log,
    });
    const [end] = batchEnds(type, result, 1) as [JobEnd];
    if ('error' in end) throw end.error;
    return end.value;
  };
}
