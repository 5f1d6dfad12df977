/**
 * Claim and lease gate for the memory provider. Mirrors the SQL claim: eligible pending rows of
 * the requested types in (priority desc, runAt asc, id asc) order across queues, at most each
 * queue's `maxWorkers` room from a queue, one lease token for the batch.
 *
 * @internal
 */
import type { HotJob } from '../model.js';
import type { ClaimRequest, Lease } from '../store.js';
import { Smallest } from './smallest.js';
import type { Tables } from './tables.js';

/** Claim order: priority desc, then runAt asc, then id asc (code-point order, like `COLLATE "C"`). */
export function compareClaimOrder(a: HotJob, b: HotJob): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  const byRunAt = a.runAt.getTime() - b.runAt.getTime();
  if (byRunAt !== 0) return byRunAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Fetched + processing rows per queue. */
function activeByQueue(tables: Tables): Map<string, number> {
  const active = new Map<string, number>();
  for (const row of tables.hot.values()) {
    if (row.state !== 'pending') active.set(row.queue, (active.get(row.queue) ?? 0) + 1);
  }
  return active;
}

/**
 * Whether a pending row may be claimed now, ignoring the `maxWorkers` cap. A row carrying a cancel
 * request is never claimed: rescue moves it to the DLQ instead.
 */
function isEligible(
  tables: Tables,
  row: HotJob,
  allowed: Set<string> | null,
  types: Set<string> | null,
  now: Date,
): boolean {
  if (row.state !== 'pending' || row.runAt.getTime() > now.getTime()) return false;
  if (row.cancelRequestedAt !== null) return false;
  if (allowed !== null && !allowed.has(row.queue)) return false;
  if (types !== null && !types.has(row.type.toLowerCase())) return false;
  const queue = tables.queues.get(row.queue);
  return queue === undefined || (!queue.paused && queue.active);
}

/**
 * Moves up to `request.limit` due pending rows to fetched under `leaseToken`, starting the first
 * `request.startCount` of them; returns the stored rows claimed, in claim order (the caller copies
 * them).
 */
export function claimJobs(
  tables: Tables,
  request: ClaimRequest,
  leaseToken: string,
  now: Date,
): HotJob[] {
  if (request.limit < 1) return [];
  const allowed = request.queues === null ? null : new Set(request.queues);
  const types = request.types ? new Set(request.types.map((type) => type.toLowerCase())) : null;
  // Like the SQL claim: per queue the best least(limit, room) rows, then the best `limit` of those.
  const active = activeByQueue(tables);
  const perQueue = new Map<string, Smallest<HotJob>>();
  for (const row of tables.hot.values()) {
    if (!isEligible(tables, row, allowed, types, now)) continue;
    let best = perQueue.get(row.queue);
    if (best === undefined) {
      const cap = tables.queues.get(row.queue)?.maxWorkers ?? null;
      const room = cap === null ? request.limit : Math.max(0, cap - (active.get(row.queue) ?? 0));
      best = new Smallest(Math.min(request.limit, room), compareClaimOrder);
      perQueue.set(row.queue, best);
    }
    best.offer(row);
  }
  const claimed = [...perQueue.values()]
    .flatMap((best) => best.sorted())
    .sort(compareClaimOrder)
    .slice(0, request.limit);
  for (const row of claimed) {
    row.state = 'fetched';
    row.workerId = request.workerId;
    row.leaseToken = leaseToken;
    row.updatedAt = new Date(now);
    tables.changedHot(row);
  }
  const startCount = Math.max(0, Math.floor(request.startCount ?? 0));
  const leases = claimed
    .slice(0, startCount)
    .map((row) => ({ id: row.id, workerId: request.workerId, leaseToken }));
  startJobs(tables, leases, now);
  return claimed;
}

/** The stored hot row `lease` still holds in `state`, or `undefined` when the lease was lost. */
export function heldRow(tables: Tables, lease: Lease, state: HotJob['state']): HotJob | undefined {
  const row = tables.hot.get(lease.id);
  if (row === undefined || row.state !== state) return undefined;
  if (row.workerId !== lease.workerId || row.leaseToken !== lease.leaseToken) return undefined;
  return row;
}

/**
 * The lease gate: fetched → processing for each lease still held, attempts + 1, `startedAt` and
 * `heartbeatAt` stamped. Returns the stored rows started, in input order.
 */
export function startJobs(tables: Tables, leases: readonly Lease[], now: Date): HotJob[] {
  const started: HotJob[] = [];
  for (const lease of leases) {
    const row = heldRow(tables, lease, 'fetched');
    if (row === undefined) continue;
    row.state = 'processing';
    row.attempts += 1;
    row.startedAt = new Date(now);
    row.heartbeatAt = new Date(now);
    row.updatedAt = new Date(now);
    started.push(row);
  }
  return started;
}
