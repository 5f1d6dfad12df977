/**
 * W2 concurrency sweep: the W2 drain at 1, 8, 32 and 128 jobs at once per worker process, in one
 * and in two processes, every system at the same concurrency. Where the row's own W2-1p / W2-2p
 * ran at that concurrency earlier in the run, its figure is reused (noted in the details) rather
 * than measured again. A point that fails is reported and the sweep goes on with the next.
 */
import type { Detail, Row, WorkloadName } from '../types.js';
import {
  CorrectnessError,
  noopWorkers,
  type WorkloadContext,
  type WorkloadOutcome,
} from './common.js';
import { drainOnce } from './w2-drain.js';

/** Jobs run at once per worker process, in sweep order. */
const SWEEP_CONCURRENCIES = [1, 8, 32, 128] as const;
/** Worker processes, in sweep order. */
const SWEEP_PROCESSES = [1, 2] as const;

/** Runs the sweep for one system. */
export async function runSweep(ctx: WorkloadContext): Promise<WorkloadOutcome> {
  const { system } = ctx;
  const rows: Row[] = [];
  const details: Detail[] = [];
  const failures: string[] = [];
  for (const processes of SWEEP_PROCESSES) {
    for (const concurrency of SWEEP_CONCURRENCIES) {
      const point = { concurrency, processes };
      const metric = `${processes}p c${concurrency}`;
      const same: WorkloadName = processes === 1 ? 'W2-1p' : 'W2-2p';
      const earlier = ctx.earlier.find((r) => r.workload === same && r.system === system);
      if (earlier !== undefined && concurrency === ctx.concurrency) {
        rows.push({ ...earlier, workload: 'W2-sweep', point });
        details.push({
          workload: 'W2-sweep',
          system,
          metric: `${metric} (this run's ${same})`,
          value: earlier.value,
          unit: 'jobs/s',
        });
        continue;
      }
      ctx.progress.status(`${metric}: resetting`);
      try {
        await ctx.adapter.reset();
        const { rate } = await drainOnce(ctx, processes, noopWorkers(ctx, { concurrency }));
        rows.push({ workload: 'W2-sweep', system, value: rate, unit: 'jobs/s', point });
      } catch (error) {
        const kind = error instanceof CorrectnessError ? 'INCORRECT' : 'FAILED';
        failures.push(
          `${metric}: ${kind}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
  return { rows, details, failures };
}
