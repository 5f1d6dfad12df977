/**
 * The targets of issue 14 §2, checked against one run: each as met, not met, or not measured
 * (its rows did not run). Pure, unit-tested (test/unit/bench-targets.test.ts).
 */
import { labelOf } from './contenders.js';
import { formatRatio, formatValue, ratios } from './report.js';
import { sweepRatios } from './sweep-report.js';
import { renderTable } from './table.js';
import type { Row, WorkloadName } from './types.js';

/**
 * The embedded store's W2-1p drain before issue 14 (jobs/s): the median of six runs of
 * `--only chokaq-embedded --workloads W2-1p` of the engine at commit 47fced8 on this shared
 * machine, 2026-12-02 (997, 3,715, 1,204, 5,140, 3,394, 2,966 jobs/s).
 */
export const EMBEDDED_DRAIN_BEFORE = 3180;

/** One target and how the run did. */
export interface TargetResult {
  target: string;
  /** The run's figure, formatted; `-` when not measured. */
  figure: string;
  /** `undefined` when the rows it needs did not run. */
  met: boolean | undefined;
}

/** A target on ChokaQ ÷ the best peer at its best settings for a workload. */
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

function figureOf(
  rows: readonly Row[],
  workload: WorkloadName,
  system: Row['system'],
): number | undefined {
  return rows.find((r) => r.workload === workload && r.system === system && !r.point)?.value;
}

/** Every target of issue 14 §2 against `rows`; `embeddedBefore` is the embedded drain to double. */
export function checkTargets(
  rows: readonly Row[],
  embeddedBefore = EMBEDDED_DRAIN_BEFORE,
): TargetResult[] {
  const atLeast = (x: number) => (r: number) => r >= x;
  const out: TargetResult[] = [
    ratioTarget(rows, 'W2-1p', 'W2-1p ≥ 1.5× best peer', atLeast(1.5)),
    ratioTarget(rows, 'W2-2p', 'W2-2p ≥ 1.5× best peer', atLeast(1.5)),
  ];
  const sweep = sweepRatios(rows);
  for (const concurrency of [8, 128]) {
    for (const processes of [1, 2]) {
      const target = `W2 sweep, concurrency ${concurrency}, ${processes}p ≥ 1.5× best peer`;
      const ratio = sweep.find(
        (r) => r.point.concurrency === concurrency && r.point.processes === processes,
      );
      out.push(
        ratio === undefined
          ? { target, figure: '-', met: undefined }
          : { target, figure: formatRatio(ratio.ratio), met: ratio.ratio >= 1.5 },
      );
    }
  }
  out.push(
    ratioTarget(rows, 'W3-p99', 'W3 p99 ≤ best peer', (r) => r <= 1),
    ratioTarget(rows, 'W4-lag-p99', 'W4 lag p99 ≤ best peer', (r) => r <= 1),
    ratioTarget(rows, 'W1-single', 'W1-single ≥ 3× best peer', atLeast(3)),
    ratioTarget(rows, 'W1-bulk', 'W1-bulk ≥ 1× best peer', atLeast(1)),
  );
  const w2 = figureOf(rows, 'W2-1p', 'chokaq-postgres');
  const w5 = figureOf(rows, 'W5', 'chokaq-postgres');
  const change = w2 === undefined || w5 === undefined ? undefined : w5 / w2 - 1;
  out.push({
    target: 'W5 within 10 % of W2-1p',
    figure: change === undefined ? '-' : `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %`,
    met: change === undefined ? undefined : Math.abs(change) <= 0.1,
  });
  const capped = figureOf(rows, 'W8-capped', 'chokaq-postgres');
  out.push({
    target: 'W8 capped queue ≥ 90 % of the cap',
    figure: capped === undefined ? '-' : `${formatValue(capped, '% of cap')} %`,
    met: capped === undefined ? undefined : capped >= 90,
  });
  const embedded = figureOf(rows, 'W2-1p', 'chokaq-embedded');
  out.push({
    target: `${labelOf('chokaq-embedded')} W2-1p ≥ 2× before (${formatValue(embeddedBefore, 'jobs/s')} jobs/s)`,
    figure: embedded === undefined ? '-' : formatRatio(embedded / embeddedBefore),
    met: embedded === undefined ? undefined : embedded >= 2 * embeddedBefore,
  });
  return out;
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
