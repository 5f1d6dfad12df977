/**
 * A command that reads never writes, and never creates or migrates a schema: every read command
 * runs against a seeded store (an embedded folder and a PostgreSQL schema) whose tables are
 * snapshotted — every table's rows, hashed — before and after; a schema that is missing (a typo)
 * or behind is a coded error naming the store, the schema and the `chokaq migrate` that fixes it,
 * and afterwards the schema still does not exist.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hidePassword } from '../../src/cli/connection.js';
import { ChokaQ, defineJob, FatalError, silentLogger, type Store } from '../../src/index.js';
import { embedded } from '../../src/storage/embedded/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchemas, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';
import { runCli, type CliResult } from '../helpers/cli.js';

/** Runs the CLI in-process with captured output, no environment and no input. */
const cli = (args: string[]): Promise<CliResult> => runCli(args, { answer: null });

const failing = defineJob({
  type: 'mail.send.v1',
  queue: 'mail',
  handle: () => {
    throw new FatalError('mailbox full');
  },
});
const passing = defineJob({ type: 'report.build.v1', queue: 'reports', handle: () => undefined });

/** Seeds `storage` with 2 dead mails, 2 archived reports, one pending mail and a schedule. */
async function seed(storage: Store): Promise<string> {
  const chokaq = new ChokaQ({
    storage,
    jobs: [failing, passing],
    schedules: [{ name: 'nightly', every: '1h', job: passing, payload: {} }],
    logger: silentLogger,
    pollInterval: 50,
  });
  await chokaq.start();
  try {
    await chokaq.enqueueMany(failing, [{ payload: {} }, { payload: {} }]);
    const [report] = await chokaq.enqueueMany(passing, [{ payload: {} }, { payload: {} }]);
    await chokaq.enqueue(failing, {}, { delay: '1h' });
    await waitFor(
      async () => (await chokaq.jobs.count({ state: ['succeeded', 'dead'] })).count === 4,
      { timeoutMs: 20_000, message: 'seeded jobs to settle' },
    );
    return report!.id;
  } finally {
    await chokaq.stop();
  }
}

/** Every table of `schema` with a hash of its rows, and the schemas of the database. */
interface Snapshot {
  tables: Record<string, string>;
  schemas: string[];
}

/** Runs `sql` with `params` on whatever database the snapshot reads. */
type Query = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

async function snapshot(query: Query, schema: string): Promise<Snapshot> {
  const schemas = (
    await query(
      `SELECT nspname AS name FROM pg_catalog.pg_namespace
        WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY 1`,
    )
  ).map((row) => String(row.name));
  const names = (
    await query(`SELECT tablename AS name FROM pg_catalog.pg_tables WHERE schemaname = $1`, [
      schema,
    ])
  ).map((row) => String(row.name));
  const tables: Record<string, string> = {};
  for (const name of names.sort()) {
    const [row] = await query(
      `SELECT count(*)::text || ':' || md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS h
         FROM "${schema}"."${name}" t`,
    );
    tables[name] = String(row?.h);
  }
  return { tables, schemas };
}

/** A snapshot of the embedded folder, read with PGlite directly (the CLI has closed it). */
async function embeddedSnapshot(dataDir: string, schema = 'chokaq'): Promise<Snapshot> {
  const db = await PGlite.create({ dataDir });
  try {
    return await snapshot(
      async (sql, params) => (await db.query(sql, params)).rows as never,
      schema,
    );
  } finally {
    await db.close();
  }
}

async function pgSnapshot(schema: string): Promise<Snapshot> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const all = await snapshot(
      async (sql, params) => (await client.query<Record<string, unknown>>(sql, params)).rows,
      schema,
    );
    // Other test files create and drop schemas in the same database meanwhile: compare ours.
    return { ...all, schemas: all.schemas.filter((name) => name.includes('_ro')) };
  } finally {
    await client.end();
  }
}

/** Every command that only reads, with the flags that make it read something. */
function readCommands(jobId: string): string[][] {
  return [
    ['status'],
    ['status', '--json'],
    ['dlq', 'groups'],
    ['dlq', 'groups', '--queue', 'mail', '--json'],
    ['dlq', 'list'],
    ['dlq', 'list', '--queue', 'mail', '--json'],
    ['jobs', 'list'],
    ['jobs', 'list', '--state', 'dead,pending', '--json'],
    ['jobs', 'show', jobId],
    ['jobs', 'show', jobId, '--json'],
    ['jobs', 'flow', jobId],
    ['jobs', 'flow', jobId, '--json'],
    ['schedules', 'list'],
    ['schedules', 'list', '--json'],
    ['purge', '--dry-run'],
  ];
}

/** Commands tried on a schema that is not there: the read commands, purge and The Deck. */
const NOT_MIGRATED_COMMANDS = [
  ['status'],
  ['dlq', 'groups'],
  ['jobs', 'list'],
  ['schedules', 'list'],
  ['purge', '--dry-run'],
  ['deck', '--port', '0'],
];

const pgUp = await postgresAvailable();
const dirs: string[] = [];
const schemas: string[] = [];

afterAll(async () => {
  await dropSchemas(schemas);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('read commands on the embedded store', () => {
  let dataDir = '';
  let jobId = '';

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chokaq-cli-ro-'));
    dirs.push(dir);
    dataDir = join(dir, 'store');
    jobId = await seed(embedded({ dataDir, logger: silentLogger }));
  }, 60_000);

  it('change no row of any table', async () => {
    const before = await embeddedSnapshot(dataDir);
    expect(Object.keys(before.tables).length).toBeGreaterThan(10);
    for (const args of readCommands(jobId)) {
      const result = await cli([...args, '--data-dir', dataDir]);
      expect(result.code, `${args.join(' ')}: ${result.err}`).toBe(0);
    }
    expect(await embeddedSnapshot(dataDir)).toEqual(before);
  }, 180_000);

  it('refuse a schema that does not exist, naming the store, the schema and the fix', async () => {
    const before = await embeddedSnapshot(dataDir);
    for (const args of NOT_MIGRATED_COMMANDS) {
      const result = await cli([...args, '--data-dir', dataDir, '--schema', 'chokaq_typo']);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.out).toBe('');
      expect(result.err.split('\n').slice(1)).toEqual([
        `chokaq: embedded store in ${dataDir}: schema "chokaq_typo" has no ChokaQ tables ` +
          `(schemas with ChokaQ tables: chokaq); nothing was changed. Run 'chokaq migrate ` +
          `--data-dir ${dataDir} --schema chokaq_typo' to create or update it, or correct ` +
          `--schema (CHOKAQ_SCHEMA_NOT_MIGRATED)`,
        '',
      ]);
    }
    expect(await embeddedSnapshot(dataDir)).toEqual(before);
    expect(before.schemas).not.toContain('chokaq_typo');
  }, 120_000);

  it('refuse a folder that holds no store, and write nothing into it', async () => {
    const empty = join(dirs[0]!, 'empty');
    await mkdir(empty);
    const result = await cli(['status', '--data-dir', empty]);
    expect(result).toMatchObject({ code: 2, out: '' });
    expect(result.err).toMatch(/^chokaq: .*empty is no embedded store: pass --database-url/);
    expect(await readdir(empty)).toEqual([]);
    const missing = await cli(['dlq', 'groups', '--data-dir', join(dirs[0]!, 'nowhere')]);
    expect(missing.err).toMatch(/nowhere does not exist: pass --database-url/);
    expect(existsSync(join(dirs[0]!, 'nowhere'))).toBe(false);
  });
});

describe.skipIf(!pgUp)('read commands on PostgreSQL', () => {
  const schema = uniqueSchema('ro');
  const flags = ['--database-url', TEST_DATABASE_URL, '--schema', schema];
  let jobId = '';

  beforeAll(async () => {
    schemas.push(schema);
    jobId = await seed(
      postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
    );
  }, 60_000);

  it('change no row of any table, command by command', async () => {
    let before = await pgSnapshot(schema);
    expect(Object.keys(before.tables).length).toBeGreaterThan(10);
    for (const args of readCommands(jobId)) {
      const result = await cli([...args, ...flags]);
      expect(result.code, `${args.join(' ')}: ${result.err}`).toBe(0);
      const after = await pgSnapshot(schema);
      expect(after, args.join(' ')).toEqual(before);
      before = after;
    }
  }, 120_000);

  it('refuse a schema that does not exist and create none', async () => {
    const typo = uniqueSchema('ro_typo');
    schemas.push(typo); // dropped afterwards should a command create it after all
    const before = await pgSnapshot(schema);
    const url = hidePassword(TEST_DATABASE_URL);
    for (const args of NOT_MIGRATED_COMMANDS) {
      const result = await cli([...args, '--database-url', TEST_DATABASE_URL, '--schema', typo]);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.out).toBe('');
      const line = result.err.split('\n')[1] ?? '';
      expect(line).toContain(`chokaq: PostgreSQL ${url}: schema "${typo}" has no ChokaQ tables`);
      expect(line).toMatch(new RegExp(`schemas with ChokaQ tables: [^)]*\\b${schema}\\b`));
      expect(line).toContain(
        `Run 'chokaq migrate --database-url ${url} --schema ${typo}' to create or update it`,
      );
      expect(line).toMatch(/\(CHOKAQ_SCHEMA_NOT_MIGRATED\)$/);
    }
    const after = await pgSnapshot(schema);
    expect(after).toEqual(before);
    expect(after.schemas).not.toContain(typo);
  }, 60_000);

  it('refuse a schema at an older migration, naming the missing one, and change nothing', async () => {
    const older = uniqueSchema('ro_old');
    schemas.push(older);
    expect(
      (await cli(['migrate', '--database-url', TEST_DATABASE_URL, '--schema', older])).code,
    ).toBe(0);
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`DELETE FROM "${older}".schema_migrations WHERE version = 18`);
    } finally {
      await client.end();
    }
    const before = await pgSnapshot(older);
    const result = await cli(['status', '--database-url', TEST_DATABASE_URL, '--schema', older]);
    expect(result.code).toBe(1);
    expect(result.err).toContain(`schema "${older}" misses migration 18; nothing was changed.`);
    expect(result.err).toContain(`'chokaq migrate --database-url`);
    expect(await pgSnapshot(older)).toEqual(before);
  }, 60_000);
});
