/**
 * The bench's reading of the PostgreSQL server's CPU (bench/server-cpu.ts) against the real test
 * server: it finds the server, counts the CPU of a backend that burned some (also once that
 * backend has exited), and declines servers whose CPU it cannot read.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ServerCpu } from '../../bench/server-cpu.js';
import { TEST_DATABASE_URL, postgresAvailable } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';

const available = await postgresAvailable();
/** A query that keeps one backend busy for well over 10 ms of CPU on any machine. */
const BURN = 'SELECT count(*) FROM generate_series(1, 3000000)';
/** Less CPU than {@link BURN} takes anywhere (about 0.2–0.7 s here). */
const BURN_AT_LEAST_US = 20_000;

describe.skipIf(!available || process.platform !== 'linux')(
  'bench: server CPU (PostgreSQL)',
  () => {
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    afterAll(() => pool.end());

    it('counts the CPU of a backend, also after it exited', async () => {
      const server = await ServerCpu.locate(pool, TEST_DATABASE_URL);
      expect(server).not.toBeNull();
      const before = (server as ServerCpu).readUs();
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await client.query(BURN);
      const whileAlive = (server as ServerCpu).readUs();
      await client.end();
      // The backend's CPU moves to the postmaster's reaped-children total once it is gone.
      await waitFor(async () => {
        const { rows: left } = await pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [
          rows[0]?.pid,
        ]);
        return left.length === 0;
      });
      const afterExit = (server as ServerCpu).readUs();
      expect(whileAlive - before).toBeGreaterThanOrEqual(BURN_AT_LEAST_US);
      expect(afterExit).toBeGreaterThanOrEqual(whileAlive);
    });

    it('declines a server on another host without asking it anything', async () => {
      const unused = {
        query: () => Promise.reject(new Error('must not be asked')),
      } as unknown as pg.Pool;
      await expect(
        ServerCpu.locate(unused, 'postgres://postgres@db.example.invalid:5432/test'),
      ).resolves.toBeNull();
    });
  },
);
