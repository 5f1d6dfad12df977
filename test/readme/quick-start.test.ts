/**
 * The README's Quick start, followed the way a new user does: a fresh folder, the README's setup
 * lines exactly as written (`npm init -y`, … `npx tsc --init --types node`, with the TypeScript
 * npm installs today; from npm's cache when it has them), this repository's build packed and
 * installed where the README says `chokaq`, the Quick start block saved as `index.ts` and
 * compiled by `npx tsc` with no error, then run against a throwaway PostgreSQL database: the
 * email enqueued without a delay is sent and archived, the delayed one waits, and SIGTERM (the
 * snippet's own handler) ends the process cleanly. The `node:http` Deck example is compiled in
 * the same app and, without `DECK_TOKEN`, exits with one line before any worker starts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, requireDist, spawnNode, type Child } from '../fixtures/crash-process.js';
import { TEST_DATABASE_URL, postgresAvailable, uniqueDatabase } from '../helpers/pg.js';
import { REPO_ROOT, removeProject } from '../helpers/temp-project.js';
import { waitFor, withTimeout } from '../helpers/wait.js';
import { codeBlocks } from './readme-blocks.js';

const pgUp = await postgresAvailable();
const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** The one block of `lang` under `heading` whose text matches `marker`. */
function readmeBlock(lang: string, heading: string, marker: RegExp): string {
  const found = codeBlocks(README, lang).filter(
    (b) => b.heading === heading && marker.test(b.code),
  );
  if (found.length !== 1) throw new Error(`README.md: ${found.length} ${lang} blocks match`);
  return found[0]!.code;
}

/** `url` with its database replaced by `database`. */
function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Runs one setup line of the README in `cwd` (through the shell, as the reader would). */
function sh(line: string, cwd: string): string {
  return execFileSync('sh', ['-c', line], {
    cwd,
    encoding: 'utf8',
    timeout: 180_000,
    // npm's cache first (a fresh machine fetches from the registry); no audit, no funding notes.
    env: {
      ...process.env,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
  });
}

/** A fresh app set up by the README's lines, with this build installed as `chokaq`. */
function freshApp(): { dir: string; tarball: string } {
  const dir = mkdtempSync(join(tmpdir(), 'chokaq-fresh-app-'));
  // The tarball of the current build; `prepack` (a fresh build) is for publishing.
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    }),
  ) as { filename: string }[];
  const tarball = join(dir, packed[0]!.filename);
  const app = join(dir, 'app');
  execFileSync('mkdir', [app]);
  const setup = readmeBlock('sh', 'Quick start', /npm init/)
    .split('\n')
    .filter((line) => line.trim() !== '');
  for (const line of setup) {
    // Where the README installs ChokaQ from the registry, install this build.
    sh(line.replace(/^npm install chokaq\b/, `npm install ${tarball}`), app);
  }
  return { dir: app, tarball };
}

describe('README setup in a fresh app', () => {
  let dir = '';
  let root = '';

  beforeAll(() => {
    requireDist(['dist/index.js', 'dist/storage/postgres/index.js', 'dist/deck/index.js']);
    ({ dir } = freshApp());
    root = join(dir, '..');
    writeFileSync(join(dir, 'index.ts'), readmeBlock('ts', 'Quick start', /new ChokaQ\(/));
    // The Deck example, with the Quick start's `chokaq` made (not started) on a memory store.
    writeFileSync(
      join(dir, 'deck.ts'),
      `import { ChokaQ, memory } from 'chokaq';\n` +
        `const chokaq = new ChokaQ({ storage: memory() });\n` +
        readmeBlock('ts', 'The Deck', /from 'node:http'/),
    );
  }, 600_000);

  afterAll(() => {
    if (root !== '') removeProject(root);
  });

  it('has the settings of today: "type" from npm pkg set, types from tsc --init --types node', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      type?: string;
      devDependencies?: Record<string, string>;
    };
    expect(manifest.type).toBe('module');
    expect(Object.keys(manifest.devDependencies ?? {}).sort()).toEqual([
      '@types/node',
      'typescript',
    ]);
    expect(readFileSync(join(dir, 'tsconfig.json'), 'utf8')).toMatch(/^\s*"types": \["node"\]/m);
  });

  it('compiles the Quick start and the Deck example with npx tsc and no error', () => {
    // `tsc` exits non-zero with the errors on stdout; execFileSync throws them.
    expect(sh('npx tsc', dir)).toBe('');
  }, 180_000);

  it('the Deck example without DECK_TOKEN stops with one line before any worker starts', async () => {
    // Empty counts as unset; `info` would show a "worker started" line.
    const child = spawnNode('deck-example', [join(dir, 'deck.js')], {
      DECK_TOKEN: '',
      CHOKAQ_LOG_LEVEL: 'info',
    });
    const exit = await withTimeout(child.exited, 30_000, 'the Deck example without a token');
    expect(exit).toEqual({ code: 1, signal: null });
    expect(child.stderr).toBe('set DECK_TOKEN to a secret of 16 or more characters\n');
    expect(child.stdout).toBe(''); // no sign-in link, no "worker started"
  }, 60_000);

  describe.skipIf(!pgUp)('running the Quick start on PostgreSQL', () => {
    const database = uniqueDatabase('readme');
    const databaseUrl = withDatabase(TEST_DATABASE_URL, database);
    const children: Child[] = [];
    let db: pg.Client | undefined;

    beforeAll(async () => {
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${database}"`);
      } finally {
        await admin.end();
      }
    });

    afterAll(async () => {
      try {
        await killAll(children);
        await db?.end();
      } finally {
        const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await admin.connect();
        try {
          await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
        } finally {
          await admin.end();
        }
      }
    });

    it('sends the email, keeps the delayed one waiting and stops on SIGTERM', async () => {
      const child = spawnNode('quick-start', [join(dir, 'index.js')], {
        CHOKAQ_DATABASE_URL: databaseUrl,
      });
      children.push(child);
      db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      const client = db;

      const archived = await waitFor(
        async () => {
          if (!child.alive()) throw new Error(`the Quick start exited early: ${child.stderr}`);
          const tables = await client.query<{ archive: string | null }>(
            `SELECT to_regclass('chokaq.jobs_archive')::text AS archive`,
          );
          if (tables.rows[0]?.archive == null) return null; // not migrated yet
          const { rows } = await client.query<{ type: string; queue: string; payload: string }>(
            'SELECT type, queue, payload FROM chokaq.jobs_archive',
          );
          return rows.length > 0 ? rows : null;
        },
        { timeoutMs: 30_000, intervalMs: 100, message: 'the email job in chokaq.jobs_archive' },
      );
      expect(archived).toEqual([
        {
          type: 'email.send.v1',
          queue: 'emails',
          payload: JSON.stringify({ to: 'grace@example.com', subject: 'Hi' }),
        },
      ]);

      const { rows: waiting } = await client.query<{ payload: string; due_in_s: number }>(
        `SELECT payload, extract(epoch FROM run_at - now())::float8 AS due_in_s
           FROM chokaq.jobs_hot WHERE idempotency_key = 'welcome-42'`,
      );
      expect(waiting).toHaveLength(1);
      expect(JSON.parse(waiting[0]?.payload ?? 'null')).toEqual({
        to: 'ada@example.com',
        subject: 'Hi',
      });
      expect(waiting[0]?.due_in_s).toBeGreaterThan(60); // enqueued with delay: '5m'

      child.process.kill('SIGTERM');
      const exit = await withTimeout(child.exited, 15_000, 'the Quick start after SIGTERM');
      expect(exit, child.stderr).toEqual({ code: 0, signal: null });
    }, 60_000);
  });
});
