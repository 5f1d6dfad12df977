/**
 * Conformance of `ClusterStore.broadcast` / `subscribe`, the channel of cross-process events: a message
 * reaches every subscriber of the store — the sender's own too — in order, and an unsubscribed
 * listener hears nothing more. Registered by `describeStoreConformance` in suite.ts.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import type { ConformanceContext } from './context.js';

/** Registers the broadcast conformance tests; call inside the provider's `describe`. */
export function describeBroadcast(ctx: ConformanceContext): void {
  describe('broadcast', () => {
    it('delivers each message to every subscriber, in order; stops after unsubscribe', async () => {
      const store = ctx.store();
      const first: string[] = [];
      const second: string[] = [];
      const stopFirst = await store.cluster.subscribe((m) => first.push(m));
      const stopSecond = await store.cluster.subscribe((m) => second.push(m));
      await store.cluster.broadcast('one');
      await store.cluster.broadcast('two {"json":true}');
      await waitFor(() => first.length === 2 && second.length === 2, {
        message: 'both messages at both subscribers',
      });
      expect(first).toEqual(['one', 'two {"json":true}']);
      expect(second).toEqual(first);
      await stopFirst();
      await store.cluster.broadcast('three');
      await waitFor(() => second.length === 3, { message: 'the third message' });
      expect(first).toHaveLength(2);
      await stopSecond();
    });
  });
}
