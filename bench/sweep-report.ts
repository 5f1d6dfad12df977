/**
 * The W2 concurrency sweep in the report: ChokaQ at its defaults against each peer at its best
 * settings, at the same concurrency and processes. Pure, unit-tested with the report.
 */
import { CONTENDERS, SWEEP_SYSTEMS, TUNED_PEERS, labelOf, type SystemName } from './contenders.js';
import { renderTable } from './table.js';
import type { Row, SweepPoint, Unit } from './types.js';

/** The ChokaQ row of the sweep. */
const SWEPT_CHOKAQ: SystemName = 'chokaq-postgres';

/** The ratio of ChokaQ to the best peer at one point of the sweep. */
export interface SweepRatio {
  workload: 'W2-sweep';
  system: SystemName;
  point: SweepPoint;
  bestPeer: SystemName;
  bestPeerValue: number;
  unit: Unit;
  ratio: number;
}

/** The sweep's points present in `rows`, by processes, then concurrency. */
function points(rows: readonly Row[]): SweepPoint[] {
  const seen = new Map<string, SweepPoint>();
  for (const row of rows) {
    if (row.point !== undefined) seen.set(key(row.point), row.point);
  }
  return [...seen.values()].sort(
    (a, b) => a.processes - b.processes || a.concurrency - b.concurrency,
  );
}

function key(point: SweepPoint): string {
  return `${point.processes}/${point.concurrency}`;
}

function at(rows: readonly Row[], system: SystemName, point: SweepPoint): Row | undefined {
  return rows.find(
    (r) => r.system === system && r.point !== undefined && key(r.point) === key(point),
  );
}

/** ChokaQ ÷ the fastest peer at every point where both ran. */
export function sweepRatios(rows: readonly Row[]): SweepRatio[] {
  const out: SweepRatio[] = [];
  for (const point of points(rows)) {
    const mine = at(rows, SWEPT_CHOKAQ, point);
    let best: Row | undefined;
    for (const peer of TUNED_PEERS) {
      const row = at(rows, peer, point);
      if (row !== undefined && (best === undefined || row.value > best.value)) best = row;
    }
    if (mine === undefined || best === undefined || best.value === 0) continue;
    out.push({
      workload: 'W2-sweep',
      system: SWEPT_CHOKAQ,
      point,
      bestPeer: best.system,
      bestPeerValue: best.value,
      unit: mine.unit,
      ratio: mine.value / best.value,
    });
  }
  return out;
}

/** The sweep as a table: one line per point, jobs/s of each row, the best peer and the ratio. */
export function formatSweep(rows: readonly Row[]): string {
  const all = points(rows);
  if (all.length === 0) return '';
  const systems = SWEEP_SYSTEMS.filter((s) => rows.some((r) => r.system === s && r.point));
  const ratios = sweepRatios(rows);
  const body = all.map((point) => {
    const ratio = ratios.find((r) => key(r.point) === key(point));
    return [
      String(point.processes),
      String(point.concurrency),
      ...systems.map((system) => {
        const row = at(rows, system, point);
        return row === undefined ? '-' : Math.round(row.value).toLocaleString('en-US');
      }),
      ratio === undefined ? '-' : CONTENDERS[ratio.bestPeer].family,
      ratio === undefined ? '-' : `${ratio.ratio.toFixed(2)}×`,
    ];
  });
  return renderTable(
    [['processes', 'concurrency', ...systems.map(labelOf), 'best peer', 'ChokaQ ÷ best']],
    body,
    0,
  );
}
