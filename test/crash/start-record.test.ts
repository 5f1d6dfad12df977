/**
 * Crash proof of when a run's start is recorded (docs/delivery-guarantees.md, "Starts"), with the
 * default zombie policy: two worker processes drain 5,000 jobs from PostgreSQL while the test
 * SIGKILLs a random one every 1–3 s and starts a replacement. Each handler appends its job id to
 * a per-process file with a synchronous write before anything else, so every call is on record.
 *
 * - No job whose handler was never called is buried: every DLQ row is a `Zombie` whose handler
 *   was called in a process that was killed — or a `strictStart` job killed in the instant between
 *   its start's commit and its handler's call. (Before starts were recorded behind the run, a
 *   claim moved its jobs straight to processing, and a kill before the handlers were called
 *   buried the whole claim.)
 * - A run whose start was recorded is never run again: a job runs again only after a kill, and
 *   then its archived row counts one attempt and no lost run; per kill at most
 *   5 × `concurrency` runs come back (the runs in flight and the finished runs not yet written).
 * - A `strictStart` type never runs twice.
 * - Jobs of a batch handler (one write per call lists every job of the batch) keep the same rules
 *   as the default jobs: each job's start is its own (docs/delivery-guarantees.md, "Batch
 *   handlers").
 * - Every job ends exactly once, and the counters equal the tables.
 *
 * A process that was never killed may bury or run again only a job whose lease it was told it
 * lost (it stalled past `zombieTimeout` on a loaded machine; test/fixtures/lease-losses.ts).
 *
 * The workers (test/fixtures/crash-start-worker.mjs) import the built package from dist/.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { ROOT, killAll, requireDist, spawnNode, type Child } from '../fixtures/crash-process.js';
import { killWhileDraining, tableCounts } from '../fixtures/kill-loop.js';
import { cutShort, markFiles, readLeaseLosses } from '../fixtures/lease-losses.js';

const WORKER = join(ROOT, 'test/fixtures/crash-start-worker.mjs');
const LAZY = 3000;
const STRICT = 1000;
const BATCH = 1000;
const SPREAD_MS = 12_000;
const WORKERS = 2;
/** Concurrency of each worker (see the fixture). */
const CONCURRENCY = 8;
const MAX_LOST_PER_KILL = 5 * CONCURRENCY;
const MIN_KILLS = 4;
const MAX_KILLS = 40;
const RUN_LIMIT_MS = 150_000;
/** `FailureReason` code of `Zombie` in the DLQ. */
const ZOMBIE = 2;

const pgUp = await postgresAvailable();

describe.skipIf(!pgUp)('crash: when a run’s start is recorded (PostgreSQL)', () => {
  const schema = uniqueSchema('crash_start');
  const entryDir = mkdtempSync(join(tmpdir(), 'chokaq-start-'));
  const children: Child[] = [];
  let producer: ChokaQ | undefined;
  let db: pg.Client | undefined;
  const typeOf = new Map<string, 'lazy' | 'strict' | 'batch'>();

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/storage/postgres/index.js']);
    const handle = (): undefined => undefined;
    const lazy = defineJob<{ n: number }>({ type: 'crash.start.lazy.v1', queue: 'start', handle });
    const strict = defineJob<{ n: number }>({
      type: 'crash.start.strict.v1',
      queue: 'start',
      strictStart: true,
      handle,
    });
    const batch = defineJob<{ n: number }>({
      type: 'crash.start.batch.v1',
      queue: 'start',
      batchSize: 8,
      handleBatch: () => undefined,
    });
    const definitions = { lazy, strict, batch };
    producer = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      jobs: [lazy, strict, batch],
      worker: false,
      logger: silentLogger,
    });
    await producer.storage.open(); // creates and migrates the schema
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    const total = LAZY + STRICT + BATCH;
    for (let start = 0; start < total; start += 1000) {
      const kind = start < LAZY ? 'lazy' : start < LAZY + STRICT ? 'strict' : 'batch';
      const items = Array.from({ length: 1000 }, (_, i) => ({
        payload: { n: start + i },
        // Both kinds spread over the span (7 is prime to the total), side by side when kills land.
        delay: Math.floor((((start + i) * 7) % total) * (SPREAD_MS / total)),
      }));
      const made = await producer.enqueueMany(definitions[kind], items);
      for (const result of made) typeOf.set(result.id, kind);
    }
  }, 60_000);

  afterAll(async () => {
    await killAll(children);
    await db?.end().catch(() => undefined);
    await producer?.stop().catch(() => undefined);
    if (pgUp) await dropSchema(schema);
    rmSync(entryDir, { recursive: true, force: true });
  }, 60_000);

  it('buries no job whose handler was not called and runs no recorded start twice', async () => {
    const client = db as pg.Client;
    const total = LAZY + STRICT + BATCH;
    expect(typeOf.size).toBe(total);
    const count = () => tableCounts(client, schema);
    let serial = 0;
    const loop = await killWhileDraining({
      spawn: () => {
        const child = spawnNode(`start-worker-${serial++}`, [WORKER], {
          CRASH_URL: TEST_DATABASE_URL,
          CRASH_SCHEMA: schema,
          CRASH_ENTRY_DIR: entryDir,
        });
        children.push(child);
        return child;
      },
      workers: WORKERS,
      settled: async () => {
        const now = await count();
        return now.hot === 0 && now.archive + now.dlq === total;
      },
      maxKills: MAX_KILLS,
      limitMs: RUN_LIMIT_MS,
    });
    expect(loop.settled, `not settled: ${JSON.stringify(await count())}`).toBe(true);
    for (const survivor of loop.survivors) {
      expect(survivor.status, `${survivor.name}: ${survivor.stderr}`).toEqual({
        code: 0,
        signal: null,
      });
    }
    const { killed } = loop;
    expect(killed.size).toBeGreaterThanOrEqual(MIN_KILLS);

    // Handler calls, per job: the pids that called it, in file order per pid.
    const callsOf = new Map<string, number[]>();
    for (const file of markFiles(entryDir)) {
      const pid = Number(file.replace(/\.log$/, ''));
      for (const line of readFileSync(join(entryDir, file), 'utf8').split('\n')) {
        const id = line.split(' ')[0];
        if (!id) continue;
        callsOf.set(id, [...(callsOf.get(id) ?? []), pid]);
      }
    }

    // Every job ended exactly once.
    const q = async <R extends pg.QueryResultRow>(sql: string): Promise<R[]> =>
      (await client.query<R>(sql)).rows;
    const archived = await q<{ id: string; attempts: number; lost_attempts: number }>(
      `SELECT id, attempts, lost_attempts FROM "${schema}".jobs_archive`,
    );
    const dead = await q<{ id: string; failure_reason: number }>(
      `SELECT id, failure_reason FROM "${schema}".jobs_dlq`,
    );
    const deadIds = new Set(dead.map((r) => r.id));
    expect(archived.filter((r) => deadIds.has(r.id))).toEqual([]);
    expect(new Set([...archived.map((r) => r.id), ...deadIds])).toEqual(new Set(typeOf.keys()));

    // The DLQ holds only zombies whose handler was called, by a process that was killed.
    expect(dead.filter((r) => r.failure_reason !== ZOMBIE)).toEqual([]);
    // Only a strictStart job can be buried uncalled: killed between its start's commit and the
    // handler call, the one instant strictStart leaves.
    const uncalled = dead.filter((r) => (callsOf.get(r.id) ?? []).length === 0);
    expect(uncalled.filter((r) => typeOf.get(r.id) !== 'strict')).toEqual([]);
    const explained = cutShort(killed, readLeaseLosses(entryDir));
    const lived = (pid: number, id: string): boolean => !explained(pid, id);
    const buriedByLiving = dead.filter((r) => callsOf.get(r.id)?.some((pid) => lived(pid, r.id)));
    expect(buriedByLiving).toEqual([]);

    // Archived jobs ran, with one counted attempt and no lost run: a run that came back after a
    // kill was one whose start had not been recorded.
    expect(archived.filter((r) => (callsOf.get(r.id) ?? []).length === 0)).toEqual([]);
    expect(archived.filter((r) => r.attempts !== 1 || r.lost_attempts !== 0)).toEqual([]);

    // Runs again only after a kill (at most one of a job's calls was made by a process that
    // lived), within the bound per kill; never for strictStart.
    const again = [...callsOf].filter(([, pids]) => pids.length > 1);
    expect(again.filter(([id, pids]) => pids.filter((pid) => lived(pid, id)).length > 1)).toEqual(
      [],
    );
    expect(again.filter(([id]) => typeOf.get(id) === 'strict')).toEqual([]);
    const againPerPid = new Map<number, number>();
    for (const [, pids] of again) {
      for (const pid of pids.filter((p) => killed.has(p))) {
        againPerPid.set(pid, (againPerPid.get(pid) ?? 0) + 1);
      }
    }
    for (const [pid, runs] of againPerPid) {
      expect(runs, `runs again after the kill of ${pid}`).toBeLessThanOrEqual(MAX_LOST_PER_KILL);
    }

    // Counters moved with the rows.
    const stats = (await (producer as ChokaQ).queues.stats()).find((s) => s.queue === 'start');
    expect({ succeeded: stats?.succeededTotal, failed: stats?.failedTotal }).toEqual({
      succeeded: archived.length,
      failed: dead.length,
    });

    console.info(
      `start-record: ${total} jobs settled in ${loop.elapsedMs} ms with ${killed.size} SIGKILLs; ` +
        `archive ${archived.length}, zombies ${dead.length} ` +
        `(batch ${dead.filter((r) => typeOf.get(r.id) === 'batch').length}) ` +
        `(uncalled: ${uncalled.length}, all strictStart, killed between start and call); ` +
        `jobs run again ${again.length} (strict 0, batch ${again.filter(([id]) => typeOf.get(id) === 'batch').length}); ` +
        `per killed pid ${JSON.stringify(Object.fromEntries(againPerPid))}`,
    );
  }, 200_000);
});
