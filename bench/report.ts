/**
 * Pure parts of the bench report: percentiles, the ratio of ChokaQ to the best peer at its best
 * settings, the printed tables and the JSON document. No I/O here, so they are unit-tested
 * (test/unit/bench-report.test.ts).
 */
import { CHOKAQ_SYSTEMS, PEERS, SYSTEMS, labelOf, type SystemName } from './contenders.js';
import { sweepRatios } from './sweep-report.js';
import { renderTable } from './table.js';
import {
  WORKLOADS,
  higherIsBetter,
  type Detail,
  type Row,
  type Skip,
  type Unit,
  type WorkloadName,
} from './types.js';

/**
 * Nearest-rank percentile of `values` (unsorted is fine; the input is not changed).
 * @returns `NaN` for an empty list.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = Float64Array.from(values).sort();
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** The ratio of one ChokaQ row to the best peer on one workload. */
export interface Ratio {
  workload: WorkloadName;
  system: SystemName;
  /** The peer row with the best figure in the same run. */
  bestPeer: SystemName;
  bestPeerValue: number;
  unit: Unit;
  /** ChokaQ's value divided by the best peer's (for `ms`, lower is better). */
  ratio: number;
}

/** Whether `a` is a better figure than `b` in `unit`. */
function better(a: number, b: number, unit: Unit): boolean {
  return higherIsBetter(unit) ? a > b : a < b;
}

/**
 * Best peer per workload: the highest rate or share, or the lowest ms, among every peer row —
 * each peer at whichever of its settings (defaults, or its docs' throughput settings) did best
 * there, so the comparison never flatters ChokaQ. The sweep has its own.
 */
export function bestPeers(
  rows: readonly Row[],
): Map<WorkloadName, { system: SystemName; value: number }> {
  const best = new Map<WorkloadName, { system: SystemName; value: number }>();
  for (const row of rows) {
    if (row.point !== undefined || !PEERS.includes(row.system)) continue;
    if (!Number.isFinite(row.value)) continue;
    const current = best.get(row.workload);
    if (current === undefined || better(row.value, current.value, row.unit)) {
      best.set(row.workload, { system: row.system, value: row.value });
    }
  }
  return best;
}

/** Ratios of every ChokaQ row that has a peer to compare with, in workload order. */
export function ratios(rows: readonly Row[]): Ratio[] {
  const best = bestPeers(rows);
  const out: Ratio[] = [];
  for (const workload of WORKLOADS) {
    const peer = best.get(workload);
    if (peer === undefined || peer.value === 0) continue;
    for (const system of CHOKAQ_SYSTEMS) {
      const row = rows.find((r) => r.workload === workload && r.system === system && !r.point);
      if (row === undefined || !Number.isFinite(row.value)) continue;
      out.push({
        workload,
        system,
        bestPeer: peer.system,
        bestPeerValue: peer.value,
        unit: row.unit,
        ratio: row.value / peer.value,
      });
    }
  }
  return out;
}

/**
 * A figure for the table: thousands separators for rates and counts, one decimal for shares, two
 * for small latencies.
 */
export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (unit === 'jobs/s' || unit === 'jobs' || Math.abs(value) >= 100) {
    return Math.round(value).toLocaleString('en-US');
  }
  if (unit === '% of cap') return value.toFixed(1);
  return value.toFixed(Math.abs(value) >= 10 ? 1 : 2);
}

/** A ratio for the table, e.g. `2.31×`. */
export function formatRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : 'n/a';
}

/** How a unit is printed in a table head: with the direction that is better. */
const UNIT_LABEL: Record<Unit, string> = {
  'jobs/s': 'jobs/s ↑',
  ms: 'ms ↓',
  '% of cap': '% of cap ↑',
};

/** The workloads of the main table (the sweep has its own), in order, with their unit. */
function mainWorkloads(rows: readonly Row[]): [WorkloadName, Unit][] {
  const out: [WorkloadName, Unit][] = [];
  for (const workload of WORKLOADS) {
    const row = rows.find((r) => r.workload === workload && r.point === undefined);
    if (row !== undefined) out.push([workload, row.unit]);
  }
  return out;
}

/**
 * The figures: one line per row (system and settings) with its figure for every workload. Cells
 * without a figure show `-` (see the skipped notes).
 */
export function formatTable(rows: readonly Row[]): string {
  const workloads = mainWorkloads(rows);
  const systems = SYSTEMS.filter((s) => rows.some((r) => r.system === s && !r.point));
  const body = systems.map((system) => [
    labelOf(system),
    ...workloads.map(([workload]) => {
      const row = rows.find((r) => r.workload === workload && r.system === system && !r.point);
      return row === undefined ? '-' : formatValue(row.value, row.unit);
    }),
  ]);
  return renderTable(
    [
      ['system (settings)', ...workloads.map(([w]) => w)],
      ['', ...workloads.map(([, unit]) => UNIT_LABEL[unit])],
    ],
    body,
  );
}

/** Short column heads of the ChokaQ rows' ratios. */
const RATIO_HEAD: Partial<Record<SystemName, string>> = {
  'chokaq-postgres': 'postgres ÷ best',
  'chokaq-postgres-c128': 'postgres c128 ÷ best',
  'chokaq-postgres-nohistory': 'no history ÷ best',
  'chokaq-embedded': 'embedded ÷ best',
};

/**
 * The comparison: one line per workload with the best peer row, its figure and the ratio of each
 * ChokaQ row to it. Empty when no workload has both.
 */
export function formatRatios(rows: readonly Row[]): string {
  const all = ratios(rows);
  const best = bestPeers(rows);
  const systems = CHOKAQ_SYSTEMS.filter((s) => all.some((r) => r.system === s));
  const body: string[][] = [];
  for (const [workload, unit] of mainWorkloads(rows)) {
    const peer = best.get(workload);
    if (peer === undefined || !all.some((r) => r.workload === workload)) continue;
    body.push([
      workload,
      UNIT_LABEL[unit],
      labelOf(peer.system),
      formatValue(peer.value, unit),
      ...systems.map((system) => {
        const ratio = all.find((r) => r.workload === workload && r.system === system);
        return ratio === undefined ? '-' : formatRatio(ratio.ratio);
      }),
    ]);
  }
  if (body.length === 0) return '';
  return renderTable(
    [
      [
        'workload',
        'unit',
        'best peer (its best row)',
        'its figure',
        ...systems.map((s) => RATIO_HEAD[s] ?? s),
      ],
    ],
    body,
    3,
  );
}

/** Most figures of one workload and system printed on one line. */
const LINE_OF_FIGURES = 6;
/** Indent of the lines under a details head (one figure each, or a note). */
const UNDER = ' '.repeat(6);

/**
 * Secondary figures grouped by workload and row: `workload · row: figures` on one line, or, for a
 * long list, one figure per line under it; notes follow on their own lines.
 */
export function formatDetails(details: readonly Detail[]): string {
  const out: string[] = [];
  for (const workload of WORKLOADS) {
    for (const system of SYSTEMS) {
      const mine = details.filter((d) => d.workload === workload && d.system === system);
      if (mine.length === 0) continue;
      const text = mine.map((d) =>
        `${d.metric} ${formatValue(d.value, d.unit)} ${d.unit}`.trimEnd(),
      );
      const head = `  ${workload} · ${labelOf(system)}:`;
      // A long list (W6's requests) reads better one figure per line.
      if (text.length > LINE_OF_FIGURES) out.push(head, ...text.map((t) => UNDER + t));
      else out.push(`${head} ${text.join(', ')}`);
      for (const d of mine) if (d.note !== undefined) out.push(UNDER + d.note);
    }
  }
  return out.join('\n') + (out.length > 0 ? '\n' : '');
}

/** Skipped rows, one line each. */
export function formatSkips(skips: readonly Skip[]): string {
  return skips.map((s) => `  ${s.workload} · ${labelOf(s.system)}: ${s.reason}\n`).join('');
}

/** Everything one run produced. */
export interface BenchReport {
  rows: Row[];
  details: Detail[];
  skipped: Skip[];
  meta: Record<string, unknown>;
}

/**
 * The `--json` document: `rows` as specified (workload, system, value, unit; the sweep's also
 * concurrency and processes), then the derived ratios (the sweep's too), secondary figures,
 * skipped rows and run metadata.
 */
export function toJson(report: BenchReport): string {
  const rows = report.rows.map(({ workload, system, value, unit, point }) => ({
    workload,
    system,
    value: roundFigure(value),
    unit,
    ...(point === undefined ? {} : point),
  }));
  const derived = [...ratios(report.rows), ...sweepRatios(report.rows)].map((r) => ({
    ...r,
    bestPeerValue: roundFigure(r.bestPeerValue),
    ratio: Math.round(r.ratio * 1000) / 1000,
  }));
  const details = report.details.map((d) => ({ ...d, value: roundFigure(d.value) }));
  return (
    JSON.stringify(
      { rows, ratios: derived, details, skipped: report.skipped, meta: report.meta },
      null,
      2,
    ) + '\n'
  );
}

/** Rates as integers, small figures to 0.01. */
function roundFigure(value: number): number | null {
  if (!Number.isFinite(value)) return null;
  return Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 100) / 100;
}
