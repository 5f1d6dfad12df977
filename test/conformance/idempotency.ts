/**
 * Conformance of the idempotency claims (`Store.idempotencyClaims`) as the rescue pass keeps
 * them: `JobStore.rescue` deletes the expired claims, reports how many, and leaves live claims
 * held. The claims' own protocol (begin, complete, races, expiry) is tested on PostgreSQL only,
 * directly and through the middleware, in test/pg/idempotency.test.ts. Registered by
 * `describeStoreConformance` (suite.ts).
 */
import { describe, expect, it } from 'vitest';
import type { ConformanceContext } from './context.js';

/** Registers the idempotency-claim conformance tests; call inside the provider's `describe`. */
export function describeIdempotencyClaims(ctx: ConformanceContext): void {
  describe('rescue and idempotency claims', () => {
    it('deletes expired idempotency claims and reports how many', async () => {
      const store = ctx.store();
      const claims = store.idempotencyClaims;
      expect(await claims.begin('order-1', 'job-1', 1)).toEqual({ status: 'claimed' });
      expect(await claims.begin('order-2', 'job-2', 60_000)).toEqual({ status: 'claimed' });
      await ctx.storeTimePasses((await store.cluster.now()).getTime() + 1); // order-1 has expired
      const result = await store.jobs.rescue({
        fetchedTimeoutMs: 60_000,
        processingTimeoutMs: 60_000,
        retryZombieTypes: {},
      });
      expect(result.idempotencyClaimsPurged).toBe(1);
      expect(await claims.purgeExpired()).toBe(0);
      // The live claim is still held.
      expect(await claims.begin('order-2', 'job-3', 60_000)).toEqual({
        status: 'in-progress',
        jobId: 'job-2',
      });
    });
  });
}
