/**
 * The check of the `health` option of `new ChokaQ` (its shape and defaults are health's own,
 * src/observability/health/options.ts) and of the per-queue lag thresholds of `queues.<name>`.
 */
import { ChokaQError } from '../errors.js';
import { checkOptions } from '../util/check.js';
import type { HealthSettings, LagThresholds } from '../runtime/settings.js';
import {
  DEFAULT_LAG,
  HEALTH_DEFAULTS,
  HEALTH_DURATION,
  type HealthOptions,
} from '../observability/health/options.js';
import { toMs, type Duration } from '../util/duration.js';

const HEALTH_KEYS = [
  'dbTimeout',
  'stallTimeout',
  'lagDegraded',
  'lagUnhealthy',
] as const satisfies readonly (keyof HealthOptions)[];

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
    degraded === undefined
      ? fallback.degradedMs
      : toMs(degraded, `${field}.lagDegraded`, HEALTH_DURATION);
  const unhealthyMs =
    unhealthy === undefined
      ? Math.max(fallback.unhealthyMs, degradedMs)
      : toMs(unhealthy, `${field}.lagUnhealthy`, HEALTH_DURATION);
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
    dbTimeoutMs: toMs(
      options.dbTimeout ?? HEALTH_DEFAULTS.dbTimeout,
      'health.dbTimeout',
      HEALTH_DURATION,
    ),
    stallTimeoutMs: toMs(
      options.stallTimeout ?? HEALTH_DEFAULTS.stallTimeout,
      'health.stallTimeout',
      HEALTH_DURATION,
    ),
    lag,
    queueLag,
  };
}
