/**
 * The `health` option of `new ChokaQ`: when the health checks (docs/observability.md) turn
 * degraded or unhealthy, with its defaults and bounds. config/health.ts checks it, with the
 * per-queue lag thresholds of `queues.<name>`.
 */
import type { LagThresholds } from '../../runtime/settings.js';
import { MAX_TIMER_MS, type Duration } from '../../util/duration.js';

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

/** The defaults of {@link HealthOptions}' timeouts. */
export const HEALTH_DEFAULTS = { dbTimeout: '2s', stallTimeout: '30s' } as const;

/** Lag thresholds without options: 30 seconds degraded, 5 minutes unhealthy. */
export const DEFAULT_LAG: LagThresholds = { degradedMs: 30_000, unhealthyMs: 300_000 };

/** The bounds of every health duration, a timer's: 1 ms up to what `setTimeout` can wait. */
export const HEALTH_DURATION = { min: 1, max: MAX_TIMER_MS } as const;
