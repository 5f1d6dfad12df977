/**
 * W3 pickup latency on an idle queue: one worker process is started and left idle for a second,
 * then `latencyJobs` jobs are enqueued one call each, `latencyGapMs` apart. Each job's lag is the
 * time from just before its enqueue call to the start of its handler (same machine clock).
 * Headline: p99 (W3-p99); p50 and p95 are details.
 */
import { percentile } from '../report.js';
import { nowMs } from '../types.js';
import { startWorkers, type WorkerGroup } from '../worker-group.js';
import { CallsInFlight } from './calls.js';
import {
  noopWorkers,
  sleep,
  verify,
  waitDrained,
  type WorkloadContext,
  type WorkloadOutcome,
} from './common.js';

/** Idle time before the first job, so pollers and listeners are in their steady state. */
const IDLE_BEFORE_MS = 1000;

/** Runs W3 for one system. */
export async function runLatency(ctx: WorkloadContext): Promise<WorkloadOutcome> {
  const { adapter, scale } = ctx;
  const n = scale.latencyJobs;
  await adapter.reset();
  let group: WorkerGroup | undefined;
  try {
    group = await startWorkers(adapter, {
      processes: 1,
      databaseUrl: ctx.databaseUrl,
      setup: noopWorkers(ctx),
    });
    await group.go();
    await sleep(IDLE_BEFORE_MS);
    const first = nowMs();
    const calls = new CallsInFlight();
    for (let i = 0; i < n; i++) {
      const wait = first + i * scale.latencyGapMs - nowMs();
      if (wait > 0) await sleep(wait);
      calls.add(adapter.enqueue({ i, t: nowMs() }));
      if (i % 50 === 0) ctx.progress.status(`enqueued ${i}/${n}, ran ${group.handled()}`);
    }
    await calls.settled();
    await waitDrained(ctx, group, n, 60_000);
    const results = await group.stop();
    group = undefined;
    await verify(ctx, results, n);
    const lags = results.flatMap((r) => r.lags);
    const at = (p: number): number => percentile(lags, p);
    const detail = (metric: string, value: number) => ({
      workload: 'W3-p99' as const,
      system: ctx.system,
      metric,
      value,
      unit: 'ms',
    });
    return {
      rows: [{ workload: 'W3-p99', system: ctx.system, value: at(99), unit: 'ms' }],
      details: [detail('p50', at(50)), detail('p95', at(95)), detail('max', Math.max(...lags))],
    };
  } finally {
    group?.kill();
  }
}
