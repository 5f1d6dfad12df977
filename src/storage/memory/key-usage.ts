/**
 * `QueueStore.keyUsage` for the memory provider: per queue and concurrency key, its running and
 * pending jobs, busiest first, as key_usage.sql reads them.
 *
 * @internal
 */
import type { KeyUsage } from '../model.js';
import type { Tables } from './tables.js';

/** The keys in use of `tables`, at most `filter.limit`, only `filter.queue`'s when given. */
export function keyUsageOf(tables: Tables, filter: { queue?: string; limit: number }): KeyUsage[] {
  const byKey = new Map<string, KeyUsage>();
  for (const row of tables.hot.values()) {
    if (row.concurrencyKey === null) continue;
    if (filter.queue !== undefined && row.queue !== filter.queue) continue;
    const id = `${row.queue}\u0000${row.concurrencyKey}`;
    const usage = byKey.get(id) ?? {
      queue: row.queue,
      key: row.concurrencyKey,
      limit: null,
      running: 0,
      pending: 0,
    };
    if (row.state === 'pending' || row.state === 'scheduled') usage.pending += 1;
    else usage.running += 1;
    if (row.concurrencyLimit !== null) {
      usage.limit = Math.max(usage.limit ?? 0, row.concurrencyLimit);
    }
    byKey.set(id, usage);
  }
  const text = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...byKey.values()]
    .sort(
      (a, b) =>
        b.running - a.running ||
        b.pending - a.pending ||
        text(a.queue, b.queue) ||
        text(a.key, b.key),
    )
    .slice(0, filter.limit);
}
