import { describe, expect, it } from 'vitest';
import {
  bestPeers,
  formatDetails,
  formatRatio,
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
  { workload: 'W2-1p', system: 'pg-boss', value: 20_000, unit: 'jobs/s' },
  { workload: 'W2-1p', system: 'graphile-worker', value: 10_000, unit: 'jobs/s' },
  { workload: 'W3-p99', system: 'chokaq-postgres', value: 4, unit: 'ms' },
  { workload: 'W3-p99', system: 'pg-boss', value: 480, unit: 'ms' },
  { workload: 'W3-p99', system: 'graphile-worker', value: 8, unit: 'ms' },
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
  it('picks the faster peer for rates and the lower peer for latencies', () => {
    const best = bestPeers(rows);
    expect(best.get('W2-1p')).toEqual({ system: 'pg-boss', value: 20_000 });
    expect(best.get('W3-p99')).toEqual({ system: 'graphile-worker', value: 8 });
  });

  it('divides each ChokaQ figure by the best peer', () => {
    const all = ratios(rows);
    expect(all).toEqual([
      expect.objectContaining({ workload: 'W2-1p', system: 'chokaq-postgres', ratio: 1.5 }),
      expect.objectContaining({ workload: 'W2-1p', system: 'chokaq-embedded', ratio: 0.25 }),
      expect.objectContaining({
        workload: 'W3-p99',
        system: 'chokaq-postgres',
        bestPeer: 'graphile-worker',
        ratio: 0.5,
      }),
    ]);
  });

  it('has no ratio without a peer row', () => {
    expect(ratios(rows.filter((r) => r.system.startsWith('chokaq')))).toEqual([]);
  });
});

describe('formatting', () => {
  it('formats rates with separators and small latencies with decimals', () => {
    expect(formatValue(12345.6, 'jobs/s')).toBe('12,346');
    expect(formatValue(4.257, 'ms')).toBe('4.26');
    expect(formatValue(42.25, 'ms')).toBe('42.3');
    expect(formatValue(480.4, 'ms')).toBe('480');
    expect(formatValue(Number.NaN, 'ms')).toBe('n/a');
    expect(formatRatio(1.5)).toBe('1.50×');
  });

  it('prints one line per workload with every system, the best peer and the ratios', () => {
    const table = formatTable(rows);
    const lines = table.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^workload\s+unit\s+chokaq-postgres\s+chokaq-embedded\s+pg-boss/);
    expect(lines[2]).toMatch(
      /^W2-1p\s+jobs\/s ↑\s+30,000\s+5,000\s+20,000\s+10,000\s+pg-boss\s+1\.50×\s+0\.25×$/,
    );
    expect(lines[3]).toMatch(
      /^W3-p99\s+ms ↓\s+4\.00\s+-\s+480\s+8\.00\s+graphile-worker\s+0\.50×\s+-$/,
    );
  });

  it('prints details on one line per workload and system, or one per figure when many', () => {
    const detail = (metric: string, value: number): Detail => ({
      workload: 'W6-operator',
      system: 'chokaq-postgres',
      metric,
      value,
      unit: 'ms',
    });
    const few = [detail('a', 1.5), detail('b', 2)];
    expect(formatDetails(few)).toBe('  W6-operator chokaq-postgres  a 1.50 ms, b 2.00 ms\n');
    const many = Array.from({ length: 8 }, (_, i) => detail(`request ${i}`, i));
    many.push({ ...detail('seeded in', 12), unit: 's', note: 'where it went' });
    expect(formatDetails(many).split('\n')).toEqual([
      '  W6-operator chokaq-postgres  request 0 0.00 ms',
      ...Array.from({ length: 7 }, (_, i) => `${' '.repeat(31)}request ${i + 1} ${i + 1}.00 ms`),
      `${' '.repeat(31)}seeded in 12.0 s`,
      `${' '.repeat(31)}where it went`,
      '',
    ]);
  });

  it('writes the rows exactly as specified, plus ratios, details, skips and metadata', () => {
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
    expect(doc.rows?.at(-1)).toEqual({
      workload: 'W5',
      system: 'pg-boss',
      value: 1235,
      unit: 'jobs/s',
    });
    expect(Object.keys(doc)).toEqual(['rows', 'ratios', 'details', 'skipped', 'meta']);
    expect(doc.ratios).toHaveLength(3);
    expect(doc.details?.[0]).toMatchObject({ value: 1.23 });
  });
});
