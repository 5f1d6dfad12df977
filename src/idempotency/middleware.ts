/**
 * The idempotency middleware (SPEC F98–F99, §4.8, §7 G21): at most one job runs the side effects
 * of an idempotency key at a time, and once one succeeded, later jobs with the same key are
 * archived as visible duplicates instead of running again (for as long as the result TTL).
 *
 * Unlike the enqueue-level `idempotencyKey` (which only dedupes while a job is active), the claim
 * outlives the job, and the key may be derived from the payload at run time.
 */
import { logEvent } from '../observability/logging/log-events.js';
import { ChokaQError } from '../errors.js';
import type { JobContext } from '../job/context.js';
import { normalizeIdempotencyKey } from '../job/envelope.js';
import { ThrottledError } from '../job/errors.js';
import type { Middleware } from '../runtime/middleware.js';
import { RunContext } from '../runtime/run-context.js';
import type { IdempotencyClaims } from '../storage/idempotency.js';
import { checkOptions } from '../util/check.js';
import { toMs, type Duration } from '../util/duration.js';
import type { IdempotencyOutcome } from '../runtime/idempotency-outcome.js';

/** Options of {@link idempotency}. */
export interface IdempotencyOptions {
  /** Where claims live, for example `storage.idempotencyClaims`. */
  claims: IdempotencyClaims;
  /**
   * The idempotency key of a run. `null`, `undefined` or a blank string: the job is not
   * idempotent and runs normally. The key is trimmed and may be at most 255 characters.
   */
  key: (ctx: JobContext, payload: unknown) => string | null | undefined;
  /**
   * How long a claim protects a running job. Keep it above the longest run (including its
   * timeout): once it passes, another job with the same key may claim the key and run too.
   * @default '30m'
   */
  inProgressTtl?: Duration;
  /**
   * How long a completed key is remembered; `null` remembers it forever.
   * @default null
   */
  resultTtl?: Duration | null;
  /**
   * Smallest allowed `resultTtl`, checked when the middleware is built.
   * @default 0
   */
  minResultTtl?: Duration;
  /**
   * Largest allowed `resultTtl`, checked when the middleware is built. With it, `resultTtl` must
   * be given (remembering forever exceeds any maximum).
   * @default no limit
   */
  maxResultTtl?: Duration;
  /**
   * Called once per decision (a run may report `claimed` and then `completed`), for metrics. A
   * throw from it is logged and ignored.
   * @default no callback
   */
  onOutcome?: (outcome: IdempotencyOutcome, ctx: JobContext) => void;
}

/** The in-progress TTL when none is given. */
const DEFAULT_IN_PROGRESS_TTL: Duration = '30m';
/** Longest wait before a deferred duplicate looks again. */
const MAX_DUPLICATE_RETRY_MS = 5000;

/**
 * Builds the idempotency middleware. Register it last in `middleware` (innermost, next to the
 * handler) unless outer layers should also run only once per key.
 *
 * Per run, with a key:
 * - key claimed (or still held by this same job from an earlier attempt, for example after a
 *   crash) → the handler runs; on success the key is completed for `resultTtl`, on a throw the
 *   claim is released and the error rethrown, so the retry can claim it again;
 * - key completed → the handler is skipped via `ctx.skip(…)`: the job is archived with the note
 *   `duplicate of job <id>, completed <time>` and a `job:skipped` event;
 * - key in progress in another job → the run throws a {@link ThrottledError} with `retryAfter`
 *   = min(`inProgressTtl`, 5 s). The original skips such a duplicate instead, but if the first
 *   job then failed for good, the duplicate's work would be lost; deferred, it runs again later
 *   and either finds the completion (and is archived as a duplicate) or claims the released key.
 *   It uses the job's attempts like any throttle, so give such jobs enough of them.
 *
 * Completion conflicts (the claim expired during the run and was taken over) are logged as
 * warnings and the run still succeeds: the side effects happened, failing it would only cause
 * them to happen again (§7 G21).
 *
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` when `claims` or `key` is missing, `inProgressTtl`
 *   is 0, `minResultTtl` > `maxResultTtl`, or `resultTtl` lies outside them; `CHOKAQ_INVALID_DURATION`
 *   when a duration cannot be parsed. All checked here, never after a handler ran.
 */
export function idempotency(options: IdempotencyOptions): Middleware {
  const settings = resolveOptions(options);
  const { claims, keyOf, inProgressTtlMs, resultTtlMs } = settings;
  const report = (outcome: IdempotencyOutcome, ctx: JobContext): void => {
    // A context ChokaQ made counts into its instance's metrics; a hand-made one (tests) cannot.
    if (ctx instanceof RunContext) ctx.idempotencyOutcome(outcome);
    if (settings.onOutcome === undefined) return;
    try {
      settings.onOutcome(outcome, ctx);
    } catch (error) {
      ctx.log.warn('idempotency onOutcome callback threw', {
        ...logEvent('IdempotencyOutcomeCallbackFailed'),
        error: String(error),
      });
    }
  };

  return async (ctx, payload, next) => {
    const key = runKey(keyOf, ctx, payload);
    if (key === null) {
      report('not_idempotent', ctx);
      return next();
    }

    const begun = await claims.begin(key, ctx.id, inProgressTtlMs);
    if (begun.status === 'completed') {
      report('completed_duplicate', ctx);
      ctx.skip(`duplicate of job ${begun.jobId}, completed ${begun.completedAt.toISOString()}`);
      return;
    }
    if (begun.status === 'in-progress' && begun.jobId !== ctx.id) {
      report('in_progress_duplicate', ctx);
      throw new ThrottledError(
        `idempotency key ${JSON.stringify(key)} is in progress in job ${begun.jobId}`,
        { retryAfter: Math.min(inProgressTtlMs, MAX_DUPLICATE_RETRY_MS) },
      );
    }
    // Claimed now, or held by this job since an earlier attempt that never finished.
    report('claimed', ctx);

    try {
      await next();
    } catch (error) {
      try {
        const released = await claims.release(key, ctx.id);
        if (released) report('released', ctx);
      } catch (releaseError) {
        // The claim then expires after inProgressTtl; the run's own error is what matters.
        ctx.log.warn('could not release the idempotency claim', {
          ...logEvent('IdempotencyReleaseFailed'),
          key,
          error: String(releaseError),
        });
      }
      throw error;
    }

    let completed: boolean;
    try {
      completed = await claims.complete(key, ctx.id, resultTtlMs);
    } catch (error) {
      // Same reasoning as a conflict: the side effects happened, so the run must not fail.
      ctx.log.warn('could not record the idempotency completion', {
        ...logEvent('IdempotencyCompletionFailed'),
        key,
        error: String(error),
      });
      report('complete_conflict', ctx);
      return;
    }
    if (completed) {
      report('completed', ctx);
    } else {
      ctx.log.warn(
        'idempotency claim was no longer held when the job completed (inProgressTtl too short?); completion not recorded',
        { ...logEvent('IdempotencyClaimLost'), key, inProgressTtlMs },
      );
      report('complete_conflict', ctx);
    }
  };
}

/** {@link IdempotencyOptions} checked and converted to ms. */
interface ResolvedOptions {
  claims: IdempotencyClaims;
  keyOf: IdempotencyOptions['key'];
  inProgressTtlMs: number;
  resultTtlMs: number | null;
  onOutcome: IdempotencyOptions['onOutcome'];
}

const OPTION_KEYS = [
  'claims',
  'key',
  'inProgressTtl',
  'resultTtl',
  'minResultTtl',
  'maxResultTtl',
  'onOutcome',
] as const satisfies readonly (keyof IdempotencyOptions)[];

function resolveOptions(options: IdempotencyOptions): ResolvedOptions {
  if (options === undefined) throw invalid('idempotency() needs options: { claims, key }');
  checkOptions(options, 'idempotency(options)', OPTION_KEYS);
  const claims: unknown = options.claims;
  if (
    typeof claims !== 'object' ||
    claims === null ||
    typeof (claims as Partial<IdempotencyClaims>).begin !== 'function'
  ) {
    throw invalid('idempotency() needs claims, for example storage.idempotencyClaims');
  }
  if (typeof options.key !== 'function') {
    throw invalid('idempotency() needs a key function: (ctx, payload) => string | null');
  }
  if (options.onOutcome !== undefined && typeof options.onOutcome !== 'function') {
    throw invalid('idempotency onOutcome must be a function');
  }
  const inProgressTtlMs = toMs(
    options.inProgressTtl ?? DEFAULT_IN_PROGRESS_TTL,
    'idempotency.inProgressTtl',
  );
  if (inProgressTtlMs === 0) throw invalid('idempotency inProgressTtl must be above 0');
  const resultTtlMs =
    options.resultTtl === undefined || options.resultTtl === null
      ? null
      : toMs(options.resultTtl, 'idempotency.resultTtl');
  const minMs =
    options.minResultTtl === undefined ? 0 : toMs(options.minResultTtl, 'idempotency.minResultTtl');
  const maxMs =
    options.maxResultTtl === undefined
      ? null
      : toMs(options.maxResultTtl, 'idempotency.maxResultTtl');
  if (maxMs !== null && minMs > maxMs) {
    throw invalid(`idempotency minResultTtl (${minMs} ms) exceeds maxResultTtl (${maxMs} ms)`);
  }
  if (resultTtlMs === null && maxMs !== null) {
    throw invalid(
      `idempotency resultTtl is null (forever), above maxResultTtl (${maxMs} ms); set a resultTtl`,
    );
  }
  if (resultTtlMs !== null && (resultTtlMs < minMs || (maxMs !== null && resultTtlMs > maxMs))) {
    throw invalid(
      `idempotency resultTtl (${resultTtlMs} ms) must lie within [${minMs} ms, ${
        maxMs === null ? 'no limit' : `${maxMs} ms`
      }]`,
    );
  }
  return {
    claims: claims as IdempotencyClaims,
    keyOf: options.key,
    inProgressTtlMs,
    resultTtlMs,
    onOutcome: options.onOutcome,
  };
}

/**
 * The trimmed key of one run, or `null` when it has none. A key that can never be stored (not a
 * string, or too long) fails the job for good: retrying would compute the same key.
 */
function runKey(
  keyOf: IdempotencyOptions['key'],
  ctx: JobContext,
  payload: unknown,
): string | null {
  const raw: unknown = keyOf(ctx, payload);
  if (raw === null || raw === undefined) return null;
  try {
    if (typeof raw !== 'string') {
      throw new ChokaQError(
        'CHOKAQ_INVALID_IDEMPOTENCY_KEY',
        `idempotency key function returned ${typeof raw}, expected a string, null or undefined`,
      );
    }
    return normalizeIdempotencyKey(raw);
  } catch (error) {
    // `fatal: true` sends the job to the DLQ with reason Fatal, keeping the stable code.
    throw Object.assign(error as ChokaQError, { fatal: true });
  }
}

function invalid(message: string): ChokaQError {
  return new ChokaQError('CHOKAQ_INVALID_CONFIG', message);
}
