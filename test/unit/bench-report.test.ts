import { describe, expect, it } from 'vitest';
import {
  bestPeers,
  formatDetails,
  formatRatio,
  formatRatios,
  formatSkips,
  formatTable,
  formatValue,
  percentile,
  ratios,
  toJson,
} from '../../bench/report.js';
import type { Detail, Row } from '../../bench/types.js';

const rows: Row[] = [
  { workload: 'W2-1p', system: 'chokaq-postgres', value: 30_000, unit: 'jobs/s' },
  { workload: 'W2-1p', system: 'chokaq-embedded', value: 5000, unit: 'jobs/s' },
  { workload: 'W2-1p', system: 'pg-boss-batch500', value: 20_000, unit: 'jobs/s' },
  { workload: 'W2-1p', system: 'graphile-worker-batched', value: 10_000, unit: 'jobs/s' },
  // A peer's defaults row is its best settings where it does better than its tuned row.
  { workload: 'W2-1p', system: 'graphile-worker', value: 15_000, unit: 'jobs/s' },
  { workload: 'W3-p99', system: 'pg-boss', value: 2, unit: 'ms' },
  { workload: 'W3-p99', system: 'chokaq-postgres', value: 4, unit: 'ms' },
  { workload: 'W3-p99', system: 'pg-boss-batch500', value: 480, unit: 'ms' },
  { workload: 'W3-p99', system: 'graphile-worker-batched', value: 8, unit: 'ms' },
  { workload: 'W8-capped', system: 'chokaq-postgres', value: 96.5, unit: '% of cap' },
  { workload: 'W8-capped', system: 'pg-boss-batch500', value: 48.25, unit: '% of cap' },
  // Sweep rows belong to the sweep's table, not to the main one.
  {
    workload: 'W2-sweep',
    system: 'pg-boss-batch500',
    value: 99_999,
    unit: 'jobs/s',
    point: { concurrency: 8, processes: 1 },
  },
];

describe('percentile', () => {
  it('uses the nearest rank and leaves the input alone', () => {
    const values = [5, 1, 4, 2, 3];
    expect(percentile(values, 50)).toBe(3);
    expect(percentile(values, 99)).toBe(5);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile(values, 100)).toBe(5);
    expect(values).toEqual([5, 1, 4, 2, 3]);
  });

  it('takes the 99th of 100 values as the 99th smallest', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 95)).toBe(95);
  });

  it('is NaN for no values and rejects a p outside 0..100', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });
});

describe('ratios', () => {
  it('picks the best figure of any peer row, defaults or tuned', () => {
    const best = bestPeers(rows);
    expect(best.get('W2-1p')).toEqual({ system: 'pg-boss-batch500', value: 20_000 });
    expect(best.get('W3-p99')).toEqual({ system: 'pg-boss', value: 2 });
    expect(best.get('W8-capped')).toEqual({ system: 'pg-boss-batch500', value: 48.25 });
    expect(best.has('W2-sweep')).toBe(false);
  });

  it('divides each ChokaQ figure by the best peer', () => {
    expect(ratios(rows)).toEqual([
      expect.objectContaining({ workload: 'W2-1p', system: 'chokaq-postgres', ratio: 1.5 }),
      expect.objectContaining({ workload: 'W2-1p', system: 'chokaq-embedded', ratio: 0.25 }),
      expect.objectContaining({
        workload: 'W3-p99',
        system: 'chokaq-postgres',
        bestPeer: 'pg-boss',
        ratio: 2,
      }),
      expect.objectContaining({ workload: 'W8-capped', system: 'chokaq-postgres', ratio: 2 }),
    ]);
  });

  it('has no ratio without a peer row', () => {
    expect(ratios(rows.filter((r) => r.system.startsWith('chokaq')))).toEqual([]);
  });
});

describe('formatting', () => {
  it('formats rates with separators, small latencies with decimals, shares with one', () => {
    expect(formatValue(12345.6, 'jobs/s')).toBe('12,346');
    expect(formatValue(4.257, 'ms')).toBe('4.26');
    expect(formatValue(4, 'ms')).toBe('4.00');
    expect(formatValue(42.25, 'ms')).toBe('42.3');
    expect(formatValue(480.4, 'ms')).toBe('480');
    expect(formatValue(96.54, '% of cap')).toBe('96.5');
    expect(formatValue(3, 'jobs')).toBe('3');
    expect(formatValue(12, 's')).toBe('12.0');
    expect(formatValue(Number.NaN, 'ms')).toBe('n/a');
    expect(formatRatio(1.5)).toBe('1.50×');
  });

  it('prints one line per row with its settings and one column per workload', () => {
    const lines = formatTable(rows).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^system \(settings\)\s+W2-1p\s+W3-p99\s+W8-capped$/);
    expect(lines[1]).toMatch(/^\s+jobs\/s ↑\s+ms ↓\s+% of cap ↑$/);
    expect(lines[2]).toMatch(/^-+( +-+){3}$/);
    expect(lines.slice(3)).toHaveLength(6);
    expect(lines[3]).toMatch(/^chokaq-postgres \(defaults\)\s+30,000\s+4\.00\s+96\.5$/);
    expect(lines[4]).toMatch(/^chokaq-embedded \(defaults\)\s+5,000\s+-\s+-$/);
    expect(lines[5]).toMatch(/^pg-boss \(defaults\)\s+-\s+2\.00\s+-$/);
    expect(lines[6]).toMatch(/^pg-boss \(batchSize 500, burst, notify\)\s+20,000\s+480\s+48\.3$/);
    expect(lines[7]).toMatch(/^graphile-worker \(defaults\)\s+15,000\s+-\s+-$/);
    expect(lines[8]).toMatch(
      /^graphile-worker \(localQueue 500, batch delays 0\)\s+10,000\s+8\.00\s+-$/,
    );
    expect(formatTable(rows)).not.toContain('99,999');
  });

  it('prints the ratios per workload against the best peer row', () => {
    const lines = formatRatios(rows).trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^workload\s+unit\s+best peer \(its best row\)\s+its figure\s+postgres ÷ best\s+embedded ÷ best$/,
    );
    expect(lines[2]).toMatch(
      /^W2-1p\s+jobs\/s ↑\s+pg-boss \(batchSize 500, burst, notify\)\s+20,000\s+1\.50×\s+0\.25×$/,
    );
    expect(lines[3]).toMatch(/^W3-p99\s+ms ↓\s+pg-boss \(defaults\)\s+2\.00\s+2\.00×\s+-$/);
    expect(lines[4]).toMatch(/^W8-capped\s+% of cap ↑\s+pg-boss .*48\.3\s+2\.00×\s+-$/);
    expect(formatRatios(rows.filter((r) => r.system.startsWith('chokaq')))).toBe('');
  });

  it('prints details on one line per workload and row, or one per figure when many', () => {
    const detail = (metric: string, value: number): Detail => ({
      workload: 'W6-operator',
      system: 'chokaq-postgres',
      metric,
      value,
      unit: 'ms',
    });
    const few = [detail('a', 1.5), detail('b', 2)];
    expect(formatDetails(few)).toBe(
      '  W6-operator · chokaq-postgres (defaults): a 1.50 ms, b 2.00 ms\n',
    );
    const many = Array.from({ length: 8 }, (_, i) => detail(`request ${i}`, i));
    many.push({ ...detail('seeded in', 12), unit: 's', note: 'where it went' });
    expect(formatDetails(many).split('\n')).toEqual([
      '  W6-operator · chokaq-postgres (defaults):',
      ...Array.from({ length: 8 }, (_, i) => `      request ${i} ${i}.00 ms`),
      '      seeded in 12.0 s',
      '      where it went',
      '',
    ]);
  });

  it('prints skipped rows with their row name and reason', () => {
    expect(
      formatSkips([{ workload: 'W2-2p', system: 'chokaq-embedded', reason: 'one process' }]),
    ).toBe('  W2-2p · chokaq-embedded (defaults): one process\n');
  });

  it('writes the rows as specified, plus ratios, details, skips and metadata', () => {
    const doc = JSON.parse(
      toJson({
        rows: [...rows, { workload: 'W5', system: 'pg-boss', value: 1234.56, unit: 'jobs/s' }],
        details: [
          { workload: 'W3-p99', system: 'pg-boss', metric: 'p50', value: 1.234, unit: 'ms' },
        ],
        skipped: [{ workload: 'W2-2p', system: 'chokaq-embedded', reason: 'not applicable' }],
        meta: { date: '2026-01-01T00:00:00.000Z' },
      }),
    ) as Record<string, unknown[]>;
    expect(doc.rows?.[0]).toEqual({
      workload: 'W2-1p',
      system: 'chokaq-postgres',
      value: 30000,
      unit: 'jobs/s',
    });
    expect(doc.rows).toContainEqual({
      workload: 'W2-sweep',
      system: 'pg-boss-batch500',
      value: 99999,
      unit: 'jobs/s',
      concurrency: 8,
      processes: 1,
    });
    expect(doc.rows?.at(-1)).toEqual({
      workload: 'W5',
      system: 'pg-boss',
      value: 1235,
      unit: 'jobs/s',
    });
    expect(Object.keys(doc)).toEqual(['rows', 'ratios', 'details', 'skipped', 'meta']);
    expect(doc.ratios).toHaveLength(4);
    expect(doc.details?.[0]).toMatchObject({ value: 1.23 });
  });
});
