/**
 * The targets of issue 24, checked against one run: each as met, not met, or not measured
 * (its rows did not run). Pure, unit-tested (test/unit/bench-targets.test.ts).
 */
import { formatRatio, formatValue, ratios } from './report.js';
import { renderTable } from './table.js';
import type { Row, WorkloadName } from './types.js';

/**
 * ChokaQ's figures before issue 24 that its targets say no workload may fall below, from
 * docs/benchmarks.md: W8 at defaults in the full run of 2026-12-02 (% of the cap), and W9 at
 * defaults, the median of eight runs of `--workloads W2-1p,W9-keyed` that day (jobs/s).
 */
export const BEFORE: Before = { w8PercentOfCap: 74.0, w9JobsPerSecond: 4_900 };

/** Figures before issue 24 (see {@link BEFORE}). */
export interface Before {
  w8PercentOfCap: number;
  w9JobsPerSecond: number;
}

/** One target and how the run did. */
export interface TargetResult {
  target: string;
  /** The run's figure, formatted; `-` when not measured. */
  figure: string;
  /** `undefined` when the rows it needs did not run. */
  met: boolean | undefined;
  /** A stretch target: reported, not required. */
  stretch?: true;
}

/** A target on a ChokaQ row ÷ the best peer at its best settings for a workload. */
function ratioTarget(
  rows: readonly Row[],
  workload: WorkloadName,
  target: string,
  ok: (r: number) => boolean,
): TargetResult {
  const ratio = ratios(rows).find((r) => r.workload === workload && r.system === 'chokaq-postgres');
  return ratio === undefined
    ? { target, figure: '-', met: undefined }
    : { target, figure: formatRatio(ratio.ratio), met: ok(ratio.ratio) };
}

/** A target on one row's figure ÷ another's, both in the same workload unless `against` says. */
function pairTarget(
  rows: readonly Row[],
  target: string,
  of: [WorkloadName, Row['system']],
  against: [WorkloadName, Row['system']],
  least: number,
): TargetResult {
  const a = figureOf(rows, ...of);
  const b = figureOf(rows, ...against);
  return a === undefined || b === undefined
    ? { target, figure: '-', met: undefined }
    : { target, figure: formatRatio(a / b), met: a / b >= least };
}

function figureOf(
  rows: readonly Row[],
  workload: WorkloadName,
  system: Row['system'],
): number | undefined {
  return rows.find((r) => r.workload === workload && r.system === system && !r.point)?.value;
}

/** A target on a figure of `chokaq-postgres` against a fixed floor. */
function floorTarget(
  rows: readonly Row[],
  target: string,
  workload: WorkloadName,
  floor: number,
  unit: Row['unit'],
): TargetResult {
  const value = figureOf(rows, workload, 'chokaq-postgres');
  return value === undefined
    ? { target, figure: '-', met: undefined }
    : { target, figure: formatValue(value, unit), met: value >= floor };
}

/** Every target of issue 24 against `rows`, required ones first, then the stretch ones. */
export function checkTargets(rows: readonly Row[], before: Before = BEFORE): TargetResult[] {
  const atLeast = (x: number) => (r: number) => r >= x;
  const out: TargetResult[] = [];
  for (const workload of ['W2-1p', 'W2-2p', 'W2-4p'] as const) {
    out.push(
      pairTarget(
        rows,
        `${workload} ≥ 1.2× pg-boss (batchSize 500)`,
        [workload, 'chokaq-postgres'],
        [workload, 'pg-boss-batch500'],
        1.2,
      ),
    );
  }
  out.push(
    pairTarget(
      rows,
      'W2-4p ≥ W2-1p',
      ['W2-4p', 'chokaq-postgres'],
      ['W2-1p', 'chokaq-postgres'],
      1,
    ),
  );
  for (const workload of ['W2-1p', 'W2-2p'] as const) {
    out.push(
      pairTarget(
        rows,
        `without archive rows, ${workload} ≥ 1.0× graphile-worker (localQueue 500)`,
        [workload, 'chokaq-postgres-nohistory'],
        [workload, 'graphile-worker-batched'],
        1,
      ),
    );
  }
  out.push(
    ratioTarget(rows, 'W1-single', 'W1-single ≥ 3× best peer', atLeast(3)),
    ratioTarget(rows, 'W1-bulk', 'W1-bulk ≥ 1.5× best peer', atLeast(1.5)),
    ratioTarget(rows, 'W3-p99', 'W3 p99 ≤ best peer', (r) => r <= 1),
    ratioTarget(rows, 'W4-lag-p99', 'W4 lag p99 ≤ best peer', (r) => r <= 1),
  );
  const w2 = figureOf(rows, 'W2-1p', 'chokaq-postgres');
  const w5 = figureOf(rows, 'W5', 'chokaq-postgres');
  const change = w2 === undefined || w5 === undefined ? undefined : w5 / w2 - 1;
  out.push(
    {
      // Under "no workload slower than today": a W5 faster than W2-1p (a W2-1p that read low)
      // is no regression of the drain on a long history.
      target: 'W5 at most 10 % below W2-1p',
      figure:
        change === undefined ? '-' : `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %`,
      met: change === undefined ? undefined : change >= -0.1,
    },
    floorTarget(
      rows,
      `W8 not below before (${before.w8PercentOfCap} % of the cap)`,
      'W8-capped',
      before.w8PercentOfCap,
      '% of cap',
    ),
    floorTarget(
      rows,
      `W9 not below before (${formatValue(before.w9JobsPerSecond, 'jobs/s')} jobs/s)`,
      'W9-keyed',
      before.w9JobsPerSecond,
      'jobs/s',
    ),
  );
  const stretch: TargetResult[] = [
    pairTarget(
      rows,
      'stretch: full history, W2-1p ≥ 1.0× graphile-worker (localQueue 500)',
      ['W2-1p', 'chokaq-postgres'],
      ['W2-1p', 'graphile-worker-batched'],
      1,
    ),
    floorTarget(rows, 'stretch: W8 ≥ 90 % of the cap', 'W8-capped', 90, '% of cap'),
  ];
  return [...out, ...stretch.map((t): TargetResult => ({ ...t, stretch: true }))];
}

/** The targets as a table: target, the run's figure, met / not met / not measured. */
export function formatTargets(results: readonly TargetResult[]): string {
  const verdict = (met: boolean | undefined): string =>
    met === undefined ? 'not measured' : met ? 'met' : 'NOT MET';
  return renderTable(
    [['target (chokaq-postgres at defaults unless named)', 'this run', '']],
    results.map((r) => [r.target, r.figure, verdict(r.met)]),
  );
}
