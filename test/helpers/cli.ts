/**
 * The CLI run in-process (`run` of src/cli/main.ts) with its output captured, as the CLI tests
 * drive it: no environment unless given, and no input to answer a prompt unless told.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { silentLogger } from '../../src/index.js';
import { embedded } from '../../src/storage/embedded/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import type { Store } from '../../src/storage/store.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from './pg.js';

/** What a run printed, and its exit code. */
export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** The environment the CLI sees. Default: none. */
  env?: Record<string, string>;
  /**
   * The line typed at a prompt, `null` for input that ended. Default: no input at all (a command
   * that needs an answer says how to go without, `--yes`).
   */
  answer?: string | null;
}

/** Runs the CLI with `args` in this process and captures what it prints. */
export async function runCli(
  args: readonly string[],
  options: RunCliOptions = {},
): Promise<CliResult> {
  let out = '';
  let err = '';
  const { answer } = options;
  const io: CliIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: options.env ?? {},
    ...(answer === undefined ? {} : { readLine: () => Promise.resolve(answer) }),
  };
  const code = await run([...args], io);
  return { code, out, err };
}

/** A store the CLI is pointed at by `flags`, seeded; `cleanup` drops what it made. */
export interface SeededStore {
  flags: string[];
  cleanup: () => Promise<void>;
}

/**
 * The stores the CLI tests run on, for `describe.each`: embedded (a data directory under a
 * new temporary directory, added to `dirs` for the caller to remove) and PostgreSQL (a fresh
 * schema named with `prefix`; `skip` when the server is not reachable), each seeded by `seed`.
 */
export function seededStores(
  prefix: string,
  seed: (store: Store) => Promise<void>,
  dirs: string[],
  pgUp: boolean,
): { name: string; skip: boolean; setup: () => Promise<SeededStore> }[] {
  return [
    {
      name: 'embedded',
      skip: false,
      setup: async () => {
        const dir = await mkdtemp(join(tmpdir(), `chokaq-${prefix}-`));
        dirs.push(dir);
        const dataDir = join(dir, 'store');
        await seed(embedded({ dataDir, logger: silentLogger }));
        return { flags: ['--data-dir', dataDir], cleanup: () => Promise.resolve() };
      },
    },
    {
      name: 'PostgreSQL',
      skip: !pgUp,
      setup: async () => {
        const schema = uniqueSchema(prefix);
        await seed(postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }));
        return {
          flags: ['--database-url', TEST_DATABASE_URL, '--schema', schema],
          cleanup: () => dropSchema(schema),
        };
      },
    },
  ];
}

/** One seeded store of {@link describeOnSeededStores}, as its tests see it. */
export interface SeededCli {
  /** `true` when the store is not available here (PostgreSQL not reachable): skip the test. */
  skip: boolean;
  /** The flags that point the CLI at the store; read them inside a test, after set-up. */
  flags: () => string[];
}

/**
 * Registers `tests` once per store of {@link seededStores} (`title` may name it with `$name`),
 * each store seeded once by `seed` before its tests and dropped after them; the temporary
 * directories go after the file.
 */
export function describeOnSeededStores(
  title: string,
  prefix: string,
  seed: (store: Store) => Promise<void>,
  tests: (cli: SeededCli) => void,
): void {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  describe.each(seededStores(prefix, seed, dirs, pgUp))(title, ({ skip, setup }) => {
    let flags: string[] = [];
    let cleanup = (): Promise<void> => Promise.resolve();
    beforeAll(async () => {
      if (skip) return;
      ({ flags, cleanup } = await setup());
    }, 60_000);
    afterAll(async () => {
      await cleanup();
    });
    tests({ skip, flags: () => flags });
  });
}

const pgUp = await postgresAvailable();
