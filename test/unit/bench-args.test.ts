import { describe, expect, it } from 'vitest';
import { BENCH_USAGE, BenchUsageError, parseBenchArgs } from '../../bench/args.js';
import { SYSTEMS, labelOf } from '../../bench/contenders.js';
import { DEFAULT_BENCH_URL, WORKLOADS } from '../../bench/types.js';

describe('parseBenchArgs', () => {
  it('runs everything on the default database without flags', () => {
    expect(parseBenchArgs([], {})).toEqual({
      systems: [...SYSTEMS],
      workloads: [...WORKLOADS],
      quick: false,
      databaseUrl: DEFAULT_BENCH_URL,
      jsonFile: undefined,
      command: 'npm run bench',
    });
  });

  it('reads every flag, expands workload aliases and keeps table order', () => {
    const args = [
      '--quick',
      '--only',
      'pg-boss-batch500, CHOKAQ-POSTGRES,pg-boss,pg-boss-batch500',
      '--workloads',
      'w3,W1,sweep,w8',
      '--json',
      '/tmp/bench.json',
      '--database-url',
      'postgres://flag/db',
    ];
    expect(parseBenchArgs(args, { CHOKAQ_DATABASE_URL: 'postgres://env/db' })).toEqual({
      systems: ['chokaq-postgres', 'pg-boss', 'pg-boss-batch500'],
      workloads: ['W1-single', 'W1-bulk', 'W3-p99', 'W8-capped', 'W2-sweep'],
      quick: true,
      databaseUrl: 'postgres://flag/db',
      jsonFile: '/tmp/bench.json',
      command: `npm run bench -- ${args.join(' ')}`,
    });
  });

  it('takes the database from CHOKAQ_DATABASE_URL when no flag names one', () => {
    const options = parseBenchArgs(['--workloads', 'W2-2p'], {
      CHOKAQ_DATABASE_URL: 'postgres://env/db',
    });
    expect(options).toMatchObject({ databaseUrl: 'postgres://env/db', workloads: ['W2-2p'] });
  });

  it('tells W10 from W1 and keeps it after W9', () => {
    expect(parseBenchArgs(['--workloads', 'w10,W9,w1'], {})).toMatchObject({
      workloads: ['W1-single', 'W1-bulk', 'W9-keyed', 'W10-flow'],
    });
    expect(parseBenchArgs(['--workloads', 'W10-flow'], {})).toMatchObject({
      workloads: ['W10-flow'],
    });
  });

  it('answers --help and -h with help', () => {
    expect(parseBenchArgs(['--help'], {})).toBe('help');
    expect(parseBenchArgs(['-h'], {})).toBe('help');
  });

  it('lists every row with its settings and every workload in the help', () => {
    for (const system of SYSTEMS) {
      expect(BENCH_USAGE).toMatch(new RegExp(`${system}\\s+${escape(labelOf(system))}`));
    }
    for (const workload of WORKLOADS) expect(BENCH_USAGE).toContain(workload);
  });

  it.each([
    [['--only', 'sidekiq'], "unknown row 'sidekiq'"],
    [['--only', ' , '], '--only names no row'],
    [['--workloads', 'W11'], "unknown workload 'W11'"],
    [['--workloads', ','], '--workloads names no workload'],
    [['--fast'], "'--fast'"],
    [['--json'], '--json'],
  ])('rejects %j with a usage error naming it', (args, message) => {
    expect(() => parseBenchArgs(args, {})).toThrow(BenchUsageError);
    expect(() => parseBenchArgs(args, {})).toThrow(message);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
