import { describe, expect, it } from 'vitest';
import { BenchUsageError, parseBenchArgs } from '../../bench/args.js';
import { DEFAULT_BENCH_URL, SYSTEMS, WORKLOADS } from '../../bench/types.js';

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
      'pg-boss, CHOKAQ-POSTGRES,pg-boss',
      '--workloads',
      'w3,W1',
      '--json',
      '/tmp/bench.json',
      '--database-url',
      'postgres://flag/db',
    ];
    expect(parseBenchArgs(args, { CHOKAQ_DATABASE_URL: 'postgres://env/db' })).toEqual({
      systems: ['chokaq-postgres', 'pg-boss'],
      workloads: ['W1-single', 'W1-bulk', 'W3-p99'],
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

  it('answers --help and -h with help', () => {
    expect(parseBenchArgs(['--help'], {})).toBe('help');
    expect(parseBenchArgs(['-h'], {})).toBe('help');
  });

  it.each([
    [['--only', 'sidekiq'], "unknown system 'sidekiq'"],
    [['--only', ' , '], '--only names no system'],
    [['--workloads', 'W9'], "unknown workload 'W9'"],
    [['--workloads', ','], '--workloads names no workload'],
    [['--fast'], "'--fast'"],
    [['--json'], '--json'],
  ])('rejects %j with a usage error naming it', (args, message) => {
    expect(() => parseBenchArgs(args, {})).toThrow(BenchUsageError);
    expect(() => parseBenchArgs(args, {})).toThrow(message);
  });
});
