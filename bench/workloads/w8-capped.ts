/**
 * W8 capped queue: `cappedJobs` jobs of 20 ms each, enqueued beforehand, worked off by four
 * worker processes while the queue is capped at three jobs running at once across all of them
 * (ChokaQ's `maxWorkers`; each peer's closest documented equivalent, see its adapter). The cap
 * allows 3 / 20 ms = 150 jobs/s; the figure is the drain's rate as a share of that. A detail
 * shows the most jobs that started within one job's time, which stays at 3 while the cap holds.
 */
import { noopWorkers, type WorkloadContext, type WorkloadOutcome } from './common.js';
import { drainOnce } from './w2-drain.js';

/** Worker processes sharing the capped queue. */
const PROCESSES = 4;
/** The queue's cap across every process. */
const CAP = 3;
/** How long each job's handler takes. */
const JOB_MS = 20;
/** The rate the cap allows, jobs/s. */
const CAP_RATE = (CAP * 1000) / JOB_MS;

/** Runs W8 for one system. */
export async function runCapped(ctx: WorkloadContext): Promise<WorkloadOutcome> {
  const { system } = ctx;
  await ctx.adapter.reset({ maxWorkers: CAP });
  const setup = noopWorkers(ctx, { jobMs: JOB_MS, maxWorkers: CAP });
  const { rate, results } = await drainOnce(ctx, PROCESSES, setup, ctx.scale.cappedJobs);
  const starts = results.flatMap((r) => r.starts);
  return {
    rows: [{ workload: 'W8-capped', system, value: (rate / CAP_RATE) * 100, unit: '% of cap' }],
    details: [
      { workload: 'W8-capped', system, metric: 'rate', value: rate, unit: 'jobs/s' },
      {
        workload: 'W8-capped',
        system,
        metric: `most started within ${JOB_MS - 1} ms (cap ${CAP})`,
        value: mostWithin(starts, JOB_MS - 1),
        unit: 'jobs',
      },
    ],
  };
}

/** The most of `times` (ms) that fall within any window of `windowMs`. */
function mostWithin(times: readonly number[], windowMs: number): number {
  const sorted = Float64Array.from(times).sort();
  let most = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while ((sorted[to] as number) - (sorted[from] as number) > windowMs) from++;
    most = Math.max(most, to - from + 1);
  }
  return most;
}
