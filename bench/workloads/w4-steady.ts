/**
 * W4 steady state: one worker process runs while a producer in the harness enqueues one job per
 * call at `steadyRate` jobs/s for `steadySeconds`. Headline: p99 of the enqueue-to-start lag
 * (W4-lag-p99). Details: p50/p95, the rate the producer achieved, and CPU time of the worker
 * process per job (user + system, from "go" until every job settled).
 */
import { percentile } from '../report.js';
import { nowMs } from '../types.js';
import { startWorkers, type WorkerGroup } from '../worker-group.js';
import { CallsInFlight } from './calls.js';
import {
  CorrectnessError,
  noopWorkers,
  sleep,
  verify,
  waitDrained,
  type WorkloadContext,
  type WorkloadOutcome,
} from './common.js';

/** Producer tick; each tick enqueues the jobs that came due since the last one. */
const TICK_MS = 10;
/** Enqueue calls allowed in flight before the producer counts as falling behind. */
const MAX_IN_FLIGHT = 2000;

/** Runs W4 for one system. */
export async function runSteady(ctx: WorkloadContext): Promise<WorkloadOutcome> {
  const { adapter, scale } = ctx;
  const n = Math.round(scale.steadyRate * scale.steadySeconds);
  await adapter.reset();
  let group: WorkerGroup | undefined;
  try {
    group = await startWorkers(adapter, {
      processes: 1,
      databaseUrl: ctx.databaseUrl,
      setup: noopWorkers(ctx),
    });
    await group.go();
    await sleep(500);
    const first = nowMs();
    let sent = 0;
    const calls = new CallsInFlight();
    let lastPrint = 0;
    while (sent < n) {
      const due = Math.min(n, Math.floor(((nowMs() - first) * scale.steadyRate) / 1000) + 1);
      while (sent < due && calls.pending < MAX_IN_FLIGHT) {
        calls.add(adapter.enqueue({ i: sent, t: nowMs() }));
        sent++;
      }
      if (nowMs() - lastPrint > 1000) {
        lastPrint = nowMs();
        ctx.progress.status(
          `${Math.round((nowMs() - first) / 1000)}/${scale.steadySeconds} s: enqueued ${sent.toLocaleString('en-US')}, ran ${group.handled().toLocaleString('en-US')}`,
        );
      }
      await sleep(TICK_MS);
    }
    await calls.settled();
    const producerSeconds = (nowMs() - first) / 1000;
    await waitDrained(ctx, group, n, 120_000);
    const results = await group.stop();
    group = undefined;
    await verify(ctx, results, n);
    const achieved = n / producerSeconds;
    if (achieved < scale.steadyRate * 0.9) {
      throw new CorrectnessError(
        `the producer reached only ${Math.round(achieved)} of ${scale.steadyRate} jobs/s; the figures would not be steady-state`,
      );
    }
    const lags = results.flatMap((r) => r.lags);
    const cpuUs = results.reduce((sum, r) => sum + r.cpuUserUs + r.cpuSystemUs, 0);
    const detail = (metric: string, value: number, unit: string) => ({
      workload: 'W4-lag-p99' as const,
      system: ctx.system,
      metric,
      value,
      unit,
    });
    return {
      rows: [
        { workload: 'W4-lag-p99', system: ctx.system, value: percentile(lags, 99), unit: 'ms' },
      ],
      details: [
        detail('p50', percentile(lags, 50), 'ms'),
        detail('p95', percentile(lags, 95), 'ms'),
        detail('rate', achieved, 'jobs/s'),
        detail(
          'CPU/job',
          cpuUs / n,
          adapter.inProcessWorkers ? 'µs (harness process, incl. producer)' : 'µs',
        ),
        detail('max RSS', (results[0]?.maxRss ?? 0) / 2 ** 20, 'MB'),
      ],
    };
  } finally {
    group?.kill();
  }
}
