/**
 * The package as a user installs it: `npm pack` the repository, unpack the tarball into a fresh
 * project's `node_modules/chokaq` beside exactly the runtime `dependencies` of package.json
 * (linked from this repository: tests do not reach a registry), and use it there. A consumer
 * importing every entry point type-checks with `tsc --init` settings, `skipLibCheck: false` and
 * no `@types/pg` or `@types/node`; the entry points load; the CLI runs. The tarball holds no
 * tests, no benchmark harness and no source maps.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDist } from '../fixtures/crash-process.js';
import {
  REPO_ROOT,
  createProject,
  effectiveOptions,
  linkRepoModules,
  removeProject,
  typeCheck,
  writeTsconfig,
} from '../helpers/temp-project.js';

/** Uses every entry point's public types; type-checked only. */
const CONSUMER = `import { ChokaQ, ChokaQError, defineJob, memory, type Middleware } from 'chokaq';
import { embedded } from 'chokaq/embedded';
import { migrate, postgres, type PostgresPool } from 'chokaq/postgres';
import { drain, FakeClock } from 'chokaq/testing';
import { createDeck, type DeckHandler } from 'chokaq/deck';

declare const pool: PostgresPool;

export const greet = defineJob<{ name: string }>({
  type: 'greet.v1',
  async handle(payload, ctx) {
    ctx.log.info('hello', { name: payload.name, attempt: ctx.attempt });
  },
});
export const timing: Middleware = async (_ctx, _payload, next) => {
  await next();
};

export const stores = [
  memory(),
  embedded({ dataDir: 'memory://' }),
  postgres({ pool, schema: 'app_jobs' }),
  postgres({ connectionString: 'postgres://localhost/app', migrate: false }),
];
export const chokaq = new ChokaQ({
  storage: memory(),
  jobs: [greet],
  middleware: [timing],
  clock: new FakeClock(),
});
export const steps: Promise<unknown[]> = migrate({ connectionString: 'postgres://localhost/app' });
export const drained: Promise<void> = drain(chokaq);
export const isChokaQError = (e: unknown): boolean => e instanceof ChokaQError;
export const deck: DeckHandler = createDeck({ chokaq, authorize: () => 'read' });
`;

/** Loads every entry point at run time. */
const LOADER = `await import('chokaq');
await import('chokaq/postgres');
await import('chokaq/embedded');
await import('chokaq/testing');
await import('chokaq/deck');
console.log('loaded');
`;

interface PackResult {
  filename: string;
  files: { path: string }[];
}

describe('the packed package', () => {
  let dir = '';
  let files: string[] = [];

  beforeAll(() => {
    requireDist(['dist/index.js', 'dist/index.d.ts']);
    dir = createProject('pack');
    // The tarball is made from the current build; \`prepack\` (a fresh build) is for publishing.
    const output = execFileSync(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', dir],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    const [packed] = JSON.parse(output) as PackResult[];
    if (packed === undefined) throw new Error(`npm pack reported nothing: ${output}`);
    files = packed.files.map((f) => f.path);
    const installed = join(dir, 'node_modules', 'chokaq');
    mkdirSync(installed, { recursive: true });
    execFileSync(
      'tar',
      ['-xzf', join(dir, packed.filename), '-C', installed, '--strip-components=1'],
      {
        timeout: 20_000,
      },
    );
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    linkRepoModules(dir, Object.keys(manifest.dependencies));
    writeTsconfig(dir, { skipLibCheck: false, noEmit: true });
  });

  afterAll(() => removeProject(dir));

  it('ships the build, README, LICENSE and CHANGELOG, without tests, bench or source maps', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'CHANGELOG.md',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cli/main.js',
        'dist/deck/index.js',
        'dist/deck/ui/index.html',
        'dist/deck/ui/app.js',
        'dist/deck/ui/app.css',
      ]),
    );
    const unwanted = files.filter(
      (path) =>
        !path.startsWith('dist/') &&
        !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(path),
    );
    expect(unwanted).toEqual([]);
    expect(files.filter((path) => path.endsWith('.map'))).toEqual([]);
    expect(files.filter((path) => /(^|\/)bench(\/|\.)/.test(path))).toEqual([]);
  });

  it('type-checks a consumer of every entry point without @types/pg or @types/node', () => {
    writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
    expect(existsSync(join(dir, 'node_modules', '@types'))).toBe(false);
    expect(effectiveOptions(dir)).toMatchObject({
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      types: [],
    });
    expect(typeCheck(dir)).toBe('');
  });

  it('loads every entry point and runs the CLI from the installed package', () => {
    writeFileSync(join(dir, 'load.mjs'), LOADER);
    const run = (args: string[]): string =>
      execFileSync(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: 20_000 });
    expect(run(['load.mjs'])).toBe('loaded\n');
    const cli = join(dir, 'node_modules', 'chokaq', 'dist', 'cli', 'main.js');
    expect(run([cli, 'help'])).toMatch(/^ {2}worker +\S/m);
    expect(run([cli, '--version'])).toMatch(/^\d+\.\d+\.\d+/);
  });
});
