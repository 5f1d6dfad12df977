/**
 * Conformance tests of rate buckets (`Store.rateLimits`): a new bucket starts full, draws never
 * grant more than the bucket holds (also when concurrent), tokens refill with time, a block
 * refuses every draw until it ends, and operators see each bucket's counts. Registered by
 * `describeStoreConformance` in suite.ts for every provider.
 */
import { describe, expect, it } from 'vitest';
import type { ConformanceContext } from './context.js';
import { failure } from '../helpers/failure.js';

const HOUR = 3_600_000;

/** Registers the rate-bucket conformance tests; call inside the provider's `describe`. */
export function describeRateLimits(ctx: ConformanceContext): void {
  describe('rate buckets', () => {
    it('starts full, grants what it holds and tells how long until the next token', async () => {
      const rates = ctx.store().rateLimits;
      expect(await rates.take({ name: 'api', limit: 3, perMs: HOUR, count: 2 })).toEqual({
        granted: 2,
        waitMs: 0,
      });
      const short = await rates.take({ name: 'api', limit: 3, perMs: HOUR, count: 2 });
      expect(short.granted).toBe(1);
      expect(short.waitMs).toBeGreaterThan(HOUR / 3 - 60_000);
      expect(short.waitMs).toBeLessThanOrEqual(HOUR / 3);
      const none = await rates.take({ name: 'api', limit: 3, perMs: HOUR, count: 1 });
      expect(none.granted).toBe(0);
      expect(none.waitMs).toBeGreaterThan(0);
      // Another bucket is untouched; a new bucket's first draw past its burst counts as refused.
      expect((await rates.take({ name: 'other', limit: 1, perMs: HOUR, count: 5 })).granted).toBe(
        1,
      );
      const other = (await rates.list(10)).find((bucket) => bucket.name === 'other');
      expect(other).toMatchObject({ grantedTotal: 1, throttledTotal: 1 });
    });

    it('never grants the same token twice to concurrent draws', async () => {
      const rates = ctx.store().rateLimits;
      const grants = await Promise.all(
        Array.from({ length: 20 }, () =>
          rates.take({ name: 'race', limit: 5, perMs: HOUR, count: 1 }),
        ),
      );
      expect(grants.reduce((sum, grant) => sum + grant.granted, 0)).toBe(5);
    });

    it('refills with time at limit per interval', async () => {
      const rates = ctx.store().rateLimits;
      // 1000 per second: a token every millisecond.
      expect(
        (await rates.take({ name: 'fast', limit: 1000, perMs: 1000, count: 1000 })).granted,
      ).toBe(1000);
      const emptied = await ctx.store().cluster.now();
      await ctx.storeTimePasses(emptied.getTime() + 20);
      const later = await rates.take({ name: 'fast', limit: 1000, perMs: 1000, count: 1000 });
      expect(later.granted).toBeGreaterThanOrEqual(1);
      expect(later.granted).toBeLessThan(1000);
    });

    it('refuses every draw while blocked, and lists the bucket with its counts', async () => {
      const rates = ctx.store().rateLimits;
      await rates.take({ name: 'tenant-9', limit: 10, perMs: 1000, count: 4 });
      await rates.block('tenant-9', 10, 1000, HOUR);
      await rates.block('tenant-9', 10, 1000, 1000); // a shorter block keeps the longer one
      const refused = await rates.take({ name: 'tenant-9', limit: 10, perMs: 1000, count: 1 });
      expect(refused).toMatchObject({ granted: 0 });
      expect(refused.waitMs).toBeGreaterThan(HOUR - 60_000);
      const [bucket] = await rates.list(10);
      expect(bucket).toMatchObject({
        name: 'tenant-9',
        limit: 10,
        perMs: 1000,
        grantedTotal: 4,
        throttledTotal: 1,
      });
      expect(bucket?.blockedUntil).toBeInstanceOf(Date);
    });

    it('rejects a bad draw with a coded error naming the field', async () => {
      const rates = ctx.store().rateLimits;
      const codeOf = async (fn: () => Promise<unknown>): Promise<[string, string]> => {
        const error = await failure(fn);
        return [error.code, error.field ?? ''];
      };
      expect(await codeOf(() => rates.take({ name: '', limit: 1, perMs: 1, count: 1 }))).toEqual([
        'CHOKAQ_INVALID_ARGUMENT',
        'rateLimit.key',
      ]);
      expect(await codeOf(() => rates.take({ name: 'x', limit: 0, perMs: 1, count: 1 }))).toEqual([
        'CHOKAQ_INVALID_ARGUMENT',
        'rateLimit.limit',
      ]);
      expect(await codeOf(() => rates.block('x', 1, 0, 10))).toEqual([
        'CHOKAQ_INVALID_ARGUMENT',
        'rateLimit.per',
      ]);
    });
  });
}
