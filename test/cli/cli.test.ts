import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';

/** Runs the CLI in-process with captured output. */
async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env,
  };
  const code = await run(args, io);
  return { code, out, err };
}

const schemas: string[] = [];
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(schemas.map((schema) => dropSchema(schema)));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('chokaq CLI', () => {
  it('prints usage and fails on an unknown command', async () => {
    const help = await cli(['help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('chokaq demo');
    const benchHelp = await cli(['bench', '--help']);
    expect(benchHelp.code).toBe(0);
    expect(benchHelp.out).toContain('--only LIST          systems: chokaq-postgres');
    const bad = await cli(['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^chokaq: unknown command 'frobnicate'/);
  });

  it('rejects a bad flag value with one clear line', async () => {
    const result = await cli(['demo', '--headless', '--jobs', 'many']);
    expect(result.code).toBe(2);
    expect(result.err.trim().split('\n')).toEqual([
      "chokaq: --jobs must be a positive integer, got 'many'",
    ]);
  });

  it('migrate --dry-run prints the SQL and applies nothing; migrate applies it once', async () => {
    if (!(await postgresAvailable())) return;
    const schema = uniqueSchema('cli');
    schemas.push(schema);
    const dry = await cli([
      'migrate',
      '--dry-run',
      '--database-url',
      TEST_DATABASE_URL,
      '--schema',
      schema,
    ]);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('-- migration 1:');
    expect(dry.out.toLowerCase()).toContain('create table');
    const again = await cli(['migrate', '--dry-run', '--schema', schema], {
      CHOKAQ_DATABASE_URL: TEST_DATABASE_URL,
    });
    expect(again.out).toContain('-- migration 1:'); // the dry run changed nothing
    const applied = await cli(['migrate', '--schema', schema], {
      CHOKAQ_DATABASE_URL: TEST_DATABASE_URL,
    });
    expect(applied.code).toBe(0);
    expect(applied.err).toContain('applied 1');
    const upToDate = await cli([
      'migrate',
      '--dry-run',
      '--database-url',
      TEST_DATABASE_URL,
      '--schema',
      schema,
    ]);
    expect(upToDate.out).toContain('nothing to apply');
  });

  it('demo --headless settles every job on PostgreSQL and prints the summary last', async () => {
    if (!(await postgresAvailable())) return;
    const schema = uniqueSchema('demo');
    schemas.push(schema);
    const result = await cli(['demo', '--headless', '--jobs', '300', '--schema', schema], {
      CHOKAQ_DATABASE_URL: TEST_DATABASE_URL,
    });
    expect(result.code).toBe(0);
    const lines = result.out.trim().split('\n');
    const summary = JSON.parse(lines[lines.length - 1] ?? '') as Record<string, number>;
    expect(summary).toMatchObject({ enqueued: 300, hot: 0 });
    expect(summary.archived! + summary.dlq!).toBe(300);
    // 30 poison jobs always fail; flaky ones may exhaust their retries.
    expect(summary.dlq).toBeGreaterThanOrEqual(30);
    expect(summary.archived).toBeGreaterThanOrEqual(200);
  });

  it('demo --headless runs on the embedded store in a chosen data directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chokaq-demo-'));
    dirs.push(dir);
    const result = await cli(['demo', '--headless', '--jobs', '200', '--data-dir', dir]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.out.trim().split('\n').pop() ?? '') as Record<string, number>;
    expect(summary).toMatchObject({ enqueued: 200, hot: 0 });
    expect(summary.archived! + summary.dlq!).toBe(200);
  });
});
