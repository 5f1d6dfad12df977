/**
 * The `health` option of `new ChokaQ` and the per-queue lag thresholds of `queues.<name>`: when
 * the health checks (docs/observability.md) turn degraded or unhealthy.
 */
import { ChokaQError } from '../errors.js';
import { checkOptions } from '../util/check.js';
import type { HealthSettings, LagThresholds } from '../runtime/settings.js';
import { MAX_TIMER_MS, toMs, type Duration } from '../util/duration.js';

/** Thresholds of the health checks. */
export interface HealthOptions {
  /** How long `chokaq_db` waits for the database's answer before it is unhealthy. Default: `'2s'`. */
  dbTimeout?: Duration;
  /**
   * `chokaq_worker` is unhealthy when the event loop stalled this long (within the last twice
   * this time), or a claim has been waiting this long; degraded at half of it. Default: `'30s'`.
   */
  stallTimeout?: Duration;
  /**
   * `chokaq_queue_saturation` is degraded when a served, unpaused queue's longest-waiting due job
   * has been due longer than this. Default: `'30s'`.
   */
  lagDegraded?: Duration;
  /** … and unhealthy past this (at least `lagDegraded`). Default: `'5m'`. */
  lagUnhealthy?: Duration;
}

const HEALTH_KEYS = ['dbTimeout', 'stallTimeout', 'lagDegraded', 'lagUnhealthy'] as const;

/** A timer's bounds: 1 ms up to what `setTimeout` can wait. */
const TIMER = { min: 1, max: MAX_TIMER_MS };

/**
 * Lag thresholds from `degraded` and `unhealthy` (either may be absent: `fallback` fills it in).
 * @throws ChokaQError `CHOKAQ_INVALID_DURATION` or `CHOKAQ_INVALID_CONFIG` (unhealthy below
 *   degraded), naming `field`.
 */
export function lagThresholds(
  degraded: Duration | undefined,
  unhealthy: Duration | undefined,
  field: string,
  fallback: LagThresholds,
): LagThresholds {
  const degradedMs =
    degraded === undefined ? fallback.degradedMs : toMs(degraded, `${field}.lagDegraded`, TIMER);
  const unhealthyMs =
    unhealthy === undefined
      ? Math.max(fallback.unhealthyMs, degradedMs)
      : toMs(unhealthy, `${field}.lagUnhealthy`, TIMER);
  if (unhealthyMs < degradedMs) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_CONFIG',
      `${field}.lagUnhealthy (${unhealthyMs} ms) must be at least ${field}.lagDegraded (${degradedMs} ms)`,
      { field: `${field}.lagUnhealthy` },
    );
  }
  return { degradedMs, unhealthyMs };
}

/**
 * Checks the `health` option and the lag thresholds of `queues` (whose names and keys
 * `resolveQueues` already checked); a queue's missing threshold is the `health` one.
 * @throws ChokaQError naming the field.
 */
export function resolveHealth(
  value: HealthOptions | undefined,
  queues: Readonly<Record<string, { lagDegraded?: Duration; lagUnhealthy?: Duration }>> = {},
): HealthSettings {
  const options = checkOptions(value, 'health', HEALTH_KEYS);
  const lag = lagThresholds(options.lagDegraded, options.lagUnhealthy, 'health', DEFAULT_LAG);
  const queueLag: Record<string, LagThresholds> = {};
  for (const [name, queue] of Object.entries(queues)) {
    if (queue.lagDegraded === undefined && queue.lagUnhealthy === undefined) continue;
    queueLag[name] = lagThresholds(queue.lagDegraded, queue.lagUnhealthy, `queues.${name}`, lag);
  }
  return {
    dbTimeoutMs: toMs(options.dbTimeout ?? '2s', 'health.dbTimeout', TIMER),
    stallTimeoutMs: toMs(options.stallTimeout ?? '30s', 'health.stallTimeout', TIMER),
    lag,
    queueLag,
  };
}

/** Lag thresholds without options: 30 seconds degraded, 5 minutes unhealthy. */
export const DEFAULT_LAG: LagThresholds = { degradedMs: 30_000, unhealthyMs: 300_000 };
