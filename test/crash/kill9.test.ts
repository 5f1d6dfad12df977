/**
 * Crash proof with real processes: two worker processes drain 5,000 jobs from PostgreSQL while
 * the test SIGKILLs a random one every 1–3 s and starts a replacement. Every job must end exactly
 * once (archive or DLQ, never both, none lost), and every re-execution must be explained by a
 * kill: the at-least-once window of a crash is the jobs running in the killed process plus its
 * finished runs whose settlements were not yet written. One worker is also paused (SIGSTOP) for
 * 3 s, past its zombie timeout, and never killed: a process that was never killed may have a run
 * come back only for a job whose lease it was told it lost (test/fixtures/lease-losses.ts), as a
 * worker stalled by a loaded machine may.
 *
 * The job type opts in to `retryZombies`, so the killed runs come back through zombie rescue
 * (heartbeat 200 ms, zombie timeout 1.5 s, rescue every 300 ms). Each handler run appends
 * (time, job id, attempt, pid) to its process's file with a synchronous write as it is called, so
 * a run is on record even when its process dies before the job is settled, and before its start
 * can be recorded. The jobs are enqueued with delays spread over
 * 14 s, so workers are always busy when the kills land and the run spans at least four kills.
 *
 * The workers (test/fixtures/crash-kill9-worker.mjs) import the built package from dist/.
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

const WORKER = join(ROOT, 'test/fixtures/crash-kill9-worker.mjs');
const JOBS = 5000;
/** Jobs become due over this span, so there is always work in flight when a kill lands. */
const SPREAD_MS = 14_000;
const WORKERS = 2;
/** Concurrency of each worker (see the fixture). */
const CONCURRENCY = 8;
/**
 * Most runs a kill can lose: the handlers in flight plus the settlements not yet written, which
 * the worker keeps at or under 4 × `concurrency` before it frees a finished run's slot.
 */
const MAX_LOST_PER_KILL = 5 * CONCURRENCY;
const MIN_KILLS = 4;
const MAX_KILLS = 40;
/**
 * One worker is paused this long, past its zombie timeout (1.5 s), and never killed: the others
 * rescue its jobs, and the runs it then finishes must be refused by the lease fence.
 */
const STALL = { atMs: 4000, forMs: 3000 };
/** The drain (kills included) must finish within this long after the workers started. */
const RUN_LIMIT_MS = 150_000;

const pgUp = await postgresAvailable();

describe.skipIf(!pgUp)('crash: SIGKILL of worker processes under load (PostgreSQL)', () => {
  const schema = uniqueSchema('crash_k9');
  const children: Child[] = [];
  let producer: ChokaQ | undefined;
  let db: pg.Client | undefined;
  const ids: string[] = [];
  /** Where each worker process appends the runs its handler was called for. */
  const runsDir = mkdtempSync(join(tmpdir(), 'chokaq-kill9-runs-'));

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/storage/postgres/index.js']);
    const job = defineJob<{ n: number }>({
      type: 'crash.kill9.v1',
      queue: 'kill9',
      retryZombies: true,
      handle: () => undefined,
    });
    producer = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      jobs: [job],
      worker: false,
      logger: silentLogger,
    });
    await producer.storage.open(); // creates and migrates the schema
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    for (let start = 0; start < JOBS; start += 1000) {
      const items = Array.from({ length: Math.min(1000, JOBS - start) }, (_, i) => ({
        payload: { n: start + i },
        delay: Math.floor(((start + i) * SPREAD_MS) / JOBS),
      }));
      for (const result of await producer.enqueueMany(job, items)) ids.push(result.id);
    }
  }, 60_000);

  afterAll(async () => {
    await killAll(children);
    await db?.end().catch(() => undefined);
    await producer?.stop().catch(() => undefined);
    if (pgUp) await dropSchema(schema);
    rmSync(runsDir, { recursive: true, force: true });
  }, 60_000);

  it('ends every job exactly once and explains every re-execution by a kill', async () => {
    const client = db as pg.Client;
    expect(new Set(ids).size).toBe(JOBS);
    const count = () => tableCounts(client, schema);

    let serial = 0;
    const loop = await killWhileDraining({
      spawn: () => {
        const child = spawnNode(`kill9-worker-${serial++}`, [WORKER], {
          CRASH_URL: TEST_DATABASE_URL,
          CRASH_SCHEMA: schema,
          CRASH_RUNS_DIR: runsDir,
        });
        children.push(child);
        return child;
      },
      workers: WORKERS,
      settled: async () => {
        const now = await count();
        return now.hot === 0 && now.archive + now.dlq === JOBS;
      },
      maxKills: MAX_KILLS,
      limitMs: RUN_LIMIT_MS,
      stall: STALL,
    });
    const { killed, elapsedMs } = loop;
    expect(loop.stalled).toBeDefined();
    expect(
      loop.settled,
      `not settled within ${RUN_LIMIT_MS} ms: ${JSON.stringify(await count())}`,
    ).toBe(true);
    for (const survivor of loop.survivors) {
      expect(survivor.status, `${survivor.name}: ${survivor.stderr}`).toEqual({
        code: 0,
        signal: null,
      });
    }

    // Every job ended exactly once: archive ∪ DLQ = all ids, never both, nothing hot.
    const q = async <R extends pg.QueryResultRow>(sql: string): Promise<R[]> =>
      (await client.query<R>(sql)).rows;
    const archived = await q<{ id: string; attempts: number; lost_attempts: number }>(
      `SELECT id, attempts, lost_attempts FROM "${schema}".jobs_archive`,
    );
    const dead = await q<{ id: string; failure_reason: number; lost_attempts: number }>(
      `SELECT id, failure_reason, lost_attempts FROM "${schema}".jobs_dlq`,
    );
    const archivedIds = new Set(archived.map((r) => r.id));
    const deadIds = new Set(dead.map((r) => r.id));
    expect([...archivedIds].filter((id) => deadIds.has(id))).toEqual([]);
    expect(new Set([...archivedIds, ...deadIds])).toEqual(new Set(ids));
    expect(archived.length + dead.length).toBe(JOBS);
    expect((await count()).hot).toBe(0);

    // Executions, in the order they were recorded, per job.
    const executions = markFiles(runsDir)
      .flatMap((file) => readFileSync(join(runsDir, file), 'utf8').split('\n'))
      .filter((line) => line !== '')
      .map((line) => {
        const [at, jobId, , pid] = line.split(' ');
        return { at: Number(at), job_id: jobId!, pid: Number(pid) };
      })
      // Runs of one job in two processes lie a zombie or fetched timeout (1.5 s) apart.
      .sort((a, b) => a.at - b.at);
    const runsOf = new Map<string, number[]>();
    for (const row of executions) {
      const pids = runsOf.get(row.job_id) ?? [];
      pids.push(row.pid);
      runsOf.set(row.job_id, pids);
    }
    const known = new Set(ids);
    expect([...runsOf.keys()].filter((id) => !known.has(id))).toEqual([]);

    // Every archived job ran at least once; no attempt was used up by a lost run.
    const notRun = archived.filter((r) => (runsOf.get(r.id)?.length ?? 0) < 1);
    expect(notRun).toEqual([]);
    expect(archived.filter((r) => r.attempts !== 1)).toEqual([]);

    // Re-executions: every run but a job's last was made by a process we killed (or one told it
    // lost that job's lease), and a process loses at most MAX_LOST_PER_KILL runs.
    const reExecuted = [...runsOf].filter(([, pids]) => pids.length > 1);
    const leases = readLeaseLosses(runsDir);
    const explained = cutShort(killed, leases);
    const unexplained = reExecuted.filter(([id, pids]) =>
      pids.slice(0, -1).some((pid) => !explained(pid, id)),
    );
    expect(unexplained).toEqual([]);
    const lostPerPid = new Map<number, number>();
    for (const [, pids] of reExecuted) {
      for (const pid of pids.slice(0, -1)) lostPerPid.set(pid, (lostPerPid.get(pid) ?? 0) + 1);
    }
    for (const [pid, lost] of lostPerPid) {
      expect(lost, `runs lost by killed pid ${pid}`).toBeLessThanOrEqual(MAX_LOST_PER_KILL);
    }
    const extraRuns = executions.length - runsOf.size;
    expect(extraRuns).toBe(reExecuted.reduce((sum, [, pids]) => sum + pids.length - 1, 0));
    expect(extraRuns).toBeLessThanOrEqual(killed.size * MAX_LOST_PER_KILL);

    // Zombies that ran again carry their lost runs; a lost run is refunded, never counted.
    const lostOf = new Map(archived.map((r) => [r.id, r.lost_attempts]));
    // A run that came back without a lost run had not had its start recorded (see
    // test/crash/start-record.test.ts): a job carries at most as many lost runs as it ran again
    // (every run is on record from its call, before its start can be written).
    for (const [id, pids] of reExecuted) {
      if (archivedIds.has(id)) expect(lostOf.get(id), id).toBeLessThanOrEqual(pids.length - 1);
    }
    const zombieRetried = archived.filter((r) => r.lost_attempts >= 1).length;
    expect(zombieRetried).toBeGreaterThan(0);
    // A DLQ row here can only be a zombie that was lost more often than retryZombies allows.
    for (const row of dead) {
      expect({ id: row.id, reason: row.failure_reason }).toEqual({ id: row.id, reason: 2 });
      expect(row.lost_attempts).toBeGreaterThanOrEqual(3);
    }

    // Counters moved with the rows: one success per archived row, one retry per lost run.
    const stats = await (producer as ChokaQ).queues.stats();
    const kill9 = stats.find((s) => s.queue === 'kill9');
    const lostTotal = [...archived, ...dead].reduce((sum, r) => sum + r.lost_attempts, 0);
    expect({
      succeeded: kill9?.succeededTotal,
      failed: kill9?.failedTotal,
      retried: kill9?.retriedTotal,
    }).toEqual({ succeeded: archived.length, failed: dead.length, retried: lostTotal });

    expect(killed.size).toBeGreaterThanOrEqual(MIN_KILLS);
    console.info(
      `kill9: ${JOBS} jobs settled in ${elapsedMs} ms with ${killed.size} SIGKILLs ` +
        `(at ${loop.killsAtMs.map((ms) => `${ms} ms`).join(', ')}); ` +
        `archive ${archived.length}, dlq ${dead.length}; executions ${executions.length} ` +
        `(${extraRuns} extra); jobs re-executed after a kill ${reExecuted.length}; ` +
        `zombie-retried (lostAttempts ≥ 1) ${zombieRetried}; lost runs ${lostTotal}; ` +
        `re-executions per pid ${JSON.stringify(Object.fromEntries(lostPerPid))}; ` +
        `pid ${loop.stalled} stalled for ${STALL.forMs} ms, told of ` +
        `${leases.of(loop.stalled ?? 0)} lost leases`,
    );
  }, 200_000);
});
