/**
 * PostgreSQL goes away and comes back under load. A throwaway cluster (initdb in a temp dir,
 * started with pg_ctl on a free port) serves one in-process ChokaQ that drains jobs from a steady
 * producer (one enqueue every ~20 ms). Mid-run the server is stopped (`pg_ctl -m fast stop`) and
 * started again ~2 s later. Asserted:
 * - while the server is down, every enqueue rejects with a clear, retryable error
 *   (`ChokaQError` `CHOKAQ_STORAGE_UNAVAILABLE`, `retryable: true`);
 * - the same ChokaQ reconnects by itself: enqueues resolve again and the jobs enqueued after the
 *   restart are archived, without restarting anything;
 * - nothing is lost: every enqueue that resolved ends in the archive (runs cut off by the outage
 *   come back through zombie rescue, since the type opts in to `retryZombies`).
 *
 * Needs root (runuser to the postgres user) and the PostgreSQL 15 binaries; skipped otherwise.
 * The cluster is stopped (immediate) and deleted in afterAll, also when the test fails.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, ChokaQError, defineJob, silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { PG_BIN, asPostgres, freePort } from '../helpers/cluster.js';

const SCHEMA = 'crash_restart';
/** Healthy run before the stop, and after the restart. */
const BEFORE_MS = 2000;
const AFTER_MS = 3000;
/** How long the server stays down. */
const DOWN_MS = 2000;
const ENQUEUE_EVERY_MS = 20;
/** Upper bound on producer iterations, whatever the timing. */
const MAX_ENQUEUES = 2000;
const SETTLE_LIMIT_MS = 45_000;

function postgresUid(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

const owner = postgresUid();
const canRun =
  owner !== null &&
  existsSync(join(PG_BIN, 'initdb')) &&
  existsSync(join(PG_BIN, 'pg_ctl')) &&
  spawnSync('runuser', ['--help']).status === 0;
if (!canRun) console.warn('\n!!! SKIPPING postgres-restart: needs root, runuser and PG 15\n');

interface Attempt {
  startedMs: number;
  endedMs: number;
  id?: string;
  error?: unknown;
}

describe.skipIf(!canRun)('crash: PostgreSQL restart under load (throwaway cluster)', () => {
  let dir = '';
  let dataDir = '';
  let url = '';
  let running = false;
  let chokaq: ChokaQ | undefined;

  const pgCtl = (args: readonly string[]): Promise<string> =>
    asPostgres('pg_ctl', ['-D', dataDir, ...args]);
  const startServer = async (port: number): Promise<void> => {
    await pgCtl([
      '-l',
      join(dir, 'server.log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      '-w',
      '-t',
      '30',
      'start',
    ]);
    running = true;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chokaq-crash-pg-'));
    const { uid, gid } = owner as { uid: number; gid: number };
    chownSync(dir, uid, gid);
    dataDir = join(dir, 'data');
    await asPostgres('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    const port = await freePort();
    await startServer(port);
    url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  }, 90_000);

  afterAll(async () => {
    await chokaq?.stop().catch(() => undefined);
    if (running || existsSync(join(dataDir, 'postmaster.pid'))) {
      await pgCtl(['-m', 'immediate', '-w', '-t', '30', 'stop']).catch((error: unknown) =>
        console.warn(`postgres-restart: stopping the cluster failed: ${String(error)}`),
      );
    }
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('rejects enqueues clearly while down, reconnects by itself and loses nothing', async () => {
    const runs = new Map<string, number>();
    const job = defineJob<{ n: number }>({
      type: 'crash.restart.v1',
      queue: 'restart',
      retryZombies: true,
      handle: async (_payload, ctx) => {
        runs.set(ctx.id, (runs.get(ctx.id) ?? 0) + 1);
        await sleep(2 + Math.floor(Math.random() * 9));
      },
    });
    const engine = new ChokaQ({
      storage: postgres({
        connectionString: url,
        schema: SCHEMA,
        poolSize: 4,
        logger: silentLogger,
      }),
      jobs: [job],
      concurrency: 4,
      pollInterval: 100,
      heartbeatInterval: 300,
      zombieTimeout: 2000,
      rescueInterval: 300,
      fetchedTimeout: 2000,
      logger: silentLogger,
    });
    chokaq = engine;
    const succeededAt = new Map<string, number>();
    engine.on('job:succeeded', ({ id }) => succeededAt.set(id, Date.now()));
    let workerErrors = 0;
    engine.on('worker:error', () => (workerErrors += 1));
    await engine.start();

    // A steady producer, bounded in count and stopped by the flag.
    const attempts: Attempt[] = [];
    let producing = true;
    const producer = (async () => {
      for (let n = 0; producing && n < MAX_ENQUEUES; n++) {
        const startedMs = Date.now();
        try {
          const { id } = await engine.enqueue(job, { n });
          attempts.push({ startedMs, endedMs: Date.now(), id });
        } catch (error) {
          attempts.push({ startedMs, endedMs: Date.now(), error });
        }
        await sleep(ENQUEUE_EVERY_MS);
      }
    })();

    try {
      await sleep(BEFORE_MS);
      expect(succeededAt.size).toBeGreaterThan(0);
      const stopIssuedMs = Date.now();
      await pgCtl(['-m', 'fast', '-w', '-t', '30', 'stop']);
      running = false;
      const stoppedMs = Date.now();
      await sleep(DOWN_MS);
      const startIssuedMs = Date.now();
      await startServer(Number(new URL(url).port));
      const restartedMs = Date.now();
      await sleep(AFTER_MS);
      producing = false;
      await producer;

      const resolved = attempts.filter((a) => a.id !== undefined);
      const rejected = attempts.filter((a) => a.error !== undefined);
      // While the server was down, every enqueue failed with the clear, retryable error.
      const whileDown = attempts.filter(
        (a) => a.startedMs >= stoppedMs && a.endedMs <= startIssuedMs,
      );
      expect(whileDown.length).toBeGreaterThanOrEqual(10);
      expect(whileDown.filter((a) => a.id !== undefined)).toEqual([]);
      // …and so did every other rejection, including those around the stop and the start.
      const unclear = rejected.filter(
        (a) =>
          !(
            a.error instanceof ChokaQError &&
            a.error.code === 'CHOKAQ_STORAGE_UNAVAILABLE' &&
            a.error.retryable
          ),
      );
      expect(unclear.map((a) => String(a.error))).toEqual([]);

      // Reconnected by itself: enqueues resolve again and their jobs are archived.
      const afterRestart = resolved.filter((a) => a.startedMs >= restartedMs);
      expect(afterRestart.length).toBeGreaterThan(10);
      const firstEnqueueBack = Math.min(...afterRestart.map((a) => a.endedMs)) - restartedMs;

      // Nothing lost: every resolved enqueue ends in the archive, nothing in the DLQ.
      const resolvedIds = resolved.map((a) => a.id as string);
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      let archived = 0;
      let hot = -1;
      try {
        const deadline = Date.now() + SETTLE_LIMIT_MS;
        while (Date.now() < deadline) {
          const { rows } = await db.query<{ archived: number; hot: number }>(
            `SELECT (SELECT count(*) FROM "${SCHEMA}".jobs_archive WHERE id = ANY($1))::int AS archived,
                    (SELECT count(*) FROM "${SCHEMA}".jobs_hot)::int AS hot`,
            [resolvedIds],
          );
          archived = rows[0]?.archived ?? -1;
          hot = rows[0]?.hot ?? -1;
          if (archived === resolvedIds.length && hot === 0) break;
          await sleep(200);
        }
        const dead = await db.query(`SELECT id FROM "${SCHEMA}".jobs_dlq`);
        expect(dead.rows).toEqual([]);
      } finally {
        await db.end();
      }
      expect({ archived, hot }).toEqual({ archived: resolvedIds.length, hot: 0 });
      const settledAfter = afterRestart.filter((a) => succeededAt.has(a.id as string));
      expect(settledAfter.length).toBe(afterRestart.length);
      const firstSettledBack =
        Math.min(...[...succeededAt.values()].filter((at) => at >= restartedMs)) - restartedMs;
      const reRun = [...runs.values()].filter((n) => n > 1).length;

      console.info(
        `postgres-restart: stop took ${stoppedMs - stopIssuedMs} ms, start ${restartedMs - startIssuedMs} ms; ` +
          `${attempts.length} enqueues: ${resolved.length} resolved, ${rejected.length} rejected ` +
          `(all CHOKAQ_STORAGE_UNAVAILABLE, retryable; ${whileDown.length} while down); ` +
          `after the restart the first enqueue resolved in ${firstEnqueueBack} ms and the first job ` +
          `settled in ${firstSettledBack} ms; all ${resolvedIds.length} resolved jobs archived; ` +
          `${reRun} jobs ran twice (runs cut off by the outage); ${workerErrors} worker:error events`,
      );
    } catch (error) {
      const log = join(dir, 'server.log');
      if (existsSync(log)) console.warn(readFileSync(log, 'utf8').slice(-4000));
      throw error;
    } finally {
      producing = false;
      await producer;
    }
  }, 120_000);
});
