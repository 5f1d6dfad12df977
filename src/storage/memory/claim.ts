/**
 * Claim and lease gate for the memory provider. Mirrors the SQL claim: eligible pending rows of
 * the requested types in (priority desc, turn, runAt asc, id asc) order across queues, at most
 * each queue's `maxWorkers` room from a queue and each concurrency key's limit from a key (see
 * key-lines.ts), one lease token for the batch.
 *
 * @internal
 */
import { isActiveState } from '../../job/state.js';
import type { HotJob } from '../model.js';
import type { ClaimRequest, Lease } from '../job-store.js';
import { readKeyState, takeTurns, type Candidate } from './key-lines.js';
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
export function activeByQueue(tables: Tables): Map<string, number> {
  const active = new Map<string, number>();
  for (const row of tables.hot.values()) {
    if (isActiveState(row.state)) active.set(row.queue, (active.get(row.queue) ?? 0) + 1);
  }
  return active;
}

/** How many rows a claim of `limit` may take from `queue`: its `maxWorkers` room, if capped. */
function roomOf(tables: Tables, queue: string, limit: number, active: Map<string, number>): number {
  const cap = tables.queues.get(queue)?.maxWorkers ?? null;
  return Math.min(limit, cap === null ? limit : Math.max(0, cap - (active.get(queue) ?? 0)));
}

/**
 * Whether a pending row may be claimed now, ignoring the `maxWorkers` cap. A row carrying a cancel
 * request is never claimed: rescue moves it to the DLQ instead.
 */
export function isEligible(
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

/** Claim order with turns: priority desc, then turn, then runAt and id (see claim.sql). */
function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.row.priority !== b.row.priority) return b.row.priority - a.row.priority;
  if (a.turn !== b.turn) return a.turn - b.turn;
  return compareClaimOrder(a.row, b.row);
}

/**
 * Moves up to `request.limit` due pending rows to fetched under `leaseToken`; returns the stored
 * rows claimed, in claim order (the caller copies them).
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
  const keys = readKeyState(tables, compareClaimOrder);
  const perQueue = new Map<string, Smallest<HotJob>>();
  const keyedRows = new Map<string, HotJob[]>();
  for (const row of tables.hot.values()) {
    if (!isEligible(tables, row, allowed, types, now)) continue;
    if (keys.keyedQueues.has(row.queue)) {
      const rows = keyedRows.get(row.queue) ?? [];
      rows.push(row);
      keyedRows.set(row.queue, rows);
      continue;
    }
    if (row.concurrencyKey !== null) continue;
    let best = perQueue.get(row.queue);
    if (best === undefined) {
      best = new Smallest(roomOf(tables, row.queue, request.limit, active), compareClaimOrder);
      perQueue.set(row.queue, best);
    }
    best.offer(row);
  }
  const candidates: Candidate[] = [...perQueue.values()].flatMap((best) =>
    best.sorted().map((row) => ({ row, turn: 1 })),
  );
  for (const [queue, rows] of keyedRows) {
    const room = roomOf(tables, queue, request.limit, active);
    const turns = takeTurns(keys, rows.sort(compareClaimOrder));
    candidates.push(...turns.sort(compareCandidates).slice(0, room));
  }
  const claimed = candidates
    .sort(compareCandidates)
    .slice(0, request.limit)
    .map((candidate) => candidate.row);
  for (const row of claimed) {
    row.state = 'fetched';
    row.workerId = request.workerId;
    row.leaseToken = leaseToken;
    row.updatedAt = new Date(now);
    tables.changedHot(row);
  }
  return claimed;
}

/** The stored hot row `lease` still holds in `state`, or `undefined` when the lease was lost. */
export function heldRow(
  tables: Tables,
  lease: Lease,
  state: HotJob['state'] | readonly HotJob['state'][],
): HotJob | undefined {
  const row = tables.hot.get(lease.id);
  if (row === undefined) return undefined;
  if (typeof state === 'string' ? row.state !== state : !state.includes(row.state)) {
    return undefined;
  }
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
