/**
 * The y scale of a chart that one spike must not flatten: when one to three values are far above
 * the rest, the scale stops a little above the 95th percentile of the values that are not zero
 * (idle intervals say nothing about the usual height) and the spikes above it are named (value
 * and time) instead of squashing every other point to the floor. Also one unit per axis for
 * durations, so ticks read "12 s", not "12,000".
 */

/** A point drawn above the scale's top. */
export interface Spike {
  at: number;
  value: number;
}

/** Where a chart's scale stops, and what it leaves out. */
export interface ScaleCap {
  /** The scale's top. */
  max: number;
  /** The points above it, largest first (at most {@link MAX_SPIKES}). */
  spikes: Spike[];
}

/** How far above the 95th percentile the largest value must be to count as a spike. */
const SPIKE_RATIO = 4;

/** Most points a cap may leave above the scale: more are a level, not a spike. */
const MAX_SPIKES = 3;

/**
 * The cap of a scale over `times` and each series' `values`, or `null` when there is no spike:
 * fewer than 10 values above zero, the largest within {@link SPIKE_RATIO} times their 95th
 * percentile, or more than {@link MAX_SPIKES} above the cap (let the chart fit everything).
 */
export function spikeCap(times: number[], series: (number | null)[][]): ScaleCap | null {
  const points: Spike[] = [];
  for (const values of series) {
    values.forEach((value, k) => {
      if (value !== null && value > 0 && times[k] !== undefined) {
        points.push({ at: times[k], value });
      }
    });
  }
  if (points.length < 10) return null;
  const sorted = points.map((p) => p.value).sort((a, b) => a - b);
  const p95 = sorted[Math.floor(sorted.length * 0.95) - 1]!;
  const top = sorted[sorted.length - 1]!;
  if (p95 <= 0 || top <= p95 * SPIKE_RATIO) return null;
  const max = p95 * 1.5;
  const spikes = points.filter((p) => p.value > max).sort((a, b) => b.value - a.value);
  return spikes.length > MAX_SPIKES ? null : { max, spikes };
}

/** A unit for durations in ms up to `maxMs`: its name and its size in ms. */
export function durationUnit(maxMs: number): { name: string; ms: number } {
  if (maxMs >= 2 * 3_600_000) return { name: 'h', ms: 3_600_000 };
  if (maxMs >= 2 * 60_000) return { name: 'min', ms: 60_000 };
  if (maxMs >= 2000) return { name: 's', ms: 1000 };
  return { name: 'ms', ms: 1 };
}

/** A tick label of a count: 950, 1.2k, 3.4M. */
export function compactCount(n: number): string {
  if (Math.abs(n) >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (Math.abs(n) >= 1e4) return `${Math.round(n / 1e3)}k`;
  if (Math.abs(n) >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return `${+n.toFixed(1)}`;
}
