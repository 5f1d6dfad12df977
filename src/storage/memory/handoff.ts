/**
 * The hand-off of freed capped slots for the memory provider (`JobStore.settleAndClaim`): mirrors
 * settle_archive_claim.sql — per capped queue the worker serves and whose slots the archive freed,
 * the queue's next due pending jobs without a key, as many as it freed (never more than the
 * queue's room); those of the worker's types, at most the request's limit in all, in claim order,
 * are claimed for the worker (fetched: it records their starts as it does a claim's).
 *
 * @internal
 */
import type { HotJob } from '../model.js';
import type { HandoffRequest } from '../job-store.js';
import { activeByQueue, compareClaimOrder, isEligible } from './claim.js';
import { readKeyState } from './key-lines.js';
import { Smallest } from './smallest.js';
import type { Tables } from './tables.js';

/** What a hand-off did. */
export interface Handed {
  /** The stored rows started for the worker, in claim order (the caller copies them). */
  started: HotJob[];
  /** Queues whose freed room was all taken: nobody else need be woken. */
  filled: Set<string>;
}

/**
 * Claims, for `handoff.workerId` under `leaseToken`, the next jobs of the capped queues that
 * `archivedQueues` (one entry per archived row) freed slots in.
 */
export function handOff(
  tables: Tables,
  archivedQueues: readonly string[],
  handoff: HandoffRequest,
  leaseToken: string,
  now: Date,
): Handed {
  const served = handoff.queues === null ? null : new Set(handoff.queues);
  const keyed = readKeyState(tables, compareClaimOrder).keyedQueues;
  const freed = new Map<string, number>();
  for (const queue of archivedQueues) {
    const cap = tables.queues.get(queue)?.maxWorkers ?? null;
    if (cap === null || keyed.has(queue) || (served !== null && !served.has(queue))) continue;
    freed.set(queue, (freed.get(queue) ?? 0) + 1);
  }
  if (freed.size === 0 || handoff.limit < 1) return { started: [], filled: new Set() };
  const active = activeByQueue(tables);
  const room = new Map<string, number>();
  const next = new Map<string, Smallest<HotJob>>();
  for (const [queue, n] of freed) {
    const { maxWorkers, paused, active: open } = tables.queues.get(queue) ?? {};
    // Paused or inactive queues hand nothing over (and keep their wake-up).
    if (paused === true || open === false) continue;
    const left = (maxWorkers ?? 0) - (active.get(queue) ?? 0);
    room.set(queue, left);
    if (Math.min(n, left) > 0) next.set(queue, new Smallest(Math.min(n, left), compareClaimOrder));
  }
  for (const row of tables.hot.values()) {
    if (row.concurrencyKey !== null || !isEligible(tables, row, null, null, now)) continue;
    next.get(row.queue)?.offer(row);
  }
  const candidates = [...next.values()].flatMap((best) => best.sorted());
  // The queue's next jobs whatever their type; only the worker's are taken (see the SQL).
  const types = handoff.types ? new Set(handoff.types.map((type) => type.toLowerCase())) : null;
  const picked = candidates
    .filter((row) => types === null || types.has(row.type.toLowerCase()))
    .sort(compareClaimOrder)
    .slice(0, handoff.limit);
  for (const row of picked) {
    row.state = 'fetched';
    row.workerId = handoff.workerId;
    row.leaseToken = leaseToken;
    row.updatedAt = new Date(now);
    tables.changedHot(row);
  }
  const started = picked;
  const filled = new Set<string>();
  for (const [queue, left] of room) {
    if (left <= started.filter((row) => row.queue === queue).length) filled.add(queue);
  }
  return { started, filled };
}
