import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hidePassword } from '../../src/cli/connection.js';
import { run } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import type { WorkerModule } from '../../src/index.js';
import { ROOT, requireDist } from '../fixtures/crash-process.js';
import { TEST_DATABASE_URL, dropSchemas, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';
import { runCli, type CliResult } from '../helpers/cli.js';

/** Runs the CLI in-process with captured output and `env`. */
const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
  runCli(args, { env });

const pgUp = await postgresAvailable();
const schemas: string[] = [];
const dirs: string[] = [];

/**
 * Runs the built CLI (`node dist/cli/main.js`) in `cwd` without any ChokaQ store variable or
 * NODE_OPTIONS of this process, plus `extraEnv`.
 */
function builtCli(
  args: string[],
  cwd: string,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const env = { ...process.env };
  delete env.CHOKAQ_DATABASE_URL;
  delete env.CHOKAQ_DATA_DIR;
  delete env.NODE_OPTIONS;
  Object.assign(env, extraEnv);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'dist/cli/main.js'), ...args],
      { cwd, env, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, out: stdout, err: stderr });
      },
    );
  });
}

/** A fresh temporary directory, removed after the file's tests. */
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** Node 22.6+ may import TypeScript by itself; the loader advice is for the Node that cannot. */
const nodeStripsTypes = Boolean((process.features as { typescript?: unknown }).typescript);

afterAll(async () => {
  await dropSchemas(schemas);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('chokaq CLI', () => {
  it('prints the command list for help and on stderr without a command; fails on an unknown one', async () => {
    const help = await cli(['help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: chokaq <command>/);
    for (const command of ['demo', 'migrate', 'worker'])
      expect(help.out).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    expect((await cli(['--help'])).out).toBe(help.out);
    expect((await cli(['-h'])).out).toBe(help.out);
    const bare = await cli([]);
    expect(bare).toEqual({ code: 2, out: '', err: help.out });
    // The benchmark is a repository tool (npm run bench), not a command of the package.
    expect(help.out).not.toContain('bench');
    const bench = await cli(['bench']);
    expect(bench.code).toBe(2);
    expect(bench.err).toMatch(/^chokaq: unknown command 'bench'/);
    const bad = await cli(['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe("chokaq: unknown command 'frobnicate'; run 'chokaq help'\n");
    const badHelp = await cli(['help', 'frobnicate']);
    expect(badHelp.code).toBe(2);
    expect(badHelp.err).toBe("chokaq: unknown command 'frobnicate'; run 'chokaq help'\n");
  });

  it('--version and -v print the version of package.json', async () => {
    for (const flag of ['--version', '-v']) {
      expect(await cli([flag])).toEqual({ code: 0, out: `${PACKAGE_VERSION}\n`, err: '' });
    }
  });

  it.each(['demo', 'migrate', 'worker'])(
    "%s --help, -h and help %s print that command's usage on stdout",
    async (command) => {
      const viaFlag = await cli([command, '--help']);
      expect(viaFlag.code).toBe(0);
      expect(viaFlag.err).toBe('');
      expect(viaFlag.out).toMatch(new RegExp(`^chokaq ${command} `));
      // --help wins over everything else, even a missing module or a flag that needs a store.
      expect(await cli([command, '-h', '--schema', 'x'])).toEqual(viaFlag);
      expect(await cli(['help', command])).toEqual(viaFlag);
    },
  );

  it("an unknown or incomplete flag gives one line pointing at the command's help", async () => {
    const unknown = await cli(['migrate', '--frobnicate']);
    expect(unknown).toEqual({
      code: 2,
      out: '',
      err: "chokaq: unknown option '--frobnicate'; run 'chokaq migrate --help'\n",
    });
    const missingValue = await cli(['worker', 'jobs.js', '--schema', '--concurrency', '2']);
    expect(missingValue.code).toBe(2);
    expect(missingValue.err).toMatch(
      /^chokaq: Option '--schema' argument is ambiguous\..*; run 'chokaq worker --help'\n$/,
    );
    // `--help` after `--` is a positional argument, not a request for help.
    const positional = await cli(['migrate', '--', '--help']);
    expect(positional.code).toBe(2);
    expect(positional.err).toMatch(/^chokaq: Unexpected argument '--help'.*\n$/);
  });

  it('rejects a bad flag value with one clear line', async () => {
    const result = await cli(['demo', '--headless', '--jobs', 'many']);
    expect(result.code).toBe(2);
    expect(result.err.trim().split('\n')).toEqual([
      "chokaq: --jobs must be a positive integer, got 'many'",
    ]);
  });

  it.skipIf(!pgUp)(
    'migrate --dry-run prints the SQL and applies nothing; migrate applies it once',
    async () => {
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
      expect(dry.err).toBe(
        `chokaq migrate: PostgreSQL ${hidePassword(TEST_DATABASE_URL)}, schema ${schema} (dry run: nothing is changed)\n`,
      );
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
      expect(applied.err.split('\n')).toEqual([
        `chokaq migrate: PostgreSQL ${hidePassword(TEST_DATABASE_URL)}, schema ${schema}`,
        expect.stringMatching(/^applied 1, 2, /),
        '',
      ]);
      const upToDate = await cli([
        'migrate',
        '--dry-run',
        '--database-url',
        TEST_DATABASE_URL,
        '--schema',
        schema,
      ]);
      expect(upToDate.out).toContain('nothing to apply');
    },
  );

  it.skipIf(!pgUp)(
    'demo --headless settles every job on PostgreSQL and prints the summary last',
    async () => {
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
    },
  );

  it('demo --headless runs on the embedded store in a chosen data directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chokaq-demo-'));
    dirs.push(dir);
    const result = await cli(['demo', '--headless', '--jobs', '200', '--data-dir', dir]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.out.trim().split('\n').pop() ?? '') as Record<string, number>;
    expect(summary).toMatchObject({ enqueued: 200, hot: 0 });
    expect(summary.archived! + summary.dlq!).toBe(200);
  });
  it('hides the password of a PostgreSQL URL it prints', () => {
    expect(hidePassword('postgres://app:s3cret@db.example:5432/jobs')).toBe(
      'postgres://app:***@db.example:5432/jobs',
    );
    expect(hidePassword('postgresql://db/jobs?password=s3cret&sslmode=require')).toBe(
      'postgresql://db/jobs?password=***&sslmode=require',
    );
    expect(hidePassword('postgres://postgres@127.0.0.1/test')).toBe(
      'postgres://postgres@127.0.0.1/test',
    );
  });

  it('migrate --dry-run of a missing data directory creates nothing; migrate creates it', async () => {
    const dataDir = join(await tempDir('chokaq-migrate-'), 'store');
    const dry = await cli(['migrate', '--dry-run', '--data-dir', dataDir]);
    expect(dry.code).toBe(0);
    expect(dry.err).toBe(
      `chokaq migrate: embedded store in ${dataDir}, schema chokaq (dry run: nothing is changed)\n`,
    );
    expect(dry.out).toContain('-- migration 1:');
    expect(existsSync(dataDir)).toBe(false);
    const applied = await cli(['migrate', '--schema', 'jobs'], { CHOKAQ_DATA_DIR: dataDir });
    expect(applied.code).toBe(0);
    expect(applied.err).toMatch(
      new RegExp(`^chokaq migrate: embedded store in ${dataDir}, schema jobs\napplied 1, 2, `),
    );
    expect(existsSync(dataDir)).toBe(true);
  });

  describe('the built CLI', () => {
    beforeAll(() => requireDist(['dist/cli/main.js']));

    it('prints the version of its own package.json from any working directory', async () => {
      const cwd = await tempDir('chokaq-version-');
      expect(await builtCli(['--version'], cwd)).toEqual({
        code: 0,
        out: `${PACKAGE_VERSION}\n`,
        err: '',
      });
    });

    it('migrate without a store flag in an empty directory fails and creates no .chokaq', async () => {
      const cwd = await tempDir('chokaq-nostore-');
      for (const args of [['migrate'], ['migrate', '--dry-run']]) {
        const result = await builtCli(args, cwd);
        expect(result.code).toBe(2);
        expect(result.out).toBe('');
        expect(result.err).toMatch(/^chokaq: no store chosen: .*--data-dir \.\/\.chokaq creates/);
        expect(result.err.split('\n')).toHaveLength(2); // one line and its newline
        expect(existsSync(join(cwd, '.chokaq'))).toBe(false);
      }
      // An existing default directory is the store: there is nothing to create by accident.
      await mkdir(join(cwd, '.chokaq'));
      const dry = await builtCli(['migrate', '--dry-run'], cwd);
      expect(dry.code).toBe(0);
      expect(dry.err).toMatch(/^chokaq migrate: embedded store in \.\/\.chokaq, schema chokaq /);
      expect(dry.out).toContain('-- migration 1:');
    });

    it.skipIf(nodeStripsTypes)(
      'worker with a TypeScript module says how to run it instead of importing it',
      async () => {
        const cwd = await tempDir('chokaq-ts-');
        await writeFile(join(cwd, 'jobs.ts'), 'export default { jobs: [] as unknown[] };\n');
        const result = await builtCli(['worker', './jobs.ts', '--data-dir', 'store'], cwd);
        expect(result.code).toBe(2);
        expect(result.err).toMatch(
          /^chokaq: worker module \.\/jobs\.ts is TypeScript, .*compile it to JavaScript first, .*--import tsx.*--experimental-strip-types.*\n$/,
        );
        expect(result.err.split('\n')).toHaveLength(2);
        expect(existsSync(join(cwd, 'store'))).toBe(false);
        // A preloaded module that is no TypeScript loader: the import is tried, the advice stays.
        await writeFile(join(cwd, 'preload.cjs'), '');
        const preloaded = await builtCli(['worker', './jobs.ts', '--data-dir', 'store'], cwd, {
          NODE_OPTIONS: '--require ./preload.cjs',
        });
        expect(preloaded).toEqual(result);
      },
    );
  });

  it('worker names the module and the cause when it cannot be loaded', async () => {
    const dir = await tempDir('chokaq-module-');
    await writeFile(join(dir, 'broken.mjs'), "throw new Error('boom while loading');\n");
    await writeFile(join(dir, 'nothing.mjs'), 'export const jobs = [];\n');
    const broken = await cli(['worker', join(dir, 'broken.mjs')]);
    expect(broken).toEqual({
      code: 1,
      out: '',
      err: `chokaq: cannot load worker module ${join(dir, 'broken.mjs')}: boom while loading\n`,
    });
    const missing = await cli(['worker', join(dir, 'missing.mjs')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toBe(
      `chokaq: worker module ${join(dir, 'missing.mjs')} not found (${join(dir, 'missing.mjs')})\n`,
    );
    const noDefault = await cli(['worker', join(dir, 'nothing.mjs')]);
    expect(noDefault.code).toBe(2);
    expect(noDefault.err).toMatch(/must default-export ChokaQ options or a ChokaQ instance\n$/);
  });

  it('worker runs the options a module default-exports until stopped', async () => {
    const dir = await tempDir('chokaq-worker-');
    // Checked by tsc: the documented way to type a worker module.
    const options = { jobs: [], concurrency: 2 } satisfies WorkerModule;
    await writeFile(join(dir, 'jobs.mjs'), `export default ${JSON.stringify(options)};\n`);
    const stop = new AbortController();
    let err = '';
    const io: CliIo = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (err += text) },
      env: { CHOKAQ_LOG_LEVEL: 'error' },
    };
    const exit = run(
      ['worker', join(dir, 'jobs.mjs'), '--data-dir', join(dir, 'store')],
      io,
      stop.signal,
    );
    await waitFor(() => err.includes(' running; send SIGTERM or SIGINT to stop\n'), {
      timeoutMs: 30_000,
      message: 'the worker to start',
    });
    stop.abort();
    expect(await exit).toBe(0);
    expect(err).toMatch(
      new RegExp(`^chokaq worker: embedded store in ${join(dir, 'store')}, schema chokaq\n`),
    );
    expect(err).toMatch(/stopped\n$/);
  });
});
