/**
 * The CLI's errors speak of what the user typed: "did you mean" for commands, subcommands and
 * flags, the flag (or variable) instead of the API path, a URL that is not PostgreSQL's, a queue
 * that does not exist; every flag a command documents is in its synopsis; a worker without a
 * store refuses instead of creating one. On PostgreSQL and on the embedded store.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../src/cli/suggest.js';
import { ChokaQ, defineJob, FatalError, silentLogger, type Store } from '../../src/index.js';
import { ROOT, requireDist } from '../fixtures/crash-process.js';
import { postgresAvailable } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';
import { runCli, seededStores, type CliResult } from '../helpers/cli.js';

/** Runs the CLI in-process with captured output and `env`. */
const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
  runCli(args, { env });

/** The last line the CLI printed on stderr (the first names the store). */
const lastLine = (err: string): string => err.trimEnd().split('\n').pop() ?? '';

const COMMANDS = [
  'deck',
  'demo',
  'dlq',
  'jobs',
  'migrate',
  'purge',
  'schedules',
  'status',
  'worker',
];

const pgUp = await postgresAvailable();
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('did you mean', () => {
  it('counts a swap of neighbours as one edit and suggests only what is close', () => {
    expect(editDistance('stauts', 'status')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(closest('--stat', ['--state', '--queue'])).toBe('--state');
    expect(closest('--data', ['--data-dir', '--database-url'])).toBeUndefined(); // two begin so
    expect(closest('--modul', ['--module'])).toBe('--module');
    expect(closest('frobnicate', COMMANDS)).toBeUndefined();
  });

  it('for commands, subcommands and flags, with the pointer to help', async () => {
    expect(await cli(['stauts'])).toEqual({
      code: 2,
      out: '',
      err: "chokaq: unknown command 'stauts' (did you mean 'status'?); run 'chokaq help'\n",
    });
    expect((await cli(['help', 'dql'])).err).toBe(
      "chokaq: unknown command 'dql' (did you mean 'dlq'?); run 'chokaq help'\n",
    );
    expect((await cli(['dlq', 'grups'])).err).toBe(
      "chokaq: unknown subcommand 'dlq grups' (did you mean 'groups'?); run 'chokaq dlq --help'\n",
    );
    expect((await cli(['schedules', 'lst'])).err).toMatch(/\(did you mean 'list'\?\)/);
    const flag = await cli(['jobs', 'list', '--stat', 'dead']);
    expect(flag).toEqual({
      code: 2,
      out: '',
      err: "chokaq: unknown option '--stat' (did you mean '--state'?); run 'chokaq jobs --help'\n",
    });
    expect((await cli(['status', '--shcema', 'x'])).err).toBe(
      "chokaq: unknown option '--shcema' (did you mean '--schema'?); run 'chokaq status --help'\n",
    );
    // Only the flags of that subcommand: dlq groups takes no --payload.
    expect((await cli(['dlq', 'groups', '--paylod', '{}'])).err).toBe(
      "chokaq: unknown option '--paylod'; run 'chokaq dlq --help'\n",
    );
    expect((await cli(['worker', 'x.mjs', '--concurency', '2'])).err).toMatch(
      /^chokaq: unknown option '--concurency' \(did you mean '--concurrency'\?\)/,
    );
  });
});

describe('usage lines', () => {
  it.each(COMMANDS)('%s --help names every flag it documents in its synopsis', async (command) => {
    const { out, code } = await cli([command, '--help']);
    expect(code).toBe(0);
    const [synopsis = '', body = ''] = out.split(/\n\n/);
    const documented = new Set(body.match(/^ {2}--[a-z-]+/gm)?.map((flag) => flag.trim()));
    expect(documented.size).toBeGreaterThan(0);
    const missing = [...documented].filter(
      (flag) => !new RegExp(`${flag}(?![a-z-])`).test(synopsis),
    );
    expect(missing).toEqual([]);
    for (const line of synopsis.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });
});

describe('database URLs', () => {
  it('refuses what is not a PostgreSQL URL, naming the flag or the variable', async () => {
    for (const args of [['status'], ['migrate'], ['jobs', 'list']]) {
      const flag = await cli([...args, '--database-url', 'not-a-url']);
      expect(flag).toEqual({
        code: 2,
        out: '',
        err: "chokaq: --database-url must be a PostgreSQL URL such as postgres://user@localhost:5432/app, got 'not-a-url'\n",
      });
    }
    const variable = await cli(['status'], { CHOKAQ_DATABASE_URL: 'mysql://root:pw@db/app' });
    expect(variable.err).toBe(
      "chokaq: CHOKAQ_DATABASE_URL must be a PostgreSQL URL such as postgres://user@localhost:5432/app, got 'mysql://root:***@db/app'\n",
    );
  });
});

/** Runs the built CLI in `cwd` without any ChokaQ store variable or NODE_OPTIONS of this process. */
function builtCli(args: string[], cwd: string): Promise<{ code: number | null; err: string }> {
  const env = { ...process.env };
  delete env.CHOKAQ_DATABASE_URL;
  delete env.CHOKAQ_DATA_DIR;
  delete env.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'dist/cli/main.js'), ...args],
      { cwd, env, timeout: 30_000 },
      (error, _stdout, stderr) =>
        resolve({ code: error === null ? 0 : (error.code as number), err: stderr }),
    );
  });
}

describe('chokaq worker without a store', () => {
  beforeAll(() => requireDist(['dist/cli/main.js']));

  it('refuses instead of creating ./.chokaq', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'chokaq-cli-worker-'));
    dirs.push(cwd);
    await writeFile(join(cwd, 'jobs.mjs'), 'export default { jobs: [] };\n');
    const result = await builtCli(['worker', './jobs.mjs'], cwd);
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      'chokaq: worker needs a store: pass --database-url URL (or set CHOKAQ_DATABASE_URL) for ' +
        'PostgreSQL, or --data-dir DIR (or set CHOKAQ_DATA_DIR) for the embedded store, ' +
        'created if missing (--data-dir ./.chokaq for the default folder)\n',
    );
    expect(existsSync(join(cwd, '.chokaq'))).toBe(false);
  });

  it('does not take an existing ./.chokaq without being told', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'chokaq-cli-worker-'));
    dirs.push(cwd);
    await writeFile(join(cwd, 'jobs.mjs'), 'export default { jobs: [] };\n');
    await mkdir(join(cwd, '.chokaq'));
    const result = await builtCli(['worker', './jobs.mjs'], cwd);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^chokaq: worker needs a store: /);
    expect(await readdir(join(cwd, '.chokaq'))).toEqual([]);
  });
});

const failing = defineJob({
  type: 'mail.send.v1',
  queue: 'mail',
  handle: () => {
    throw new FatalError('mailbox full');
  },
});
const passing = defineJob({ type: 'report.build.v1', queue: 'reports', handle: () => undefined });

/** One dead mail and one archived report. */
async function seed(storage: Store): Promise<void> {
  const chokaq = new ChokaQ({ storage, jobs: [failing, passing], logger: silentLogger });
  await chokaq.start();
  try {
    await chokaq.enqueue(failing, {});
    await chokaq.enqueue(passing, {});
    await waitFor(
      async () => (await chokaq.jobs.count({ state: ['succeeded', 'dead'] })).count === 2,
      { timeoutMs: 20_000, message: 'seeded jobs to settle' },
    );
  } finally {
    await chokaq.stop();
  }
}

const providers = seededStores('clierr', seed, dirs, pgUp);

describe.each(providers)('errors on $name', ({ skip, setup }) => {
  let flags: string[] = [];
  let cleanup = (): Promise<void> => Promise.resolve();

  beforeAll(async () => {
    if (!skip) ({ flags, cleanup } = await setup());
  }, 60_000);

  afterAll(async () => {
    await cleanup();
  });

  it.skipIf(skip)(
    'name the flag typed, never the API path',
    async () => {
      const cases: [string[], string][] = [
        [['jobs', 'list', '--state', 'nosuch'], '--state must be one of '],
        [['jobs', 'list', '--queue', 'bad/name'], '--queue must be 1–255 characters'],
        [['jobs', 'list', '--order', 'up'], '--order must be one of '],
        [['jobs', 'list', '--id-prefix', ''], '--id-prefix must be a non-blank id'],
        [['dlq', 'list', '--finished-to', 'soon'], '--finished-to must be a Date or an ISO 8601'],
        [['dlq', 'groups', '--limit', '0'], '--limit must be an integer from 1 to 1000'],
        [['purge', '--dlq', 'forever'], '--dlq must be a duration'],
        [
          ['schedules', 'pause', 'nightly', '--actor', 'x'.repeat(101)],
          '--actor must be a non-blank',
        ],
        [
          ['dlq', 'edit', 'some-id', '--tags', 't'.repeat(1001)],
          '--tags must be a string of at most',
        ],
        [
          ['dlq', 'resurrect', '--all', '--reason', 'r', '--priority', '1.5', '--yes'],
          '--priority must be a 32-bit integer',
        ],
      ];
      for (const [args, message] of cases) {
        const result = await cli([...args, ...flags]);
        expect(result.code, args.join(' ')).not.toBe(0);
        expect(lastLine(result.err), args.join(' ')).toContain(`chokaq: ${message}`);
        expect(result.err, args.join(' ')).not.toMatch(
          /\b(query|filter|request|ages|edit|options)\./,
        );
      }
    },
    60_000,
  );

  it.skipIf(skip)(
    'deck names the token flag or variable that is too short',
    async () => {
      const flag = await cli(['deck', '--port', '0', '--read-token', 'short', ...flags]);
      expect(flag.code).toBe(2);
      expect(lastLine(flag.err)).toBe(
        'chokaq: --read-token must have at least 16 characters (got 5)',
      );
      const variable = await cli(['deck', '--port', '0', ...flags], {
        CHOKAQ_DECK_TOKEN: 'tiny',
      });
      expect(lastLine(variable.err)).toBe(
        'chokaq: CHOKAQ_DECK_TOKEN must have at least 16 characters (got 4)',
      );
    },
    60_000,
  );

  it.skipIf(skip)(
    'dlq groups tells an unknown queue from an empty DLQ',
    async () => {
      const unknown = await cli(['dlq', 'groups', '--queue', 'mial', ...flags]);
      expect(unknown.code).toBe(2);
      expect(unknown.out).toBe('');
      expect(lastLine(unknown.err)).toBe(
        "chokaq: --queue: unknown queue 'mial' (did you mean 'mail'?); known queues: default, mail, reports",
      );
      const none = await cli(['dlq', 'groups', '--queue', 'reports', ...flags]);
      expect(none.code).toBe(0);
      expect(lastLine(none.err)).toBe('no DLQ job matches --queue reports');
      const json = await cli(['dlq', 'groups', '--queue', 'nosuch', '--json', ...flags]);
      expect(json.code).toBe(2);
      expect(json.out).toBe('');
      const found = await cli(['dlq', 'groups', '--queue', 'mail', ...flags]);
      expect(found.code).toBe(0);
      expect(found.out).toContain('mailbox full');
    },
    60_000,
  );
});
