/**
 * Shared types of the benchmark harness (`npm run bench`). The bench is a development tool of
 * this repository, not part of the published package.
 */

import type { SystemName } from './contenders.js';

/** Default database of `npm run bench`, created when missing. */
export const DEFAULT_BENCH_URL = 'postgres://postgres@127.0.0.1:5432/chokaq_bench';

/** Workloads, in run and table order (see docs/benchmarks.md). */
export const WORKLOADS = [
  'W1-single',
  'W1-bulk',
  'W2-1p',
  'W2-2p',
  'W2-4p',
  'W3-p99',
  'W4-lag-p99',
  'W5',
  'W8-capped',
  'W9-keyed',
  'W10-flow',
  'W2-sweep',
  'W6-operator',
  'W7-observability',
] as const;
export type WorkloadName = (typeof WORKLOADS)[number];

/** Options of one bench run. */
export interface BenchOptions {
  systems: readonly SystemName[];
  workloads: readonly WorkloadName[];
  quick: boolean;
  databaseUrl: string;
  /** Where to write the JSON document, if anywhere. */
  jsonFile: string | undefined;
  /** The command line, for the report. */
  command: string;
}

/** Units of the headline figures; the direction says which way is better. */
export type Unit = 'jobs/s' | 'ms' | '% of cap';

/** Whether a larger value of `unit` is better. */
export function higherIsBetter(unit: Unit): boolean {
  return unit !== 'ms';
}

/** Where in the W2 concurrency sweep a figure was measured. */
export interface SweepPoint {
  /** Jobs run at once per worker process. */
  concurrency: number;
  processes: number;
}

/** One headline figure, as written to `--json`. */
export interface Row {
  workload: WorkloadName;
  system: SystemName;
  value: number;
  unit: Unit;
  /** Only on `W2-sweep` rows: the concurrency and processes of the drain. */
  point?: SweepPoint;
}

/** A secondary figure (p50/p95, RSS, CPU per job, history size…), printed under the table. */
export interface Detail {
  workload: WorkloadName;
  system: SystemName;
  metric: string;
  value: number;
  unit: string;
  /** Free text printed under the figure (for example where W5's history went). */
  note?: string;
}

/** A row that could not be produced, with the reason (missing peer, not applicable, failure). */
export interface Skip {
  workload: WorkloadName | '*';
  system: SystemName;
  reason: string;
}

/** The payload every bench job carries: its index in the run and its enqueue time (epoch ms). */
export interface BenchJob {
  i: number;
  t: number;
  /** Its concurrency key, in W9 only (the peers carry it as payload). */
  k?: string;
  /** W10's fan-in job only: how many jobs it waits for (set by the adapter; its handler checks). */
  d?: number;
}

/** Called by a system's handler for every job it runs. */
export type JobSink = (job: BenchJob) => void;

/** Wall-clock time in epoch milliseconds with sub-millisecond precision, comparable across processes. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Worker processes of a drain workload: W2-2p two, W2-4p four, every other one. */
export function drainProcesses(workload: WorkloadName): number {
  if (workload === 'W2-2p') return 2;
  if (workload === 'W2-4p') return 4;
  return 1;
}
