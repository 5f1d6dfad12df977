import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../src/index.js';

describe('RateLimitedError', () => {
  it('measures an `until` on the clock it is asked with, never below zero', () => {
    const until = new Date(Date.UTC(2030, 0, 1, 12, 0, 0));
    const error = new RateLimitedError('429', { until });
    expect(error.until).toEqual(until);
    expect(error.waitMs(until.getTime() - 1500)).toBe(1500);
    expect(error.waitMs(until.getTime() + 10)).toBe(0);
  });

  it('waits `retryAfter`, or a second, whatever the clock says', () => {
    expect(new RateLimitedError('429', { retryAfter: '2s' }).waitMs(0)).toBe(2000);
    expect(new RateLimitedError('429').waitMs(123)).toBe(1000);
    expect(new RateLimitedError('429', { until: new Date(Number.NaN) }).until).toBeUndefined();
  });
});
