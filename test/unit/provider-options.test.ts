/**
 * Provider options are public inputs: every bad one is refused with a coded error naming the
 * option (and showing the value), before anything is created — no connection, no directory.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ChokaQError, type ErrorCode } from '../../src/errors.js';
import { silentLogger } from '../../src/observability/logging/logger.js';
import { embedded, migrate as migrateEmbedded } from '../../src/storage/embedded/index.js';
import { memory } from '../../src/storage/memory/index.js';
import { migrate as migratePostgres, postgres } from '../../src/storage/postgres/index.js';

/** One bad input: what is called, and the error it must give. */
interface BadInput {
  name: string;
  call: () => unknown;
  code: ErrorCode;
  field: string;
  /** A piece of the message: the value as shown, or the rule broken. */
  says: string;
}

/** The error `call` throws (or its promise rejects with), or `undefined`. */
async function errorOf(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

function checkTable(rows: readonly BadInput[]): void {
  for (const row of rows) {
    it(row.name, async () => {
      const error = await errorOf(row.call);
      expect(error).toBeInstanceOf(ChokaQError);
      expect(error).toMatchObject({ code: row.code, field: row.field });
      const message = (error as Error).message;
      expect(message).toContain(row.field.split('.').at(-1));
      expect(message).toContain(row.says);
    });
  }
}

/**
 * A stand-in for the database: a local TCP server that counts connection attempts and hangs up.
 * Every PostgreSQL URL below points at it, so any connection a refused call made would show.
 */
let connectionAttempts = 0;
const server = createServer((socket) => {
  connectionAttempts += 1;
  socket.destroy();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `postgres://postgres@127.0.0.1:${(server.address() as AddressInfo).port}/test`;

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const temp = mkdtempSync(join(tmpdir(), 'chokaq-opts-'));
/** A data directory no call may create. */
const dataDir = join(temp, 'never-created');

afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
});

const P = 'postgres(options)';
const E = 'embedded(options)';
const M = 'migrate(options)';
const INVALID = 'CHOKAQ_INVALID_CONFIG';
const UNKNOWN = 'CHOKAQ_UNKNOWN_OPTION';

/** A pool that is never asked to connect. */
const pool = new pg.Pool({ connectionString: url, max: 1 });

afterAll(async () => {
  await pool.end();
});

describe('postgres(options) refuses', () => {
  checkTable([
    {
      name: 'a misspelt option',
      call: () => postgres({ connectionStrin: url } as never),
      code: UNKNOWN,
      field: `${P}.connectionStrin`,
      says: 'did you mean connectionString?',
    },
    {
      name: 'a connection string in place of the options',
      call: () => postgres(url as never),
      code: INVALID,
      field: P,
      says: 'must be an object',
    },
    {
      name: 'a clock without schedule()',
      call: () => postgres({ connectionString: url, clock: { now: () => 0 } as never }),
      code: INVALID,
      field: `${P}.clock`,
      says: 'now() and schedule()',
    },
    {
      name: 'Date as the clock',
      call: () => postgres({ connectionString: url, clock: Date as never }),
      code: INVALID,
      field: `${P}.clock`,
      says: 'a function',
    },
    {
      name: 'neither connectionString nor pool',
      call: () => postgres({}),
      code: INVALID,
      field: `${P}.connectionString`,
      says: 'needs a connectionString or a pool',
    },
    {
      name: 'both connectionString and pool',
      call: () => postgres({ connectionString: url, pool }),
      code: INVALID,
      field: `${P}.pool`,
      says: 'not both',
    },
    {
      name: 'a blank connection string',
      call: () => postgres({ connectionString: '  ' }),
      code: INVALID,
      field: `${P}.connectionString`,
      says: '"  " (string)',
    },
    {
      name: 'a connection string that is not a string',
      call: () => postgres({ connectionString: new URL(url) as never }),
      code: INVALID,
      field: `${P}.connectionString`,
      says: 'an object (URL)',
    },
    {
      name: 'a pool without connect() and options',
      call: () => postgres({ pool: { query: () => Promise.resolve({ rows: [] }) } as never }),
      code: INVALID,
      field: `${P}.pool`,
      says: 'pg.Pool',
    },
    {
      name: 'poolSize as a string',
      call: () => postgres({ connectionString: url, poolSize: '10' as never }),
      code: INVALID,
      field: `${P}.poolSize`,
      says: '"10" (string)',
    },
    {
      name: 'prepareStatements as a string',
      call: () => postgres({ connectionString: url, prepareStatements: 'no' as never }),
      code: INVALID,
      field: `${P}.prepareStatements`,
      says: '"no" (string)',
    },
    {
      name: 'listen as a number',
      call: () => postgres({ connectionString: url, listen: 0 as never }),
      code: INVALID,
      field: `${P}.listen`,
      says: '0 (number)',
    },
    {
      name: 'poolSize 0',
      call: () => postgres({ connectionString: url, poolSize: 0 }),
      code: INVALID,
      field: `${P}.poolSize`,
      says: 'from 1 to 1000',
    },
    {
      name: 'a multi-host URL with an empty host',
      call: () => postgres({ connectionString: 'postgres://u@h1:5432,,h2:5432/db' }),
      code: INVALID,
      field: `${P}.connectionString`,
      says: 'host:port entries',
    },
    {
      name: 'a multi-host URL with a port out of range',
      call: () => postgres({ connectionString: 'postgres://u@h1:5432,h2:70000/db' }),
      code: INVALID,
      field: `${P}.connectionString`,
      says: 'h2:70000',
    },
    {
      name: 'a multi-host URL asking for a standby',
      call: () =>
        postgres({
          connectionString: 'postgres://u@h1,h2/db?target_session_attrs=standby',
        }),
      code: INVALID,
      field: `${P}.connectionString: target_session_attrs`,
      says: 'standby',
    },
    {
      name: 'a negative statementTimeout',
      call: () => postgres({ connectionString: url, statementTimeout: -1 }),
      code: 'CHOKAQ_INVALID_DURATION',
      field: `${P}.statementTimeout`,
      says: '-1 (number)',
    },
    {
      name: 'a lockTimeout in words',
      call: () => postgres({ connectionString: url, lockTimeout: 'soon' as never }),
      code: 'CHOKAQ_INVALID_DURATION',
      field: `${P}.lockTimeout`,
      says: 'soon',
    },
    {
      name: 'an idleInTransactionTimeout past the longest timer',
      call: () => postgres({ connectionString: url, idleInTransactionTimeout: '30d' }),
      code: 'CHOKAQ_INVALID_DURATION',
      field: `${P}.idleInTransactionTimeout`,
      says: '30d',
    },
    {
      name: 'poolSize 1001',
      call: () => postgres({ connectionString: url, poolSize: 1001 }),
      code: INVALID,
      field: `${P}.poolSize`,
      says: '1001 (number)',
    },
    {
      name: 'a fractional poolSize',
      call: () => postgres({ connectionString: url, poolSize: 2.5 }),
      code: INVALID,
      field: `${P}.poolSize`,
      says: '2.5 (number)',
    },
    {
      name: "migrate: 'yes'",
      call: () => postgres({ connectionString: url, migrate: 'yes' as never }),
      code: INVALID,
      field: `${P}.migrate`,
      says: '"yes" (string)',
    },
    {
      name: 'a logger without methods',
      call: () => postgres({ connectionString: url, logger: {} as never }),
      code: INVALID,
      field: `${P}.logger`,
      says: 'fromPino',
    },
    {
      name: 'a pg_ schema (reserved by PostgreSQL)',
      call: () => postgres({ connectionString: url, schema: 'pg_chokaq' }),
      code: INVALID,
      field: `${P}.schema`,
      says: '"pg_chokaq" (string)',
    },
    {
      name: 'the information_schema schema',
      call: () => postgres({ connectionString: url, schema: 'information_schema' }),
      code: INVALID,
      field: `${P}.schema`,
      says: 'PostgreSQL system schema',
    },
    {
      name: 'a schema name with capitals',
      call: () => postgres({ connectionString: url, schema: 'Jobs' }),
      code: INVALID,
      field: `${P}.schema`,
      says: '"Jobs" (string)',
    },
    {
      name: 'a schema that is not a string',
      call: () => postgres({ connectionString: url, schema: 7 as never }),
      code: INVALID,
      field: `${P}.schema`,
      says: '7 (number)',
    },
  ]);

  it('accepts the public schema and a real pool, and connects to nothing while constructing', () => {
    const store = postgres({ connectionString: url, schema: 'public', logger: silentLogger });
    expect(store.schema).toBe('public');
    expect(postgres({ pool, poolSize: 3 }).kind).toBe('postgres');
    expect(postgres({ pool, migrate: 'check' }).kind).toBe('postgres');
  });
});

describe('the PostgreSQL migrate(options) refuses', () => {
  checkTable([
    {
      name: 'a misspelt option',
      call: () => migratePostgres({ connectionString: url, dryrun: true } as never),
      code: UNKNOWN,
      field: `${M}.dryrun`,
      says: 'did you mean dryRun?',
    },
    {
      name: 'a logger (migrate takes none)',
      call: () => migratePostgres({ connectionString: url, logger: silentLogger } as never),
      code: UNKNOWN,
      field: `${M}.logger`,
      says: 'connectionString, schema, dryRun',
    },
    {
      name: 'no connection string',
      call: () => migratePostgres({} as never),
      code: INVALID,
      field: `${M}.connectionString`,
      says: 'undefined',
    },
    {
      name: 'dryRun as a number',
      call: () => migratePostgres({ connectionString: url, dryRun: 1 as never }),
      code: INVALID,
      field: `${M}.dryRun`,
      says: '1 (number)',
    },
    {
      name: 'a pg_ schema',
      call: () => migratePostgres({ connectionString: url, schema: 'pg_toast' }),
      code: INVALID,
      field: `${M}.schema`,
      says: '"pg_toast" (string)',
    },
  ]);
});

describe('after the refused postgres() and migrate() calls', () => {
  it('no connection was attempted', () => {
    expect(pool.totalCount).toBe(0);
    expect(connectionAttempts).toBe(0);
  });
});

describe('embedded(options) refuses', () => {
  checkTable([
    {
      name: 'a misspelt option',
      call: () => embedded({ dataDir, vacuumInterval: 1000 } as never),
      code: UNKNOWN,
      field: `${E}.vacuumInterval`,
      says: 'did you mean vacuumIntervalMs?',
    },
    {
      name: 'a clock without schedule()',
      call: () => embedded({ dataDir, clock: { now: () => 0 } as never }),
      code: INVALID,
      field: `${E}.clock`,
      says: 'now() and schedule()',
    },
    {
      name: 'a number as the clock',
      call: () => embedded({ dataDir, clock: 42 as never }),
      code: INVALID,
      field: `${E}.clock`,
      says: '42 (number)',
    },
    {
      name: 'a blank dataDir',
      call: () => embedded({ dataDir: '' }),
      code: INVALID,
      field: `${E}.dataDir`,
      says: '"" (string)',
    },
    {
      name: 'a dataDir that is not a string',
      call: () => embedded({ dataDir: 42 as never }),
      code: INVALID,
      field: `${E}.dataDir`,
      says: '42 (number)',
    },
    {
      name: 'a negative vacuum interval',
      call: () => embedded({ dataDir, vacuumIntervalMs: -1 }),
      code: INVALID,
      field: `${E}.vacuumIntervalMs`,
      says: '-1 (number)',
    },
    {
      name: 'a vacuum interval under a second',
      call: () => embedded({ dataDir, vacuumIntervalMs: 500 }),
      code: INVALID,
      field: `${E}.vacuumIntervalMs`,
      says: '0 (off) or an integer from 1000',
    },
    {
      name: 'a vacuum interval longer than a timer can wait',
      call: () => embedded({ dataDir, vacuumIntervalMs: 2 ** 31 }),
      code: INVALID,
      field: `${E}.vacuumIntervalMs`,
      says: '2147483648 (number)',
    },
    {
      name: 'a vacuum interval as a duration string',
      call: () => embedded({ dataDir, vacuumIntervalMs: '60s' as never }),
      code: INVALID,
      field: `${E}.vacuumIntervalMs`,
      says: '"60s" (string)',
    },
    {
      name: "migrate: 'yes'",
      call: () => embedded({ dataDir, migrate: 'yes' as never }),
      code: INVALID,
      field: `${E}.migrate`,
      says: '"yes" (string)',
    },
    {
      name: 'a logger without methods',
      call: () => embedded({ dataDir, logger: {} as never }),
      code: INVALID,
      field: `${E}.logger`,
      says: 'an object',
    },
    {
      name: 'a pglite that is not a PGlite',
      call: () => embedded({ pglite: {} as never }),
      code: INVALID,
      field: `${E}.pglite`,
      says: 'a started PGlite instance',
    },
    {
      name: 'a pg_ schema',
      call: () => embedded({ dataDir, schema: 'pg_jobs' }),
      code: INVALID,
      field: `${E}.schema`,
      says: '"pg_jobs" (string)',
    },
  ]);

  it('accepts valid options and creates nothing until open()', () => {
    const store = embedded({ dataDir, schema: 'public', vacuumIntervalMs: 0 });
    expect(store.schema).toBe('public');
    expect(embedded({ dataDir, vacuumIntervalMs: 1000 }).kind).toBe('embedded');
    expect(embedded({ dataDir, migrate: 'check' }).kind).toBe('embedded');
  });
});

describe('the embedded migrate(options) refuses', () => {
  checkTable([
    {
      name: 'a misspelt option',
      call: () => migrateEmbedded({ dataDir, dryrun: true } as never),
      code: UNKNOWN,
      field: `${M}.dryrun`,
      says: 'did you mean dryRun?',
    },
    {
      name: 'a blank dataDir',
      call: () => migrateEmbedded({ dataDir: ' ' }),
      code: INVALID,
      field: `${M}.dataDir`,
      says: '" " (string)',
    },
    {
      name: "dryRun: 'yes'",
      call: () => migrateEmbedded({ dataDir, dryRun: 'yes' as never }),
      code: INVALID,
      field: `${M}.dryRun`,
      says: '"yes" (string)',
    },
    {
      name: 'the information_schema schema',
      call: () => migrateEmbedded({ dataDir, schema: 'information_schema' }),
      code: INVALID,
      field: `${M}.schema`,
      says: '"information_schema" (string)',
    },
  ]);
});

describe('after the refused embedded() calls', () => {
  it('the data directory was never created', () => {
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('memory(options) refuses', () => {
  checkTable([
    {
      name: 'a misspelt option',
      call: () => memory({ clok: {} } as never),
      code: UNKNOWN,
      field: 'memory(options).clok',
      says: 'did you mean clock?',
    },
    {
      name: 'options that are not an object',
      call: () => memory('fast' as never),
      code: INVALID,
      field: 'memory(options)',
      says: '"fast" (string)',
    },
    {
      name: 'a clock without schedule()',
      call: () => memory({ clock: { now: () => 0 } as never }),
      code: INVALID,
      field: 'memory(options).clock',
      says: 'now() and schedule()',
    },
    {
      name: 'Date as the clock',
      call: () => memory({ clock: Date as never }),
      code: INVALID,
      field: 'memory(options).clock',
      says: 'a function',
    },
  ]);
});
