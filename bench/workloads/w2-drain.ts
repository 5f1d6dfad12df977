/**
 * W2 drain (and W5, the same drain over a large history): `drainJobs` no-op jobs enqueued
 * beforehand, then worked off by one or two worker processes of `concurrency` each. The figure is
 * jobs divided by the time from "go" until every job ran and the store shows nothing unsettled.
 */
import type { Detail, WorkloadName } from '../types.js';
import { drainProcesses, nowMs } from '../types.js';
import type { WorkerResult } from '../recorder.js';
import type { WorkerSetup } from '../systems/adapter.js';
import { startWorkers, type WorkerGroup } from '../worker-group.js';
import {
  noopWorkers,
  preEnqueue,
  verify,
  waitDrained,
  type WorkloadContext,
  type WorkloadOutcome,
} from './common.js';

/** Longest a drain may take before the run counts as failed. */
const DRAIN_TIMEOUT_MS = 180_000;

/** Runs W2-1p, W2-2p, W2-4p or W5 for one system. */
export async function runDrain(
  ctx: WorkloadContext,
  workload: Extract<WorkloadName, 'W2-1p' | 'W2-2p' | 'W2-4p' | 'W5'>,
): Promise<WorkloadOutcome> {
  const { adapter, scale } = ctx;
  const processes = drainProcesses(workload);
  const details: Detail[] = [];
  await adapter.reset();
  if (workload === 'W5') {
    ctx.progress.status(
      `seeding history (${scale.archiveRows.toLocaleString('en-US')} archive, ${scale.deadRows.toLocaleString('en-US')} DLQ)`,
    );
    const seeded = nowMs();
    const note = await adapter.seedHistory(scale.archiveRows, scale.deadRows);
    details.push({
      workload,
      system: ctx.system,
      metric: 'history seeded in',
      value: (nowMs() - seeded) / 1000,
      unit: 's',
      note,
    });
  }
  const drain = await drainOnce(ctx, processes, noopWorkers(ctx));
  const { rate, results } = drain;
  details.push(...cpuPerJob(ctx, workload, drain, ctx.scale.drainJobs));
  results.forEach((result, k) => {
    details.push({
      workload,
      system: ctx.system,
      metric: `max RSS p${k + 1}`,
      value: result.maxRss / 2 ** 20,
      unit: adapter.inProcessWorkers ? 'MB (harness process)' : 'MB',
    });
  });
  if (workload === 'W5') {
    const w2 = ctx.earlier.find((r) => r.workload === 'W2-1p' && r.system === ctx.system);
    if (w2 !== undefined) {
      details.push({
        workload,
        system: ctx.system,
        metric: 'vs own W2-1p',
        value: (rate / w2.value - 1) * 100,
        unit: '%',
      });
    }
  }
  return { rows: [{ workload, system: ctx.system, value: rate, unit: 'jobs/s' }], details };
}

/** What one drain measured. */
export interface Drain {
  /** Jobs per second. */
  rate: number;
  /** Each worker process's result. */
  results: WorkerResult[];
  /** CPU the PostgreSQL server used from "go" until every job settled, µs; `null`: unknown. */
  serverCpuUs: number | null;
}

/**
 * The steadier figures on a busy machine, as details of `workload`: the CPU the worker processes
 * and the PostgreSQL server spent per job of the `n` drained, whatever the wall time. The
 * embedded store's server runs in the harness process, inside the first figure.
 */
export function cpuPerJob(
  ctx: WorkloadContext,
  workload: WorkloadName,
  drain: Drain,
  n: number,
  note?: string,
): Detail[] {
  const { system, adapter } = ctx;
  const workerUs = drain.results.reduce((sum, r) => sum + r.cpuUserUs + r.cpuSystemUs, 0);
  const details: Detail[] = [
    {
      workload,
      system,
      metric: 'worker CPU per job',
      value: workerUs / n,
      unit: adapter.inProcessWorkers ? 'µs (harness process)' : 'µs',
      ...(note === undefined ? {} : { note }),
    },
  ];
  if (drain.serverCpuUs !== null) {
    details.push({
      workload,
      system,
      metric: 'PostgreSQL CPU per job',
      value: drain.serverCpuUs / n,
      unit: 'µs',
    });
  }
  return details;
}

/**
 * One drain: `n` jobs enqueued beforehand by `enqueue` (on the state `reset()` left; by default
 * jobs `0..n-1` in bulk calls, see `preEnqueue`), worked off by `processes` worker processes
 * working as `setup` says; checked for correctness. Resolves to jobs/s and each process's result.
 */
export async function drainOnce(
  ctx: WorkloadContext,
  processes: number,
  setup: WorkerSetup,
  n = ctx.scale.drainJobs,
  enqueue: () => Promise<void> = () => preEnqueue(ctx, n),
): Promise<Drain> {
  const { adapter } = ctx;
  // The embedded store's PGlite runs in this process, not in the server.
  const server = adapter.inProcessWorkers ? null : ctx.serverCpu;
  await enqueue();
  ctx.progress.status(`starting ${processes} worker process${processes > 1 ? 'es' : ''}`);
  let group: WorkerGroup | undefined;
  try {
    group = await startWorkers(adapter, { processes, databaseUrl: ctx.databaseUrl, setup });
    const serverBefore = server?.readUs() ?? null;
    const started = nowMs();
    await group.go();
    const settled = await waitDrained(ctx, group, n, DRAIN_TIMEOUT_MS);
    const serverAfter = server?.readUs() ?? null;
    ctx.progress.status('stopping workers');
    const results = await group.stop();
    group = undefined;
    await verify(ctx, results, n);
    const serverCpuUs =
      serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore;
    return { rate: (n / (settled - started)) * 1000, results, serverCpuUs };
  } finally {
    group?.kill();
  }
}
