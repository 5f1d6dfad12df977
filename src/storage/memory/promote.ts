/**
 * The scheduled state for the memory provider: which waiting state a due time gives, and the
 * promoter's pass (scheduled → pending once due), as promote.sql does it.
 *
 * @internal
 */
import type { HotState } from '../../job/state.js';
import type { HotJob } from '../model.js';
import type { PromoteResult } from '../job-store.js';
import type { Tables } from './tables.js';

/** The state of a waiting job due `delayMs` from now: later → scheduled, now → pending. */
export function waitingStateOf(delayMs: number): HotState {
  return delayMs > 0 ? 'scheduled' : 'pending';
}

/**
 * Moves at most `limit` scheduled rows whose `runAt` came to pending, oldest due first; their
 * `runAt`, `updatedAt` and version stay (see `JobStore.promote`).
 */
export function promoteDue(tables: Tables, now: Date, limit: number): PromoteResult {
  const at = now.getTime();
  const due: HotJob[] = [];
  let next: number | null = null;
  for (const row of tables.hot.values()) {
    if (row.state !== 'scheduled') continue;
    const runAt = row.runAt.getTime();
    if (runAt <= at) due.push(row);
    else if (next === null || runAt < next) next = runAt;
  }
  due.sort(
    (a, b) => a.runAt.getTime() - b.runAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const counts = new Map<string, number>();
  for (const row of due.slice(0, Math.max(0, limit))) {
    row.state = 'pending';
    counts.set(row.queue, (counts.get(row.queue) ?? 0) + 1);
  }
  const promoted = [...counts]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([queue, count]) => ({ queue, count }));
  // Due rows left over (past the limit) make the next pass due at once.
  const nextDueInMs = due.length > limit ? 0 : next === null ? null : next - at;
  return { promoted, nextDueInMs };
}
