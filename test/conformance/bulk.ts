/**
 * Conformance of the audit side of the `BulkStore`: `recordAction` and `listActions`, entries
 * listed in the order they were recorded whatever the writers' clocks said. The bulk actions
 * themselves (create, start, batches, skips, cancel) have no conformance tests yet.
 * Registered by `describeStoreConformance` (suite.ts) for every provider.
 */
import { describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/util/uuid.js';
import type { ConformanceContext } from './context.js';

/** Registers the bulk-store conformance tests; call inside the provider's `describe`. */
export function describeBulkStore(ctx: ConformanceContext): void {
  describe('audit trail', () => {
    it("lists entries in the order they were recorded, whatever the writers' clocks said", async () => {
      const store = ctx.store();
      // Three writers whose clocks disagree: each later entry has an older UUIDv7.
      const hour = 3_600_000;
      const at = Date.now();
      const recorded = [uuidv7(at), uuidv7(at - hour), uuidv7(at - 2 * hour)];
      for (const [k, id] of recorded.entries()) {
        await store.bulk.recordAction({
          id,
          actor: 'a',
          action: `step-${k}`,
          reason: null,
          target: {},
          outcome: {},
        });
      }
      const newestFirst = [...recorded].reverse();
      expect((await store.bulk.listActions(10)).map((e) => e.id)).toEqual(newestFirst);
      // Paged by the last entry of the previous page.
      expect((await store.bulk.listActions(1, newestFirst[0])).map((e) => e.id)).toEqual([
        newestFirst[1],
      ]);
      expect((await store.bulk.listActions(10, newestFirst[1])).map((e) => e.id)).toEqual([
        newestFirst[2],
      ]);
      expect(await store.bulk.listActions(10, newestFirst[2])).toEqual([]);
    });
  });
}
