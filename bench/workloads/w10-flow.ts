/**
 * W10 flow drain: `scale.flows` flows, each `WIDTH` no-op children and a fan-in job that waits
 * for all of them (`dependsOn`) and reads them when it runs (`ctx.dependencies()`), enqueued
 * beforehand with one `enqueueWorkflow` call per flow, then worked off by one worker process at
 * the row's concurrency. The figure is jobs (children and fan-ins) divided by the time from "go"
 * until every job ran and none is unsettled, as in W2-1p. Details: flows/s, the ratio to the
 * row's own W2-1p of the same run, CPU per job, and each flow's time from its last child's start
 * to its fan-in's start — the children's handlers return at once, so that is the last child's
 * settle, the release of the fan-in job and its claim. Only ChokaQ has jobs that wait for other
 * jobs, so the peers skip it.
 */
import { percentile } from '../report.js';
import type { WorkerResult } from '../recorder.js';
import type { FlowSide } from '../systems/adapter.js';
import { nowMs, type BenchJob, type Detail } from '../types.js';
import {
  CorrectnessError,
  noopWorkers,
  type WorkloadContext,
  type WorkloadOutcome,
} from './common.js';
import { cpuPerJob, drainOnce } from './w2-drain.js';

/** Children of each flow (the fan-out); the fan-in job waits for all of them. */
export const WIDTH = 10;
/** Flows enqueued at once while enqueueing beforehand (setup, not timed). */
const ENQUEUERS = 8;

/** Runs W10 for one system. */
export async function runFlow(ctx: WorkloadContext): Promise<WorkloadOutcome> {
  const { system, adapter } = ctx;
  const flowSide = adapter.flows;
  if (flowSide === undefined) throw new Error(`${system} has no jobs that wait for other jobs`);
  const flows = ctx.scale.flows;
  const n = flows * (WIDTH + 1);
  await adapter.reset();
  let enqueueSeconds = 0;
  const drain = await drainOnce(ctx, 1, noopWorkers(ctx), n, async () => {
    const began = nowMs();
    await enqueueFlows(ctx, flowSide, flows);
    enqueueSeconds = (nowMs() - began) / 1000;
    await adapter.analyze();
  });
  const gaps = fanInGaps(drain.results, flows);
  const early = gaps.filter((gap) => !(gap >= 0)).length;
  if (early > 0)
    throw new CorrectnessError(`${early} fan-in jobs started before a child of theirs`);
  const { rate } = drain;
  const detail = (metric: string, value: number, unit: string, note?: string): Detail => ({
    workload: 'W10-flow',
    system,
    metric,
    value,
    unit,
    ...(note === undefined ? {} : { note }),
  });
  const details: Detail[] = [detail('flows/s', rate / (WIDTH + 1), 'flows/s')];
  const w2 = ctx.earlier.find((r) => r.workload === 'W2-1p' && r.system === system);
  if (w2 !== undefined) details.push(detail('÷ own W2-1p', rate / w2.value, '×'));
  details.push(
    ...cpuPerJob(
      ctx,
      'W10-flow',
      drain,
      n,
      `${flows.toLocaleString('en-US')} flows of ${WIDTH} children and a fan-in job (${n.toLocaleString('en-US')} jobs)`,
    ),
    detail('last child → fan-in start p50', percentile(gaps, 50), 'ms'),
    detail('p95', percentile(gaps, 95), 'ms'),
    detail('p99', percentile(gaps, 99), 'ms'),
    detail('max', Math.max(...gaps), 'ms'),
    detail(
      'flows enqueued in',
      enqueueSeconds,
      's',
      `one enqueueWorkflow call per flow, ${ENQUEUERS} at once (beforehand, not timed)`,
    ),
  );
  return { rows: [{ workload: 'W10-flow', system, value: rate, unit: 'jobs/s' }], details };
}

/**
 * Enqueues flows `0..flows-1`, `ENQUEUERS` calls at once. Flow `f` is jobs
 * `f·(WIDTH+1) + c` for its children `c < WIDTH`, and `f·(WIDTH+1) + WIDTH` for its fan-in job.
 */
async function enqueueFlows(ctx: WorkloadContext, side: FlowSide, flows: number): Promise<void> {
  let next = 0;
  const enqueuer = async (): Promise<void> => {
    for (let f = next++; f < flows; f = next++) {
      const first = f * (WIDTH + 1);
      const children: BenchJob[] = [];
      for (let c = 0; c < WIDTH; c++) children.push({ i: first + c, t: nowMs() });
      await side.enqueueFlow(children, { i: first + WIDTH, t: nowMs() });
      if (f % 100 === 99) ctx.progress.status(`enqueued ${f + 1}/${flows} flows`);
    }
  };
  await Promise.all(Array.from({ length: ENQUEUERS }, enqueuer));
}

/**
 * Each flow's time from its last child's start to its fan-in job's start, in ms (negative, or
 * `NaN` for a job that did not run, when the order was broken), from the runs the worker
 * processes recorded; the job numbering of {@link enqueueFlows}.
 */
export function fanInGaps(results: readonly WorkerResult[], flows: number): number[] {
  const starts = new Float64Array(flows * (WIDTH + 1)).fill(Number.NaN);
  for (const result of results) {
    result.indices.forEach((i, k) => {
      starts[i] = result.starts[k] as number;
    });
  }
  const gaps: number[] = [];
  for (let f = 0; f < flows; f++) {
    const first = f * (WIDTH + 1);
    let last = Number.NEGATIVE_INFINITY;
    for (let c = 0; c < WIDTH; c++) last = Math.max(last, starts[first + c] as number);
    gaps.push((starts[first + WIDTH] as number) - last);
  }
  return gaps;
}
