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
  const row = (workload: Row['workload'], system: Row['system'], value: number): Row => ({
    workload,
    system,
    value,
    unit: workload === 'W3-p99' ? 'ms' : workload === 'W8-capped' ? '% of cap' : 'jobs/s',
  });
  const rows: Row[] = [
    ...sweepRows,
    row('W2-1p', 'chokaq-postgres', 10_000),
    row('W2-1p', 'pg-boss-batch500', 8000),
    row('W2-1p', 'graphile-worker-batched', 12_000),
    row('W2-1p', 'chokaq-postgres-nohistory', 13_000),
    row('W2-4p', 'chokaq-postgres', 9000),
    row('W2-4p', 'pg-boss-batch500', 7000),
    row('W3-p99', 'chokaq-postgres', 9),
    row('W3-p99', 'graphile-worker-batched', 8),
    row('W5', 'chokaq-postgres', 9100),
    row('W8-capped', 'chokaq-postgres', 91),
    row('W9-keyed', 'chokaq-postgres', 4000),
  ];

  it('marks each target met, not met, or not measured, required ones before the stretch', () => {
    const results = checkTargets(rows, { w8PercentOfCap: 74, w9JobsPerSecond: 5000 });
    const byTarget = Object.fromEntries(results.map((r) => [r.target, [r.figure, r.met]]));
    expect(byTarget).toEqual({
      'W2-1p ≥ 1.2× pg-boss (batchSize 500)': ['1.25×', true],
      'W2-2p ≥ 1.2× pg-boss (batchSize 500)': ['-', undefined],
      'W2-4p ≥ 1.2× pg-boss (batchSize 500)': ['1.29×', true],
      'W2-4p ≥ W2-1p': ['0.90×', false],
      'without archive rows, W2-1p ≥ 1.0× graphile-worker (localQueue 500)': ['1.08×', true],
      'without archive rows, W2-2p ≥ 1.0× graphile-worker (localQueue 500)': ['-', undefined],
      'W1-single ≥ 3× best peer': ['-', undefined],
      'W1-bulk ≥ 1.5× best peer': ['-', undefined],
      'W3 p99 ≤ best peer': ['1.13×', false],
      'W4 lag p99 ≤ best peer': ['-', undefined],
      'W5 at most 10 % below W2-1p': ['-9.0 %', true],
      'W8 not below before (74 % of the cap)': ['91.0', true],
      'W9 not below before (5,000 jobs/s)': ['4,000', false],
      'stretch: full history, W2-1p ≥ 1.0× graphile-worker (localQueue 500)': ['0.83×', false],
      'stretch: W8 ≥ 90 % of the cap': ['91.0', true],
    });
    expect(results.filter((r) => r.stretch).map((r) => r.target)).toHaveLength(2);
  });

  it('reads W5 one-sided: faster than W2-1p is met, more than 10 % slower is not', () => {
    const w5 = (value: number) =>
      checkTargets([row('W2-1p', 'chokaq-postgres', 10_000), row('W5', 'chokaq-postgres', value)])
        .filter((r) => r.target.startsWith('W5'))
        .map((r) => [r.figure, r.met]);
    expect(w5(13_670)).toEqual([['+36.7 %', true]]);
    expect(w5(8880)).toEqual([['-11.2 %', false]]);
  });

  it('prints the verdicts', () => {
    const text = formatTargets(checkTargets(rows));
    expect(text).toMatch(/W2-1p ≥ 1\.2× pg-boss \(batchSize 500\)\s+1\.25×\s+met\n/);
    expect(text).toMatch(/W3 p99 ≤ best peer\s+1\.13×\s+NOT MET\n/);
    expect(text).toMatch(/W4 lag p99 ≤ best peer\s+-\s+not measured\n/);
  });
});
