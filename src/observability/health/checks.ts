/**
 * The three health checks. Each returns a {@link CheckResult} and never throws: a check that
 * cannot run is itself unhealthy, with the reason.
 *
 * - `chokaq_db`: a round trip to the store (its clock query) within `health.dbTimeout`.
 * - `chokaq_worker`: this process's worker — its claim loop alive, no claim waiting longer than
 *   `health.stallTimeout`, and no event-loop stall that long in the last twice that time (half
 *   of it: degraded). A process with `worker: false` has nothing to check here.
 * - `chokaq_queue_saturation`: how long the longest-waiting due job of each served, unpaused
 *   queue has been due, against that queue's degraded and unhealthy lag thresholds.
 */
import type { HealthSettings } from '../../runtime/settings.js';
import type { WorkerHealth } from '../../runtime/engine.js';
import type { QueueGauges } from '../../storage/model.js';
import { waitAtMost, type Clock } from '../../util/clock.js';

/** How healthy something is; `degraded` still serves. */
export type HealthStatus = 'ok' | 'degraded' | 'unhealthy';

/** The outcome of one check. */
export interface CheckResult {
  name: 'chokaq_db' | 'chokaq_worker' | 'chokaq_queue_saturation';
  status: HealthStatus;
  /** One line saying why. */
  message: string;
  /** What the check measured (latency, lags, …). */
  data: Record<string, unknown>;
}

const RANK = { ok: 0, degraded: 1, unhealthy: 2 } as const;

/** The worse of two statuses. */
export function worse(a: HealthStatus, b: HealthStatus): HealthStatus {
  return RANK[a] >= RANK[b] ? a : b;
}

/** `chokaq_db`: one round trip to the store within `timeoutMs`. */
export async function checkDb(
  roundTrip: () => Promise<unknown>,
  clock: Clock,
  timeoutMs: number,
): Promise<CheckResult> {
  const started = clock.now();
  const trip = roundTrip().then(
    () => null,
    (error: unknown) => error ?? new Error('the store failed'),
  );
  const answered = await waitAtMost(clock, trip, timeoutMs);
  const latencyMs = clock.now() - started;
  if (!answered) {
    return unhealthy('chokaq_db', `no answer within ${timeoutMs} ms`, { timeoutMs });
  }
  const error = await trip;
  if (error !== null) {
    return unhealthy('chokaq_db', `the store failed: ${describe(error)}`, { latencyMs });
  }
  return {
    name: 'chokaq_db',
    status: 'ok',
    message: `answered in ${latencyMs} ms`,
    data: { latencyMs },
  };
}

/** `chokaq_worker`: the worker's own liveness. */
export function checkWorker(worker: WorkerHealth, now: number, stallMs: number): CheckResult {
  const name = 'chokaq_worker';
  switch (worker.state) {
    case 'off':
      return { name, status: 'ok', message: 'no worker in this process (worker: false)', data: {} };
    case 'not-started':
      return unhealthy(name, 'the worker has not been started (call start())', {});
    case 'stopped':
      return unhealthy(name, 'the worker was stopped', {});
  }
  const data = {
    concurrency: worker.concurrency,
    running: worker.running,
    worstLoopDelayMs: worker.worstLoopDelayMs,
    claimWaitingMs: worker.claimSentAt === null ? 0 : now - worker.claimSentAt,
  };
  if (worker.stopping) return unhealthy(name, 'the worker is stopping', data);
  if (worker.loopFailure !== undefined) {
    return unhealthy(name, `the claim loop ended: ${describe(worker.loopFailure)}`, data);
  }
  // A stalled event loop also holds up every claim's answer: name the stall, the cause, first.
  const stall = `the event loop stalled for ${worker.worstLoopDelayMs} ms lately`;
  if (worker.worstLoopDelayMs > stallMs) return unhealthy(name, stall, data);
  if (data.claimWaitingMs > stallMs) {
    return unhealthy(name, `a claim has waited ${data.claimWaitingMs} ms for the store`, data);
  }
  if (worker.worstLoopDelayMs > stallMs / 2)
    return { name, status: 'degraded', message: stall, data };
  return { name, status: 'ok', message: `claiming; ${worker.running} running`, data };
}

/**
 * `chokaq_queue_saturation`: the worst queue's lag against its thresholds. Only queues this
 * process serves count (all, when it serves all), and never a paused or inactive one: its lag
 * grows on purpose.
 */
export function checkSaturation(
  gauges: readonly QueueGauges[],
  served: ReadonlySet<string> | null,
  settings: Pick<HealthSettings, 'lag' | 'queueLag'>,
): CheckResult {
  const name = 'chokaq_queue_saturation';
  // The worst queue: the worst status, then the longest lag.
  let worst:
    | { queue: string; lagMs: number; due: number; status: HealthStatus; limitMs: number }
    | undefined;
  for (const gauge of gauges) {
    if (gauge.paused || !gauge.active || (served && !served.has(gauge.queue))) continue;
    const lagMs =
      gauge.oldestDueAt === null
        ? 0
        : Math.max(0, gauge.readAt.getTime() - gauge.oldestDueAt.getTime());
    const { degradedMs, unhealthyMs } = settings.queueLag[gauge.queue] ?? settings.lag;
    const queueStatus: HealthStatus =
      lagMs > unhealthyMs ? 'unhealthy' : lagMs > degradedMs ? 'degraded' : 'ok';
    const limitMs = queueStatus === 'unhealthy' ? unhealthyMs : degradedMs;
    const candidate = { queue: gauge.queue, lagMs, due: gauge.due, status: queueStatus, limitMs };
    if (
      worst === undefined ||
      RANK[queueStatus] > RANK[worst.status] ||
      (queueStatus === worst.status && lagMs > worst.lagMs)
    )
      worst = candidate;
  }
  const data = {
    queues: gauges.length,
    worstQueue: worst?.queue ?? null,
    worstLagMs: worst?.lagMs ?? 0,
    worstDue: worst?.due ?? 0,
  };
  if (worst === undefined) return { name, status: 'ok', message: 'no served queue', data };
  const message =
    worst.status === 'ok'
      ? `worst lag ${worst.lagMs} ms (queue ${worst.queue})`
      : `queue ${worst.queue}: its oldest due job has waited ${worst.lagMs} ms (over ${worst.limitMs} ms)`;
  return { name, status: worst.status, message, data };
}

function unhealthy(
  name: CheckResult['name'],
  message: string,
  data: Record<string, unknown>,
): CheckResult {
  return { name, status: 'unhealthy', message, data };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
