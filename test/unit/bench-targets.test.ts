import { describe, expect, it } from 'vitest';
import { formatSweep, sweepRatios } from '../../bench/sweep-report.js';
import { checkTargets, formatTargets } from '../../bench/targets.js';
import type { Row } from '../../bench/types.js';

const sweep = (
  system: Row['system'],
  concurrency: number,
  processes: number,
  value: number,
): Row => ({
  workload: 'W2-sweep',
  system,
  value,
  unit: 'jobs/s',
  point: { concurrency, processes },
});

const sweepRows: Row[] = [
  sweep('chokaq-postgres', 8, 1, 3000),
  sweep('pg-boss-batch500', 8, 1, 1000),
  sweep('graphile-worker-batched', 8, 1, 2500),
  sweep('chokaq-postgres', 128, 2, 9000),
  sweep('graphile-worker-batched', 128, 2, 10_000),
  sweep('chokaq-postgres', 1, 1, 400),
];

describe('the sweep', () => {
  it('divides ChokaQ by the fastest peer at the same point', () => {
    expect(sweepRatios(sweepRows)).toEqual([
      expect.objectContaining({
        point: { concurrency: 8, processes: 1 },
        bestPeer: 'graphile-worker-batched',
        ratio: 1.2,
      }),
      expect.objectContaining({ point: { concurrency: 128, processes: 2 }, ratio: 0.9 }),
    ]);
  });

  it('prints one line per point, by processes then concurrency', () => {
    const lines = formatSweep(sweepRows).trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^processes\s+concurrency\s+chokaq-postgres \(defaults\)\s+pg-boss .*\s+graphile-worker .*\s+best peer\s+ChokaQ ÷ best$/,
    );
    expect(lines.slice(2)).toHaveLength(3);
    expect(lines[2]).toMatch(/^\s+1\s+1\s+400\s+-\s+-\s+-\s+-$/);
    expect(lines[3]).toMatch(/^\s+1\s+8\s+3,000\s+1,000\s+2,500\s+graphile-worker\s+1\.20×$/);
    expect(lines[4]).toMatch(/^\s+2\s+128\s+9,000\s+-\s+10,000\s+graphile-worker\s+0\.90×$/);
    expect(formatSweep([])).toBe('');
  });
});

describe('the targets', () => {
  const rows: Row[] = [
    ...sweepRows,
    { workload: 'W2-1p', system: 'chokaq-postgres', value: 10_000, unit: 'jobs/s' },
    { workload: 'W2-1p', system: 'graphile-worker-batched', value: 5000, unit: 'jobs/s' },
    { workload: 'W2-1p', system: 'chokaq-embedded', value: 7000, unit: 'jobs/s' },
    { workload: 'W3-p99', system: 'chokaq-postgres', value: 9, unit: 'ms' },
    { workload: 'W3-p99', system: 'graphile-worker-batched', value: 8, unit: 'ms' },
    { workload: 'W5', system: 'chokaq-postgres', value: 9100, unit: 'jobs/s' },
    { workload: 'W8-capped', system: 'chokaq-postgres', value: 91, unit: '% of cap' },
  ];

  it('marks each target met, not met, or not measured', () => {
    const results = checkTargets(rows, 3000);
    const byTarget = Object.fromEntries(results.map((r) => [r.target, [r.figure, r.met]]));
    expect(byTarget).toEqual({
      'W2-1p ≥ 1.5× best peer': ['2.00×', true],
      'W2-2p ≥ 1.5× best peer': ['-', undefined],
      'W2 sweep, concurrency 8, 1p ≥ 1.5× best peer': ['1.20×', false],
      'W2 sweep, concurrency 8, 2p ≥ 1.5× best peer': ['-', undefined],
      'W2 sweep, concurrency 128, 1p ≥ 1.5× best peer': ['-', undefined],
      'W2 sweep, concurrency 128, 2p ≥ 1.5× best peer': ['0.90×', false],
      'W3 p99 ≤ best peer': ['1.13×', false],
      'W4 lag p99 ≤ best peer': ['-', undefined],
      'W1-single ≥ 3× best peer': ['-', undefined],
      'W1-bulk ≥ 1× best peer': ['-', undefined],
      'W5 within 10 % of W2-1p': ['-9.0 %', true],
      'W8 capped queue ≥ 90 % of the cap': ['91.0 %', true],
      'chokaq-embedded (defaults) W2-1p ≥ 2× before (3,000 jobs/s)': ['2.33×', true],
    });
  });

  it('prints the verdicts', () => {
    const text = formatTargets(checkTargets(rows, 3000));
    expect(text).toMatch(/W2-1p ≥ 1\.5× best peer\s+2\.00×\s+met\n/);
    expect(text).toMatch(/W3 p99 ≤ best peer\s+1\.13×\s+NOT MET\n/);
    expect(text).toMatch(/W4 lag p99 ≤ best peer\s+-\s+not measured\n/);
  });
});
