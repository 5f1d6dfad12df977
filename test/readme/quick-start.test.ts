/**
 * The README's Quick start, as written, runs against PostgreSQL: its block is transpiled and run
 * in a child process (importing the built package as `chokaq`) with `DATABASE_URL` pointing at a
 * throwaway database. The email enqueued without a delay must be sent and archived, the delayed
 * one must wait, and SIGTERM (the snippet's own handler calls `stop()`) must end the process
 * cleanly.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  killAll,
  requireDist,
  spawnNode,
  withTimeout,
  type Child,
} from '../fixtures/crash-process.js';
import { TEST_DATABASE_URL, postgresAvailable, uniqueDatabase } from '../helpers/pg.js';
import {
  REPO_ROOT,
  createProject,
  linkModules,
  linkRepoModules,
  removeProject,
} from '../helpers/temp-project.js';
import { waitFor } from '../helpers/wait.js';
import { codeBlocks } from './readme-blocks.js';

const pgUp = await postgresAvailable();

/** The Quick start block of README.md as an ES module. */
function quickStartModule(): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const block = codeBlocks(readme, 'ts').find((b) => b.heading === 'Quick start');
  if (block === undefined) throw new Error('README.md has no ts block under "Quick start"');
  return ts.transpileModule(block.code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}

/** `url` with its database replaced by `database`. */
function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

describe.skipIf(!pgUp)('README Quick start on PostgreSQL', () => {
  const database = uniqueDatabase('readme');
  const databaseUrl = withDatabase(TEST_DATABASE_URL, database);
  const children: Child[] = [];
  let dir = '';
  let db: pg.Client | undefined;

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/storage/postgres/index.js']);
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${database}"`);
    } finally {
      await admin.end();
    }
    dir = createProject('quick-start');
    linkModules(dir, { chokaq: REPO_ROOT });
    linkRepoModules(dir, ['zod']);
    writeFileSync(join(dir, 'quick-start.mjs'), quickStartModule());
  });

  afterAll(async () => {
    try {
      await killAll(children);
      await db?.end();
      removeProject(dir);
    } finally {
      await dropDatabase();
    }
  });

  /** Drops the throwaway database, also when the test or the cleanup before it failed. */
  async function dropDatabase(): Promise<void> {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }

  it('sends the email, keeps the delayed one waiting and stops on SIGTERM', async () => {
    const child = spawnNode('quick-start', [join(dir, 'quick-start.mjs')], {
      DATABASE_URL: databaseUrl,
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
      { timeoutMs: 20_000, intervalMs: 100, message: 'the email job in chokaq.jobs_archive' },
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
  });
});
