/**
 * Pure parts of the bench report: percentiles, the ratio of ChokaQ to the best peer, the printed
 * table and the JSON document. No I/O here, so they are unit-tested (test/unit/bench-report.test.ts).
 */
import {
  CHOKAQ_SYSTEMS,
  PEER_SYSTEMS,
  SYSTEMS,
  WORKLOADS,
  higherIsBetter,
  type Detail,
  type Row,
  type Skip,
  type SystemName,
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

/** The ratio of one ChokaQ system to the best peer on one workload. */
export interface Ratio {
  workload: WorkloadName;
  system: SystemName;
  /** The peer with the best figure in the same run. */
  bestPeer: SystemName;
  bestPeerValue: number;
  unit: Unit;
  /** ChokaQ's value divided by the best peer's (for `ms`, lower is better). */
  ratio: number;
}

/** Best peer per workload: the highest jobs/s or the lowest ms among the peers present. */
export function bestPeers(
  rows: readonly Row[],
): Map<WorkloadName, { system: SystemName; value: number }> {
  const best = new Map<WorkloadName, { system: SystemName; value: number }>();
  for (const row of rows) {
    if (!PEER_SYSTEMS.includes(row.system) || !Number.isFinite(row.value)) continue;
    const current = best.get(row.workload);
    const better =
      current === undefined ||
      (higherIsBetter(row.unit) ? row.value > current.value : row.value < current.value);
    if (better) best.set(row.workload, { system: row.system, value: row.value });
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
      const row = rows.find((r) => r.workload === workload && r.system === system);
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

/** A figure for the table: thousands separators for rates, two decimals for small latencies. */
export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (unit === 'jobs/s' || Math.abs(value) >= 100) {
    return Math.round(value).toLocaleString('en-US');
  }
  return value.toFixed(Math.abs(value) >= 10 ? 1 : 2);
}

/** A ratio for the table, e.g. `2.31×`. */
export function formatRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : 'n/a';
}

const UNIT_LABEL: Record<Unit, string> = { 'jobs/s': 'jobs/s ↑', ms: 'ms ↓' };

/**
 * The result table: one line per workload with every system's figure, the best peer and the ratio
 * of each ChokaQ provider to it. Cells without a figure show `-` (see the skipped notes).
 */
export function formatTable(rows: readonly Row[]): string {
  const all = ratios(rows);
  const best = bestPeers(rows);
  const header = [
    'workload',
    'unit',
    ...SYSTEMS,
    'best peer',
    ...CHOKAQ_SYSTEMS.map((s) => `${s.replace('chokaq-', '')} ÷ best`),
  ];
  const lines: string[][] = [header];
  for (const workload of WORKLOADS) {
    const ofWorkload = rows.filter((r) => r.workload === workload);
    if (ofWorkload.length === 0) continue;
    const unit = (ofWorkload[0] as Row).unit;
    const peer = best.get(workload);
    lines.push([
      workload,
      UNIT_LABEL[unit],
      ...SYSTEMS.map((system) => {
        const row = ofWorkload.find((r) => r.system === system);
        return row === undefined ? '-' : formatValue(row.value, row.unit);
      }),
      peer === undefined ? '-' : peer.system,
      ...CHOKAQ_SYSTEMS.map((system) => {
        const ratio = all.find((r) => r.workload === workload && r.system === system);
        return ratio === undefined ? '-' : formatRatio(ratio.ratio);
      }),
    ]);
  }
  const widths = header.map((_, col) => Math.max(...lines.map((line) => (line[col] ?? '').length)));
  const render = (line: string[]): string =>
    line
      .map((cell, col) =>
        col < 2 ? cell.padEnd(widths[col] ?? 0) : cell.padStart(widths[col] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [render(header), rule, ...lines.slice(1).map(render)].join('\n') + '\n';
}

/** Most figures of one workload and system printed on one line. */
const LINE_OF_FIGURES = 6;

/** Secondary figures grouped by workload and system: one line each, or one line per figure. */
export function formatDetails(details: readonly Detail[]): string {
  const out: string[] = [];
  for (const workload of WORKLOADS) {
    for (const system of SYSTEMS) {
      const mine = details.filter((d) => d.workload === workload && d.system === system);
      if (mine.length === 0) continue;
      const text = mine.map((d) => `${d.metric} ${formatValue(d.value, d.unit)} ${d.unit}`);
      const head = `  ${workload.padEnd(11)} ${system.padEnd(16)} `;
      // A long list (W6's requests) reads better one figure per line.
      if (text.length > LINE_OF_FIGURES) {
        out.push(head + (text[0] ?? ''), ...text.slice(1).map((t) => ' '.repeat(31) + t));
      } else out.push(head + text.join(', '));
      for (const d of mine) if (d.note !== undefined) out.push(`${' '.repeat(31)}${d.note}`);
    }
  }
  return out.join('\n') + (out.length > 0 ? '\n' : '');
}

/** Skipped rows, one line each. */
export function formatSkips(skips: readonly Skip[]): string {
  return skips
    .map((s) => `  ${s.workload.padEnd(11)} ${s.system.padEnd(16)} ${s.reason}\n`)
    .join('');
}

/** Everything one run produced. */
export interface BenchReport {
  rows: Row[];
  details: Detail[];
  skipped: Skip[];
  meta: Record<string, unknown>;
}

/**
 * The `--json` document: `rows` exactly as specified (workload, system, value, unit), then the
 * derived ratios, secondary figures, skipped rows and run metadata.
 */
export function toJson(report: BenchReport): string {
  const rows = report.rows.map(({ workload, system, value, unit }) => ({
    workload,
    system,
    value: roundFigure(value),
    unit,
  }));
  const derived = ratios(report.rows).map((r) => ({
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
