/**
 * The health of the whole system as the store sees it, not of one process: every worker alive
 * (its heartbeat — the workers row it writes every 10 s — and its own `chokaq_worker` check),
 * every queue's lag against its configured thresholds, and due jobs that no live worker can run
 * (no live worker serves their queue, or none of those that do runs their type). What The Deck's
 * System panel shows; a pure function of what was read, so every rule is testable alone.
 */
import { PRESENCE_INTERVAL_MS } from '../../runtime/presence.js';
import type { HealthSettings, LagThresholds } from '../../runtime/settings.js';
import type { DueTypeCount, QueueGauges, WorkerPresence } from '../../storage/model.js';
import { worse, type CheckResult, type HealthStatus } from './checks.js';

/** A worker not heard from for this long (two missed writes) is unhealthy, in ms. */
export const WORKER_SILENT_MS = 2 * PRESENCE_INTERVAL_MS;

/** One worker process as the system sees it. */
export interface WorkerCheck {
  id: string;
  host: string;
  pid: number;
  status: HealthStatus;
  /** Why: silent for how long, or its own check's message. */
  message: string;
  lastSeenAt: Date;
  /** How long since it last wrote its row (store clock), in ms. */
  silentMs: number;
}

/** One queue's lag against its thresholds. */
export interface QueueLagCheck {
  queue: string;
  status: HealthStatus;
  /** How long its oldest due job has waited, in ms (0: none due). */
  lagMs: number;
  due: number;
  /** The thresholds it is held to (its own, or the `health` defaults). */
  degradedMs: number;
  unhealthyMs: number;
  /** A paused or inactive queue is `ok` whatever its lag: it waits on purpose. */
  paused: boolean;
  active: boolean;
}

/** Why no live worker runs some due jobs. */
export type StrandedReason = 'no-worker-serves-queue' | 'no-worker-runs-type';

/** Due jobs of one queue and type that no live worker can run. */
export interface StrandedWork extends DueTypeCount {
  reason: StrandedReason;
  /** How long the oldest of them has been due, in ms. */
  waitingMs: number;
}

/** The system's health: the worst of its parts, and each part. */
export interface SystemHealth {
  status: HealthStatus;
  /** When it was read (store clock). */
  checkedAt: Date;
  /** The database as this process reaches it (`chokaq_db`). */
  db: CheckResult;
  workers: WorkerCheck[];
  queues: QueueLagCheck[];
  stranded: StrandedWork[];
  /** Whether the read of due jobs by type stopped at its bound (counts are lower bounds). */
  strandedCapped: boolean;
  /** The thresholds the parts are held to, in ms. */
  thresholds: {
    lag: LagThresholds;
    queueLag: Readonly<Record<string, LagThresholds>>;
    stallTimeoutMs: number;
    workerSilentMs: number;
  };
}

/** What {@link systemHealth} is computed from. */
export interface SystemReadings {
  db: CheckResult;
  gauges: readonly QueueGauges[];
  workers: readonly WorkerPresence[];
  /** Due jobs by queue and type of the queues with due jobs. */
  dueByType: readonly DueTypeCount[];
  strandedCapped: boolean;
  /** The store clock when read. */
  now: Date;
  settings: Pick<HealthSettings, 'lag' | 'queueLag' | 'stallTimeoutMs'>;
}

/** The system's health from its readings. */
export function systemHealth(r: SystemReadings): SystemHealth {
  const now = r.now.getTime();
  const workers = r.workers.map((w) => workerCheck(w, now));
  const queues = r.gauges.map((g) =>
    queueLagCheck(g, thresholdsOf(g.queue, r.workers, r.settings)),
  );
  const stranded = strandedWork(r.dueByType, r.workers, now);
  let status = r.db.status;
  for (const part of [...workers, ...queues]) status = worse(status, part.status);
  if (stranded.length > 0) status = worse(status, 'degraded');
  return {
    status,
    checkedAt: r.now,
    db: r.db,
    workers,
    queues,
    stranded,
    strandedCapped: r.strandedCapped,
    thresholds: {
      lag: r.settings.lag,
      queueLag: r.settings.queueLag,
      stallTimeoutMs: r.settings.stallTimeoutMs,
      workerSilentMs: WORKER_SILENT_MS,
    },
  };
}

function workerCheck(w: WorkerPresence, now: number): WorkerCheck {
  const silentMs = Math.max(0, now - w.lastSeenAt.getTime());
  const base = { id: w.id, host: w.host, pid: w.pid, lastSeenAt: w.lastSeenAt, silentMs };
  if (silentMs > WORKER_SILENT_MS) {
    return {
      ...base,
      status: 'unhealthy',
      message: `not heard from for ${Math.round(silentMs / 1000)} s (a worker writes every ${PRESENCE_INTERVAL_MS / 1000} s): stalled, or stopped without saying so`,
    };
  }
  if (w.health === null) return { ...base, status: 'ok', message: 'alive' };
  return { ...base, status: w.health.status, message: w.health.message };
}

/**
 * The lag thresholds `queue` is judged by: those of the live workers that serve it (the
 * strictest, when they differ), as each recorded them; this process's own when none recorded
 * any (a process serving The Deck, like `chokaq deck`, need not share the workers' options).
 */
export function thresholdsOf(
  queue: string,
  workers: readonly WorkerPresence[],
  settings: Pick<HealthSettings, 'lag' | 'queueLag'>,
): LagThresholds {
  let chosen: LagThresholds | null = null;
  for (const w of workers) {
    if (w.lag === null || (w.queues !== null && !w.queues.includes(queue))) continue;
    const own = w.lag.queues[queue] ?? w.lag;
    chosen =
      chosen === null
        ? { degradedMs: own.degradedMs, unhealthyMs: own.unhealthyMs }
        : {
            degradedMs: Math.min(chosen.degradedMs, own.degradedMs),
            unhealthyMs: Math.min(chosen.unhealthyMs, own.unhealthyMs),
          };
  }
  return chosen ?? settings.queueLag[queue] ?? settings.lag;
}

function queueLagCheck(g: QueueGauges, thresholds: LagThresholds): QueueLagCheck {
  const { degradedMs, unhealthyMs } = thresholds;
  const lagMs =
    g.oldestDueAt === null ? 0 : Math.max(0, g.readAt.getTime() - g.oldestDueAt.getTime());
  const waiting = g.paused || !g.active;
  const status: HealthStatus = waiting
    ? 'ok'
    : lagMs > unhealthyMs
      ? 'unhealthy'
      : lagMs > degradedMs
        ? 'degraded'
        : 'ok';
  return {
    queue: g.queue,
    status,
    lagMs,
    due: g.due,
    degradedMs,
    unhealthyMs,
    paused: g.paused,
    active: g.active,
  };
}

/**
 * The due jobs no live worker can run (types compared case-insensitively, as claims do): of a queue no live worker serves, or of a type none of
 * the workers serving its queue runs. A worker that recorded no types (an older ChokaQ) counts
 * as running every type, so nothing is flagged that might run.
 */
export function strandedWork(
  due: readonly DueTypeCount[],
  workers: readonly WorkerPresence[],
  now: number,
): StrandedWork[] {
  const out: StrandedWork[] = [];
  for (const entry of due) {
    const serving = workers.filter((w) => w.queues === null || w.queues.includes(entry.queue));
    const type = entry.type.toLowerCase();
    let reason: StrandedReason | null = null;
    if (serving.length === 0) reason = 'no-worker-serves-queue';
    else if (
      !serving.some((w) => w.types === null || w.types.some((t) => t.toLowerCase() === type))
    ) {
      reason = 'no-worker-runs-type';
    }
    if (reason !== null) {
      out.push({ ...entry, reason, waitingMs: Math.max(0, now - entry.oldestDueAt.getTime()) });
    }
  }
  return out;
}
