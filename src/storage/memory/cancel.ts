/**
 * Operator cancel for the memory provider: jobs that are not running go to the DLQ at once; running
 * jobs get a persisted cancel request that their owner sees at its next heartbeat (and that rescue
 * finishes if the run is lost).
 *
 * @internal
 */
import type { CancelResult } from '../model.js';
import { moveToDead } from './settle.js';
import type { Tables } from './tables.js';

/**
 * Cancels hot rows by id, each id once, in input order. Pending and fetched rows move to the DLQ
 * as `Cancelled` with `Cancelled by <actor>` (lastModifiedBy `actor`, failed counter, failure
 * bucket); processing rows keep running but carry a cancel request (the first request's time and
 * actor are kept; a new request also stamps `updatedAt`). Ids not in the hot table are ignored,
 * and with `versions` (a bulk action's snapshot) so are rows whose version differs.
 */
export function cancelJobs(
  tables: Tables,
  ids: readonly string[],
  actor: string,
  now: Date,
  versions?: ReadonlyMap<string, number>,
): CancelResult {
  const result: CancelResult = { cancelled: [], requested: [] };
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    const row = tables.hot.get(id);
    if (row === undefined) continue;
    const expected = versions?.get(id);
    if (expected !== undefined && tables.hotVersion(id) !== expected) continue;
    if (row.state === 'processing') {
      if (row.cancelRequestedAt === null) {
        row.cancelRequestedAt = new Date(now);
        row.cancelRequestedBy = actor;
        row.updatedAt = new Date(now);
      }
      result.requested.push(id);
    } else {
      moveToDead(tables, row, now, 'Cancelled', `Cancelled by ${actor}`, actor);
      result.cancelled.push(id);
    }
  }
  return result;
}
