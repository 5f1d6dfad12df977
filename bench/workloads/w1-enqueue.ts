/**
 * W1 enqueue: `enqueueJobs` jobs from `producers` concurrent producers in one process, one job
 * per call (W1-single), or in calls of `bulkSize` jobs (W1-bulk). No workers run; the check is
 * that exactly the jobs enqueued are pending afterwards.
 */
import { nowMs, type BenchJob } from '../types.js';
import { CorrectnessError, type WorkloadContext, type WorkloadOutcome } from './common.js';

/** Runs W1-single or W1-bulk for one system. */
export async function runEnqueue(
  ctx: WorkloadContext,
  mode: 'single' | 'bulk',
): Promise<WorkloadOutcome> {
  const { adapter, scale } = ctx;
  const n = scale.enqueueJobs;
  await adapter.reset();
  const batch = mode === 'single' ? 1 : scale.bulkSize;
  let next = 0;
  let done = 0;
  const producer = async (): Promise<void> => {
    for (;;) {
      const from = next;
      if (from >= n) return;
      next = Math.min(n, from + batch);
      if (mode === 'single') {
        await adapter.enqueue({ i: from, t: nowMs() });
      } else {
        const jobs: BenchJob[] = [];
        for (let i = from; i < next; i++) jobs.push({ i, t: nowMs() });
        await adapter.enqueueBulk(jobs);
      }
      done += mode === 'single' ? 1 : next - from;
    }
  };
  const ticker = setInterval(() => {
    ctx.progress.status(`enqueued ${done.toLocaleString('en-US')}/${n.toLocaleString('en-US')}`);
  }, 200);
  const started = nowMs();
  try {
    await Promise.all(Array.from({ length: scale.producers }, producer));
  } finally {
    clearInterval(ticker);
  }
  const elapsed = nowMs() - started;
  const pending = await adapter.unsettled();
  if (pending !== n) throw new CorrectnessError(`${pending} jobs pending after enqueueing ${n}`);
  const workload = mode === 'single' ? 'W1-single' : 'W1-bulk';
  return {
    rows: [{ workload, system: ctx.system, value: (n / elapsed) * 1000, unit: 'jobs/s' }],
    details: [{ workload, system: ctx.system, metric: 'elapsed', value: elapsed, unit: 'ms' }],
  };
}
