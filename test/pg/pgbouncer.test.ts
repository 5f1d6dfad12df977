/**
 * Behind PgBouncer in transaction mode: with prepared statements off, the engine works as on a
 * direct connection; LISTEN is detected as unusable, with one warning, and workers poll.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, type Logger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { pgbouncerInstalled, startPgbouncer, type Bouncer } from '../helpers/pgbouncer.js';
import { waitFor } from '../helpers/wait.js';

const pgUp = await postgresAvailable();
const installed = pgbouncerInstalled();
if (!installed && process.env.CI === 'true') {
  throw new Error('pgbouncer is not installed under CI=true (apt-get install -y pgbouncer)');
}
if (!installed) console.warn('\n!!! SKIPPING PgBouncer tests: pgbouncer is not installed\n');

/** Server connections the test's PgBouncer may hold (its `default_pool_size`). */
const SERVER_CONNECTIONS = 20;

/**
 * The channels any server connection behind the pooler at `url` listens on: as many
 * transactions as it has server connections, held open together, pin every one of them.
 */
async function listeningBehind(url: string): Promise<string[]> {
  const clients = Array.from({ length: SERVER_CONNECTIONS }, () => new pg.Client(url));
  try {
    await Promise.all(clients.map((client) => client.connect()));
    await Promise.all(clients.map((client) => client.query('BEGIN')));
    const listening = await Promise.all(
      clients.map(async (client) =>
        (await client.query<{ c: string }>('SELECT pg_listening_channels() AS c')).rows.map(
          (row) => row.c,
        ),
      ),
    );
    await Promise.all(clients.map((client) => client.query('COMMIT')));
    return listening.flat().sort();
  } finally {
    await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
  }
}

describe.skipIf(!pgUp || !installed)('behind PgBouncer in transaction mode', () => {
  let bouncer: Bouncer;
  const schema = uniqueSchema('bouncer');

  beforeAll(async () => {
    bouncer = await startPgbouncer();
  });

  afterAll(async () => {
    await bouncer?.stop();
    await dropSchema(schema);
  });

  it('runs jobs with prepared statements off, warning once that LISTEN is unusable', async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message, meta) => warnings.push(`${String(meta?.event)} ${message}`),
      error: (message) => warnings.push(`error ${message}`),
      child: () => logger,
    };
    let runs = 0;
    const job = defineJob({
      type: 'bounce.v1',
      queue: 'bounce',
      retry: { maxAttempts: 2, baseDelay: 1, jitter: 0 },
      handle: () => {
        runs += 1;
        if (runs === 1) throw new Error('once');
      },
    });
    const chokaq = new ChokaQ({
      storage: postgres({ connectionString: bouncer.url, schema, prepareStatements: false }),
      jobs: [job],
      logger,
      pollInterval: 100,
    });
    await chokaq.start();
    try {
      await chokaq.enqueueMany(
        job,
        Array.from({ length: 50 }, () => ({ payload: undefined })),
      );
      await waitFor(async () => (await chokaq.jobs.count({ state: 'succeeded' })).count === 50, {
        timeoutMs: 20_000,
        message: '50 jobs through PgBouncer',
      });
      expect(runs).toBe(51);
      // The LISTEN connection finds it is not on a session of its own and gives up at once (its
      // connection through the pooler may itself wait on a loaded machine, hence the bound).
      await waitFor(() => warnings.some((w) => w.startsWith('ListenUnavailable')), {
        timeoutMs: 20_000,
        message: 'the LISTEN warning',
      });
      expect(warnings.filter((w) => w.startsWith('ListenUnavailable'))).toHaveLength(1);
      expect(warnings.filter((w) => !w.startsWith('ListenUnavailable'))).toEqual([]);
      expect((await chokaq.health.ready()).status).toBe('ok');
    } finally {
      await chokaq.stop();
    }
    // No server connection behind the pooler keeps a LISTEN of the store's: nothing is listened
    // on before the session is known to be the listener's own.
    expect(await listeningBehind(bouncer.url)).toEqual([]);
  });
});
