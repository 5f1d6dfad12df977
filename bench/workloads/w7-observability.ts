/**
 * W7 observability: what ChokaQ's metrics and cross-process events cost the drain. The W2-1p
 * drain runs `ROUNDS` times with them off (`telemetry.metrics: false`, `clusterEvents: false`)
 * and as many times on (metrics counted into a Prometheus registry that is scraped once a second,
 * gauge query included; cross-process events sent), alternating, each on a fresh reset. Headline: the median with them on; details: the median
 * off and the change in percent, in jobs/s and in worker CPU time per job (the steadier figure
 * on a busy machine). Only ChokaQ has them, so the peers skip it.
 */
import type { Detail } from '../types.js';
import { drainOnce } from './w2-drain.js';
import { noopWorkers, type WorkloadContext, type WorkloadOutcome } from './common.js';

/** Drains of each setting. */
const ROUNDS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs W7 for one system. */
export async function runObservability(ctx: WorkloadContext): Promise<WorkloadOutcome> {
  const rates = { off: [] as number[], on: [] as number[] };
  const cpu = { off: [] as number[], on: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const setting of ['off', 'on'] as const) {
      ctx.progress.status(`round ${round + 1}/${ROUNDS}, observability ${setting}`);
      await ctx.adapter.reset();
      const { rate, results } = await drainOnce(
        ctx,
        1,
        noopWorkers(ctx, { observability: setting }),
      );
      rates[setting].push(rate);
      const used = results.reduce((sum, r) => sum + r.cpuUserUs + r.cpuSystemUs, 0);
      cpu[setting].push(used / ctx.scale.drainJobs);
    }
  }
  const on = median(rates.on);
  const off = median(rates.off);
  const cpuOn = median(cpu.on);
  const cpuOff = median(cpu.off);
  const system = ctx.system;
  const runs = (values: number[]) => values.map((v) => Math.round(v).toLocaleString('en-US'));
  const details: Detail[] = [
    { workload: 'W7-observability', system, metric: 'off (median)', value: off, unit: 'jobs/s' },
    {
      workload: 'W7-observability',
      system,
      metric: 'change on vs off',
      value: (on / off - 1) * 100,
      unit: '%',
      note: `drains on: ${runs(rates.on).join(', ')}; off: ${runs(rates.off).join(', ')} jobs/s`,
    },
    {
      workload: 'W7-observability',
      system,
      metric: 'worker CPU per job off (median)',
      value: cpuOff,
      unit: 'µs',
    },
    {
      workload: 'W7-observability',
      system,
      metric: 'worker CPU per job, change on vs off',
      value: (cpuOn / cpuOff - 1) * 100,
      unit: '%',
    },
  ];
  return {
    rows: [{ workload: 'W7-observability', system, value: on, unit: 'jobs/s' }],
    details,
  };
}
