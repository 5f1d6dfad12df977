import { describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  resolveRetryPolicy,
  type RetryOptions,
  type RetryPolicy,
} from '../../src/job/retry.js';

const NO_JITTER: RetryPolicy = { ...DEFAULT_RETRY_POLICY, jitterMs: 0 };

function configError(options: RetryOptions, base?: RetryPolicy): ChokaQError {
  try {
    resolveRetryPolicy(options, base);
  } catch (error) {
    if (error instanceof ChokaQError) return error;
    throw error;
  }
  throw new Error(`resolveRetryPolicy accepted ${JSON.stringify(options)}`);
}

describe('DEFAULT_RETRY_POLICY', () => {
  it('matches the documented defaults', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      maxAttempts: 3,
      baseDelayMs: 3000,
      multiplier: 2,
      maxDelayMs: 3_600_000,
      jitterMs: 1000,
      maxAgeMs: 86_400_000,
    });
  });
});

describe('backoffDelayMs', () => {
  it('doubles from 3 s with the defaults and no jitter', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((n) => backoffDelayMs(NO_JITTER, n));
    expect(delays).toEqual([3000, 6000, 12_000, 24_000, 48_000, 96_000]);
  });

  it('treats failedRuns below 1 like the first failed run', () => {
    expect(backoffDelayMs(NO_JITTER, 0)).toBe(3000);
  });

  it('caps the delay at maxDelay', () => {
    expect(backoffDelayMs(NO_JITTER, 20)).toBe(3_600_000);
    expect(backoffDelayMs(NO_JITTER, 1000)).toBe(3_600_000);
    // 3000 × 2^10 = 3_072_000 is still below the cap, 2^11 is not.
    expect(backoffDelayMs(NO_JITTER, 11)).toBe(3_072_000);
    expect(backoffDelayMs(NO_JITTER, 12)).toBe(3_600_000);
  });

  it('adds no jitter once the delay is capped, whatever the random source says', () => {
    expect(backoffDelayMs(DEFAULT_RETRY_POLICY, 20, () => 0.999)).toBe(3_600_000);
  });

  it('adds jitter from the injected random source', () => {
    expect(backoffDelayMs(DEFAULT_RETRY_POLICY, 1, () => 0)).toBe(3000);
    expect(backoffDelayMs(DEFAULT_RETRY_POLICY, 1, () => 0.5)).toBe(3500);
    expect(backoffDelayMs(DEFAULT_RETRY_POLICY, 2, () => 0.25)).toBe(6250);
  });

  it('calls the random source once per jittered delay', () => {
    let calls = 0;
    backoffDelayMs(DEFAULT_RETRY_POLICY, 1, () => {
      calls += 1;
      return 0.1;
    });
    expect(calls).toBe(1);
  });

  it('clips jitter so the delay never exceeds maxDelay', () => {
    const policy = resolveRetryPolicy({ baseDelay: 1000, maxDelay: 1200, jitter: '1s' });
    // capped = 1000, room for jitter = min(1000, 1200 - 1000) = 200
    expect(backoffDelayMs(policy, 1, () => 0.5)).toBe(1100);
    expect(backoffDelayMs(policy, 1, () => 0.999_999)).toBeLessThanOrEqual(1200);
    expect(backoffDelayMs(policy, 1, () => 0.999_999)).toBeGreaterThan(1190);
    // second failure: 2000 → capped at 1200, no room for jitter at all
    expect(backoffDelayMs(policy, 2, () => 0.999_999)).toBe(1200);
  });

  it('stays within [capped, capped + jitter] and ≤ maxDelay for many random values', () => {
    const policy = resolveRetryPolicy({ baseDelay: '1s', maxDelay: '10s', jitter: '5s' });
    for (let failedRuns = 1; failedRuns <= 6; failedRuns += 1) {
      const capped = Math.min(1000 * 2 ** (failedRuns - 1), 10_000);
      for (const r of [0, 0.1, 0.5, 0.9, 0.999_999]) {
        const delay = backoffDelayMs(policy, failedRuns, () => r);
        expect(delay).toBeGreaterThanOrEqual(capped);
        expect(delay).toBeLessThanOrEqual(Math.min(capped + 5000, 10_000));
      }
    }
  });

  it('keeps a constant delay with multiplier 1', () => {
    const policy = resolveRetryPolicy({ multiplier: 1, jitter: 0 });
    expect([1, 2, 10].map((n) => backoffDelayMs(policy, n))).toEqual([3000, 3000, 3000]);
  });
});

describe('resolveRetryPolicy', () => {
  it('returns the defaults for undefined and empty options', () => {
    expect(resolveRetryPolicy(undefined)).toEqual(DEFAULT_RETRY_POLICY);
    expect(resolveRetryPolicy({})).toEqual(DEFAULT_RETRY_POLICY);
  });

  it('converts durations to milliseconds', () => {
    expect(
      resolveRetryPolicy({
        maxAttempts: 5,
        baseDelay: '500ms',
        multiplier: 3,
        maxDelay: '2m',
        jitter: '0.25s',
        maxAge: '2h',
      }),
    ).toEqual({
      maxAttempts: 5,
      baseDelayMs: 500,
      multiplier: 3,
      maxDelayMs: 120_000,
      jitterMs: 250,
      maxAgeMs: 7_200_000,
    });
  });

  it('fills absent options from the given base policy', () => {
    const base = resolveRetryPolicy({ maxAttempts: 7, baseDelay: '10s', maxAge: null });
    const policy = resolveRetryPolicy({ multiplier: 4 }, base);
    expect(policy).toEqual({ ...base, multiplier: 4 });
    expect(policy.maxAttempts).toBe(7);
    expect(policy.maxAgeMs).toBeNull();
  });

  it('disables maxAge with null, also over a base that has one', () => {
    expect(resolveRetryPolicy({ maxAge: null }).maxAgeMs).toBeNull();
    expect(
      resolveRetryPolicy({ maxAge: null }, { ...DEFAULT_RETRY_POLICY, maxAgeMs: 5000 }).maxAgeMs,
    ).toBeNull();
  });

  it('allows jitter 0', () => {
    expect(resolveRetryPolicy({ jitter: 0 }).jitterMs).toBe(0);
  });

  it.each<[string, RetryOptions, string, string]>([
    ['maxAttempts 0', { maxAttempts: 0 }, 'maxAttempts', 'CHOKAQ_INVALID_CONFIG'],
    ['maxAttempts -1', { maxAttempts: -1 }, 'maxAttempts', 'CHOKAQ_INVALID_CONFIG'],
    ['maxAttempts 1.5', { maxAttempts: 1.5 }, 'maxAttempts', 'CHOKAQ_INVALID_CONFIG'],
    ['multiplier 0.5', { multiplier: 0.5 }, 'multiplier', 'CHOKAQ_INVALID_CONFIG'],
    ['multiplier NaN', { multiplier: Number.NaN }, 'multiplier', 'CHOKAQ_INVALID_CONFIG'],
    ['baseDelay 0', { baseDelay: 0 }, 'baseDelay', 'CHOKAQ_INVALID_DURATION'],
    [
      'maxDelay < baseDelay',
      { baseDelay: '10s', maxDelay: '5s' },
      'maxDelay',
      'CHOKAQ_INVALID_CONFIG',
    ],
    ['maxDelay beyond int32', { maxDelay: 2_147_483_648 }, 'maxDelay', 'CHOKAQ_INVALID_DURATION'],
    ['maxAge 0', { maxAge: 0 }, 'maxAge', 'CHOKAQ_INVALID_DURATION'],
    ['an unknown key', { maxAttempt: 3 } as RetryOptions, 'maxAttempt', 'CHOKAQ_UNKNOWN_OPTION'],
  ])('rejects %s with a code naming the option', (_label, options, name, code) => {
    const error = configError(options);
    expect(error.code).toBe(code);
    expect(error.field).toBe(`retry.${name}`);
    expect(error.message).toContain(`retry.${name}`);
  });

  it('accepts the boundary values', () => {
    const policy = resolveRetryPolicy({
      maxAttempts: 1,
      multiplier: 1,
      baseDelay: 1,
      maxDelay: 1,
      maxAge: 1,
    });
    expect(policy).toMatchObject({
      maxAttempts: 1,
      multiplier: 1,
      baseDelayMs: 1,
      maxDelayMs: 1,
      maxAgeMs: 1,
    });
    expect(resolveRetryPolicy({ maxDelay: 2_147_483_647 }).maxDelayMs).toBe(2_147_483_647);
  });

  it('names the offending value with its type', () => {
    expect(configError({ maxAttempts: 0 }).message).toBe(
      'retry.maxAttempts must be an integer from 1 to 1000000, got 0 (number)',
    );
  });

  it('checks maxDelay against a baseDelay inherited from the base policy', () => {
    const base = resolveRetryPolicy({ baseDelay: '1m' });
    expect(configError({ maxDelay: '30s' }, base).code).toBe('CHOKAQ_INVALID_CONFIG');
  });
});
