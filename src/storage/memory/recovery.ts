/**
 * Liveness and recovery for the memory provider: heartbeats of running jobs and the rescue pass
 * that returns stale fetched rows, buries or re-runs zombies, and finishes cancel requests of jobs
 * that no longer run. The memory store lives in one process, so a rescue is never skipped.
 *
 * @internal
 */
import type { HotJob } from '../model.js';
import { appendHistory, runEntry } from '../history.js';
import type { HeartbeatLease, HeartbeatResult, RescueOptions, RescuedJob } from '../job-store.js';
import { heldRow } from './claim.js';
import { recordRetry } from './counters.js';
import { CLAIMED, moveToDead, refundRun, toPending } from './settle.js';
import type { Tables } from './tables.js';
import {
  foldRetryZombieTypes,
  requesterOf,
  RESCUE_LIMIT,
  ZOMBIE_DEAD_ERROR,
  ZOMBIE_RETRY_ERROR,
} from '../rescue-rules.js';

/** What one memory rescue moved (the store adds `skipped: false`). */
export interface RescueOutcome {
  /** Stale fetched rows returned to pending. */
  released: number;
  /** Zombies moved to the DLQ as `Zombie`. */
  dead: RescuedJob[];
  /** Zombies of opted-in types returned to pending. */
  retried: RescuedJob[];
  /** Rows with a cancel request moved to the DLQ as `Cancelled`. */
  cancelled: RescuedJob[];
}

/**
 * Refreshes `heartbeatAt` and `updatedAt` (and the progress, when given) of every lease still
 * held in state processing; reports
 * per lease, in input order, whether it is alive and whether (and by whom) a cancel was requested.
 */
export function heartbeatJobs(
  tables: Tables,
  leases: readonly HeartbeatLease[],
  now: Date,
): HeartbeatResult[] {
  return leases.map((lease) => {
    const row = heldRow(tables, lease, CLAIMED);
    if (row === undefined) return { alive: false, cancelRequested: false, cancelRequestedBy: null };
    row.heartbeatAt = new Date(now);
    row.updatedAt = new Date(now);
    if (lease.progress !== undefined) row.progress = lease.progress;
    const cancelRequested = row.cancelRequestedAt !== null;
    return {
      alive: true,
      cancelRequested,
      cancelRequestedBy: cancelRequested ? row.cancelRequestedBy : null,
    };
  });
}

/** The identity of a moved row, as a rescue reports it. */
function rescued(row: HotJob): RescuedJob {
  return { id: row.id, queue: row.queue, type: row.type };
}

/**
 * Hot rows passing `due`, oldest `since` first (then id), at most `limit` of them. Collected
 * before any is moved, so the caller may change the table while walking the result.
 */
function oldest(
  tables: Tables,
  due: (row: HotJob) => boolean,
  since: (row: HotJob) => Date,
  limit: number,
): HotJob[] {
  const rows: HotJob[] = [];
  for (const row of tables.hot.values()) if (due(row)) rows.push(row);
  rows.sort((a, b) => {
    const byTime = since(a).getTime() - since(b).getTime();
    if (byTime !== 0) return byTime;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  return rows.slice(0, limit);
}

/** The last sign of life of a processing row: its heartbeat, else its start, else its last write. */
function lastSignOfLife(row: HotJob): Date {
  return row.heartbeatAt ?? row.startedAt ?? row.updatedAt;
}

/** Zombie timeout of `queue` in ms: its `zombieTimeoutSeconds`, else the global default. */
function zombieTimeoutMs(tables: Tables, queue: string, fallbackMs: number): number {
  const seconds = tables.queues.get(queue)?.zombieTimeoutSeconds ?? null;
  return seconds === null ? fallbackMs : seconds * 1000;
}

/**
 * Whether a zombie of `row`'s type goes back to pending: its lower-cased type is opted in with a
 * maximum above the row's `lostAttempts`.
 */
function mayRunAgain(row: HotJob, maxima: ReadonlyMap<string, number>): boolean {
  const max = maxima.get(row.type.toLowerCase());
  return max !== undefined && max > row.lostAttempts;
}

/**
 * One rescue pass at `now`, each step moving at most `options.limit` rows (floored; negative
 * timeouts count as 0, like the SQL store):
 *
 * 1. fetched rows not written for `fetchedTimeoutMs` → pending, no attempt used;
 * 2. processing rows silent for their queue's zombie timeout (else `processingTimeoutMs`) → DLQ
 *    `Cancelled` when a cancel was requested; → pending with the run refunded when their type is
 *    opted in and below its maximum of lost runs (retried counter); → DLQ `Zombie` otherwise;
 * 3. pending or fetched rows carrying a cancel request → DLQ `Cancelled`.
 */
export function rescueJobs(tables: Tables, options: RescueOptions, now: Date): RescueOutcome {
  const limit = Math.max(0, Math.floor(options.limit ?? RESCUE_LIMIT));
  const processingTimeoutMs = Math.max(0, options.processingTimeoutMs);
  const maxima = foldRetryZombieTypes(options.retryZombieTypes);
  const at = now.getTime();
  const outcome: RescueOutcome = { released: 0, dead: [], retried: [], cancelled: [] };

  const fetchedCutoff = at - Math.max(0, options.fetchedTimeoutMs);
  const stale = oldest(
    tables,
    (row) => row.state === 'fetched' && row.updatedAt.getTime() < fetchedCutoff,
    (row) => row.updatedAt,
    limit,
  );
  for (const row of stale) {
    toPending(row, now);
    outcome.released += 1;
  }

  const zombies = oldest(
    tables,
    (row) =>
      row.state === 'processing' &&
      lastSignOfLife(row).getTime() < at - zombieTimeoutMs(tables, row.queue, processingTimeoutMs),
    lastSignOfLife,
    limit,
  );
  for (const row of zombies) {
    if (row.cancelRequestedAt !== null) {
      const error = `Cancelled by ${requesterOf(row.cancelRequestedBy)}: the run was lost`;
      moveToDead(tables, row, now, 'Cancelled', error);
      outcome.cancelled.push(rescued(row));
    } else if (mayRunAgain(row, maxima)) {
      row.history = appendHistory(row.history, runEntry(row, now, 'zombie', ZOMBIE_RETRY_ERROR));
      toPending(row, now);
      refundRun(row);
      row.runAt = new Date(now);
      row.lastError = ZOMBIE_RETRY_ERROR;
      row.progress = null;
      recordRetry(tables, now, row.queue);
      outcome.retried.push(rescued(row));
    } else {
      moveToDead(tables, row, now, 'Zombie', ZOMBIE_DEAD_ERROR);
      outcome.dead.push(rescued(row));
    }
  }

  const orphans = oldest(
    tables,
    (row) => row.state !== 'processing' && row.cancelRequestedAt !== null,
    (row) => row.cancelRequestedAt ?? row.updatedAt,
    limit,
  );
  for (const row of orphans) {
    moveToDead(tables, row, now, 'Cancelled', `Cancelled by ${requesterOf(row.cancelRequestedBy)}`);
    outcome.cancelled.push(rescued(row));
  }
  return outcome;
}
