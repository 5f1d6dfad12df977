/** What every workload shares: its context, waiting, pre-enqueueing and the correctness check. */
import type { WorkerResult } from '../recorder.js';
import type { SystemName } from '../contenders.js';
import type { ServerCpu } from '../server-cpu.js';
import type { SystemAdapter, WorkerSetup } from '../systems/adapter.js';
import type { BenchJob, Detail, Row } from '../types.js';
import { nowMs } from '../types.js';
import type { WorkerGroup } from '../worker-group.js';

/** Counts of one run (full or `--quick`). */
export interface Scale {
  /** W1 jobs. */
  enqueueJobs: number;
  /** W1 concurrent producers. */
  producers: number;
  /** W1-bulk jobs per call. */
  bulkSize: number;
  /** W2 / W5 jobs. */
  drainJobs: number;
  /** W3 jobs and their spacing. */
  latencyJobs: number;
  latencyGapMs: number;
  /** W4 producer rate and duration. */
  steadyRate: number;
  steadySeconds: number;
  /** W5 history rows. */
  archiveRows: number;
  deadRows: number;
  /** W8 jobs (20 ms each, at most 3 at once: 150 jobs/s at best). */
  cappedJobs: number;
  /** W10 flows (10 children and a fan-in job each: 11 jobs per flow). */
  flows: number;
  /** Jobs run at once per worker process, unless a row or the sweep says otherwise. */
  concurrency: number;
}

export const FULL_SCALE: Scale = {
  enqueueJobs: 20_000,
  producers: 32,
  bulkSize: 1000,
  drainJobs: 20_000,
  latencyJobs: 500,
  latencyGapMs: 10,
  steadyRate: 500,
  steadySeconds: 60,
  archiveRows: 1_000_000,
  deadRows: 100_000,
  cappedJobs: 2250,
  flows: 2000,
  concurrency: 32,
};

export const QUICK_SCALE: Scale = {
  ...FULL_SCALE,
  enqueueJobs: 2000,
  drainJobs: 2000,
  latencyJobs: 100,
  steadyRate: 200,
  steadySeconds: 5,
  archiveRows: 50_000,
  deadRows: 5000,
  cappedJobs: 300,
  flows: 200,
};

/** Shows what is running; the runner prints it to stderr. */
export interface ProgressSink {
  status(text: string): void;
}

/** Everything a workload needs for one system. */
export interface WorkloadContext {
  system: SystemName;
  adapter: SystemAdapter;
  scale: Scale;
  /** Jobs run at once per worker process by this row (its own, or the run's). */
  concurrency: number;
  databaseUrl: string;
  progress: ProgressSink;
  /** Headline figures of this system so far in the run (W5 compares with W2-1p). */
  earlier: readonly Row[];
  /** The PostgreSQL server's CPU, or `null` when it cannot be read here (see server-cpu.ts). */
  serverCpu: ServerCpu | null;
}

/** What a workload produced for one system. */
export interface WorkloadOutcome {
  rows: Row[];
  details: Detail[];
  /** Parts of the workload that failed while the rest went on (the sweep's points), described. */
  failures?: string[];
}

/** The worker setup of a workload's no-op jobs at the row's concurrency, with `changes`. */
export function noopWorkers(ctx: WorkloadContext, changes: Partial<WorkerSetup> = {}): WorkerSetup {
  return { concurrency: ctx.concurrency, jobMs: 0, observability: 'default', ...changes };
}

/** A run that broke a correctness rule (lost, duplicated or unsettled jobs). */
export class CorrectnessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorrectnessError';
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `probe` every `intervalMs` until it returns true.
 * @throws Error naming `what` after `timeoutMs`.
 */
export async function waitFor(
  what: string,
  probe: () => boolean | Promise<boolean>,
  options: { timeoutMs: number; intervalMs: number; onTick?: () => void },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await probe()) return;
    options.onTick?.();
    if (Date.now() > deadline)
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what}`);
    await sleep(options.intervalMs);
  }
}

/**
 * Enqueues jobs `0..n-1` in bulk calls of 1,000 (job `i` with the concurrency key `keyOf(i)`, if
 * given), then ANALYZEs the system's tables, so no system plans its fetch on a table it has never
 * seen (setup, not timed).
 */
export async function preEnqueue(
  ctx: WorkloadContext,
  n: number,
  keyOf?: (i: number) => string,
): Promise<void> {
  for (let from = 0; from < n; from += 1000) {
    const jobs: BenchJob[] = [];
    for (let i = from; i < Math.min(n, from + 1000); i++) {
      jobs.push(keyOf === undefined ? { i, t: nowMs() } : { i, t: nowMs(), k: keyOf(i) });
    }
    await ctx.adapter.enqueueBulk(jobs);
    ctx.progress.status(
      `pre-enqueued ${Math.min(n, from + 1000).toLocaleString('en-US')}/${n.toLocaleString('en-US')}`,
    );
  }
  await ctx.adapter.analyze();
}

/**
 * Waits until the workers ran `n` jobs, then until the store shows none unsettled.
 * @returns The time (epoch ms) all jobs were settled.
 */
export async function waitDrained(
  ctx: WorkloadContext,
  group: WorkerGroup,
  n: number,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  let lastPrint = 0;
  await waitFor(
    `${n} jobs to run`,
    () => {
      const failure = group.failure();
      if (failure) throw failure;
      return group.handled() >= n;
    },
    {
      timeoutMs,
      intervalMs: 2,
      onTick: () => {
        if (Date.now() - lastPrint < 200) return;
        lastPrint = Date.now();
        const rss = group.rss().map((b) => `${Math.round(b / 2 ** 20)} MB`);
        ctx.progress.status(
          `ran ${group.handled().toLocaleString('en-US')}/${n.toLocaleString('en-US')} (RSS ${rss.join(', ')})`,
        );
      },
    },
  );
  await waitFor('every job to settle', async () => (await ctx.adapter.unsettled()) === 0, {
    timeoutMs: Math.max(10_000, timeoutMs - (Date.now() - started)),
    intervalMs: 5,
  });
  return nowMs();
}

/**
 * The correctness rules of every run: each of the `n` jobs ran exactly once, none is left
 * unsettled, none failed, and (when the system keeps them) all `n` are kept as succeeded.
 * @throws CorrectnessError describing the first rule broken.
 */
export async function verify(
  ctx: WorkloadContext,
  results: readonly WorkerResult[],
  n: number,
): Promise<void> {
  const seen = new Uint32Array(n);
  let outside = 0;
  for (const result of results) {
    for (const i of result.indices) {
      if (i >= 0 && i < n) seen[i] = (seen[i] as number) + 1;
      else outside++;
    }
  }
  let missing = 0;
  let duplicated = 0;
  for (const times of seen) {
    if (times === 0) missing++;
    else if (times > 1) duplicated++;
  }
  const problems: string[] = [];
  if (missing > 0) problems.push(`${missing} jobs never ran`);
  if (duplicated > 0) problems.push(`${duplicated} jobs ran more than once`);
  if (outside > 0) problems.push(`${outside} runs of unknown jobs`);
  const unsettled = await ctx.adapter.unsettled();
  if (unsettled > 0) problems.push(`${unsettled} jobs left unsettled`);
  const failed = await ctx.adapter.failed();
  if (failed !== 0) problems.push(`${failed} jobs failed`);
  const finished = await ctx.adapter.finished();
  if (finished !== null && finished !== n)
    problems.push(`${finished} succeeded jobs kept, expected ${n}`);
  if (problems.length > 0) throw new CorrectnessError(problems.join('; '));
}
