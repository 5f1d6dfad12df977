/**
 * W6 operator: what an operator's requests cost over a large history. `archiveRows` succeeded and
 * `deadRows` failed jobs are seeded the way a busy system holds them (see the adapter's operator
 * side), then each operator request — first page, next page, filtered pages, a count, the DLQ
 * error groups, a job's detail — runs `WARMUP` times untimed and `REPEATS` times timed, one after
 * another. Headline: the first page's p50 (every state, newest first: three tables merged);
 * every request's p50 and p95 are details. Only ChokaQ has an operator API, so the peers skip it.
 */
import { percentile } from '../report.js';
import type { Detail } from '../types.js';
import type { WorkloadContext, WorkloadOutcome } from './common.js';

/** Untimed calls of each request first (plans cached, pages in memory as on a live system). */
const WARMUP = 3;
/** Timed calls of each request. */
const REPEATS = 30;

/** Runs W6 for one system. */
export async function runOperator(ctx: WorkloadContext): Promise<WorkloadOutcome> {
  const { adapter, scale, system } = ctx;
  const operator = adapter.operator;
  if (operator === undefined) throw new Error(`${system} has no operator side`);
  await adapter.reset();
  ctx.progress.status('seeding history');
  const seededAt = performance.now();
  const note = await operator.seed(scale.archiveRows, scale.deadRows);
  const details: Detail[] = [
    {
      workload: 'W6-operator',
      system,
      metric: 'history seeded in',
      value: (performance.now() - seededAt) / 1000,
      unit: 's',
      note,
    },
  ];
  let headline = Number.NaN;
  try {
    for (const [name, call] of await operator.requests()) {
      ctx.progress.status(name);
      for (let i = 0; i < WARMUP; i++) await call();
      const times: number[] = [];
      for (let i = 0; i < REPEATS; i++) {
        const started = performance.now();
        await call();
        times.push(performance.now() - started);
      }
      const p50 = percentile(times, 50);
      if (name === 'first page') headline = p50;
      details.push(
        { workload: 'W6-operator', system, metric: `${name} p50`, value: p50, unit: 'ms' },
        {
          workload: 'W6-operator',
          system,
          metric: `${name} p95`,
          value: percentile(times, 95),
          unit: 'ms',
        },
      );
    }
  } finally {
    await operator.close?.();
  }
  return {
    rows: [{ workload: 'W6-operator', system, value: headline, unit: 'ms' }],
    details,
  };
}
