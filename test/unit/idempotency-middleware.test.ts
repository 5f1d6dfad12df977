import { beforeEach, describe, expect, it } from 'vitest';
import type { JobContext } from '../../src/job/context.js';
import { ThrottledError } from '../../src/job/errors.js';
import { classifyFailure } from '../../src/job/classify.js';
import { idempotency } from '../../src/idempotency/middleware.js';
import type { IdempotencyOutcome } from '../../src/runtime/idempotency-outcome.js';
import { silentLogger, type Logger } from '../../src/observability/logging/logger.js';
import type { IdempotencyClaims } from '../../src/storage/idempotency.js';
import { MemoryIdempotencyClaims } from '../../src/storage/memory/idempotency-claims.js';
import { FakeClock } from '../../src/util/clock.js';

const START = Date.UTC(2026, 0, 1, 12, 0, 0);

interface FakeContext extends JobContext {
  skipped: string[];
  warnings: string[];
}

function context(id: string): FakeContext {
  const skipped: string[] = [];
  const warnings: string[] = [];
  const log: Logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
  return {
    id,
    type: 'test.v1',
    queue: 'default',
    attempt: 1,
    createdAt: new Date(START),
    signal: new AbortController().signal,
    progress: () => Promise.resolve(),
    dependencies: () => Promise.resolve([]),
    step: async <T>(_name: string, fn: () => T | Promise<T>) => fn(),
    sleep: () => Promise.resolve(),
    waitForEvent: () => Promise.resolve({ received: false as const }),
    batch: () => Promise.resolve(null),
    log,
    skip: (reason: string) => void skipped.push(reason),
    skipped,
    warnings,
  };
}

const byKey = (_ctx: JobContext, payload: unknown): string | null =>
  (payload as { key: string | null }).key;

describe('idempotency middleware', () => {
  let clock: FakeClock;
  let claims: MemoryIdempotencyClaims;
  let outcomes: IdempotencyOutcome[];
  let runs: number;

  beforeEach(() => {
    clock = new FakeClock(START);
    claims = new MemoryIdempotencyClaims(clock);
    outcomes = [];
    runs = 0;
  });

  const handler = (): Promise<void> => {
    runs += 1;
    return Promise.resolve();
  };

  function middleware(extra: Partial<Parameters<typeof idempotency>[0]> = {}) {
    return idempotency({
      claims,
      key: byKey,
      onOutcome: (outcome) => outcomes.push(outcome),
      ...extra,
    });
  }

  it('runs without a claim when the key is null or blank', async () => {
    const mw = middleware();
    await mw(context('a'), { key: null }, handler);
    await mw(context('b'), { key: '   ' }, handler);
    expect(runs).toBe(2);
    expect(outcomes).toEqual(['not_idempotent', 'not_idempotent']);
  });

  it('runs the first job and skips a later duplicate with a visible note', async () => {
    const mw = middleware();
    await mw(context('first'), { key: 'order-1' }, handler);
    clock.advance(1000);
    const duplicate = context('second');
    await mw(duplicate, { key: ' order-1 ' }, handler); // keys are trimmed
    expect(runs).toBe(1);
    expect(duplicate.skipped).toEqual([
      `duplicate of job first, completed ${new Date(START).toISOString()}`,
    ]);
    expect(outcomes).toEqual(['claimed', 'completed', 'completed_duplicate']);
  });

  it('defers a duplicate whose key is in progress in another job', async () => {
    const mw = middleware({ inProgressTtl: '2s' });
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const first = mw(context('first'), { key: 'k' }, async () => {
      runs += 1;
      await blocked;
    });
    await Promise.resolve(); // let the first run claim the key
    await new Promise((resolve) => setImmediate(resolve));
    const error: unknown = await mw(context('second'), { key: 'k' }, handler).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ThrottledError);
    expect((error as ThrottledError).message).toContain('in progress in job first');
    expect(classifyFailure(error)).toEqual({ kind: 'throttled', retryAfterMs: 2000 });
    release();
    await first;
    expect(runs).toBe(1);
    expect(outcomes).toEqual(['claimed', 'in_progress_duplicate', 'completed']);
  });

  it('caps the deferral of an in-progress duplicate at 5 s', async () => {
    await claims.begin('k', 'other', 60_000);
    const error = await middleware()(context('mine'), { key: 'k' }, handler).catch(
      (e: unknown) => e,
    );
    expect((error as ThrottledError).retryAfterMs).toBe(5000);
  });

  it('runs a retry of the job that already holds the claim', async () => {
    await claims.begin('k', 'crashed', 60_000);
    await middleware()(context('crashed'), { key: 'k' }, handler);
    expect(runs).toBe(1);
    expect(outcomes).toEqual(['claimed', 'completed']);
  });

  it('releases the claim when the handler throws, so the retry runs', async () => {
    const mw = middleware();
    const boom = new Error('boom');
    await expect(mw(context('j'), { key: 'k' }, () => Promise.reject(boom))).rejects.toBe(boom);
    expect(outcomes).toEqual(['claimed', 'released']);
    await mw(context('j'), { key: 'k' }, handler);
    expect(runs).toBe(1);
    expect(await claims.begin('k', 'other', 1000)).toMatchObject({ status: 'completed' });
  });

  it('remembers the result for resultTtl', async () => {
    const mw = middleware({ resultTtl: '1m' });
    await mw(context('a'), { key: 'k' }, handler);
    clock.advance(59_999);
    await mw(context('b'), { key: 'k' }, handler);
    clock.advance(1);
    await mw(context('c'), { key: 'k' }, handler);
    expect(runs).toBe(2);
  });

  it('succeeds with a warning when the completion conflicts (G21)', async () => {
    const mw = middleware({ inProgressTtl: 100 });
    const ctx = context('slow');
    await mw(ctx, { key: 'k' }, async () => {
      runs += 1;
      clock.advance(100); // the claim expires during the run…
      await claims.begin('k', 'taker', 60_000); // …and another job takes it over
    });
    expect(runs).toBe(1);
    expect(outcomes).toEqual(['claimed', 'complete_conflict']);
    expect(ctx.warnings.join('\n')).toContain('no longer held');
  });

  it('succeeds with a warning when recording the completion fails', async () => {
    const failing: IdempotencyClaims = {
      begin: () => Promise.resolve({ status: 'claimed' }),
      complete: () => Promise.reject(new Error('database down')),
      release: () => Promise.resolve(true),
      purgeExpired: () => Promise.resolve(0),
    };
    const ctx = context('j');
    await middleware({ claims: failing })(ctx, { key: 'k' }, handler);
    expect(runs).toBe(1);
    expect(outcomes).toEqual(['claimed', 'complete_conflict']);
    expect(ctx.warnings).toHaveLength(1);
  });

  it('fails the job for good when the key can never be stored', async () => {
    const error = await middleware()(context('j'), { key: 'x'.repeat(256) }, handler).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'CHOKAQ_INVALID_IDEMPOTENCY_KEY' });
    expect(classifyFailure(error)).toEqual({ kind: 'fatal' });
    expect(runs).toBe(0);
  });

  it('validates the TTLs when built, never after a handler ran', () => {
    const build = (extra: Partial<Parameters<typeof idempotency>[0]>) => () => middleware(extra);
    const invalid = { code: 'CHOKAQ_INVALID_CONFIG' };
    expect(build({ resultTtl: '2h', maxResultTtl: '1h' })).toThrow(
      expect.objectContaining(invalid),
    );
    expect(build({ resultTtl: '1s', minResultTtl: '1m' })).toThrow(
      expect.objectContaining(invalid),
    );
    expect(build({ maxResultTtl: '1h' })).toThrow(expect.objectContaining(invalid)); // forever > max
    expect(build({ minResultTtl: '2h', maxResultTtl: '1h', resultTtl: '1h' })).toThrow(
      expect.objectContaining(invalid),
    );
    expect(build({ inProgressTtl: 0 })).toThrow(expect.objectContaining(invalid));
    expect(build({ inProgressTtl: 'soon' as never })).toThrow(
      expect.objectContaining({ code: 'CHOKAQ_INVALID_DURATION' }),
    );
    expect(build({ claims: undefined as never })).toThrow(expect.objectContaining(invalid));
    expect(build({ key: 'k' as never })).toThrow(expect.objectContaining(invalid));
    expect(build({ resultTtl: '1h', minResultTtl: '1h', maxResultTtl: '1h' })).not.toThrow();
    expect(build({ resultTtl: null })).not.toThrow();
  });
});
