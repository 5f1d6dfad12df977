/**
 * Workflows under SIGKILL with real processes: 1,000 fan-out/fan-in flows (ten children and a
 * parent that waits for them, 11,000 jobs) drained from PostgreSQL by three worker processes while
 * the test SIGKILLs a random one every 1–3 s and starts a replacement. The kills land in any
 * window of a workflow: a child's run, between a child's settle and its resolver (the periodic
 * pass then releases the parent), a parent's run.
 *
 * Children opt in to `retryZombies`, so every child succeeds in the end and every parent is
 * released. Half the parents opt in too; the other half keep the default zombie policy, whose
 * promise (docs/delivery-guarantees.md, "Starts") is checked as stated: a parent runs again only
 * when a run of it was in a killed process and its start was not recorded (no attempt used, no
 * lost run), or it ends in the DLQ as a `Zombie` whose handler was called in a killed process.
 *
 * Each handler call appends a line to its process's file with a synchronous write as it is
 * called (test/fixtures/crash-workflow-worker.mjs); a parent appends what `ctx.dependencies()`
 * said. The test checks that every parent ran only after all of its children succeeded (what
 * it read, and the times of the marks and archive rows), that every job ended exactly once,
 * and that every re-execution is explained by a kill (or by a lease its process was told it
 * lost: a worker stalled past `zombieTimeout` on a loaded machine; test/fixtures/lease-losses.ts).
 *
 * Children run durable steps (docs/workflows.md#durable-steps): a step `compute` whose function
 * marks each call, a transactional step `write` that inserts a row into the app's table in the
 * worker's own `pg` transaction with the step's record, and (one child per flow) a durable sleep
 * that gives the slot back first. The test checks that every transactional write is in the table
 * exactly once, that a step's function ran again only after a kill cut its run short before the
 * record, and that a job's suspended runs used no attempt.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger, type JobDefinition } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { ROOT, killAll, requireDist, spawnNode, type Child } from '../fixtures/crash-process.js';
import { killWhileDraining, tableCounts } from '../fixtures/kill-loop.js';
import { cutShort, readLeaseLosses } from '../fixtures/lease-losses.js';
import { readMarks, type RunMark } from '../fixtures/workflow-marks.js';

const WORKER = join(ROOT, 'test/fixtures/crash-workflow-worker.mjs');
const FLOWS = 1000;
const FAN_OUT = 10;
const JOBS = FLOWS * (FAN_OUT + 1);
/** Flows written per `enqueueWorkflow` call. */
const FLOWS_PER_CALL = 50;
/** Children become due over this span, so there is always work in flight when a kill lands. */
const SPREAD_MS = 15_000;
const WORKERS = 3;
/** Concurrency of each worker (see the fixture). */
const CONCURRENCY = 8;
/** Most runs a kill can lose: those in flight plus the settlements not yet written. */
const MAX_LOST_PER_KILL = 5 * CONCURRENCY;
const MIN_KILLS = 4;
const MAX_KILLS = 40;
/** The drain (kills included) must finish within this long after the workers started. */
const RUN_LIMIT_MS = 150_000;
const ZOMBIE = 2;

const pgUp = await postgresAvailable();

/** A definition that only names a type of the fixture, for enqueueing. */
function stub<P>(type: string, queue: string): JobDefinition<P> {
  return defineJob<P>({ type, queue, handle: () => undefined });
}

/** An archive row's times. */
interface EndTimes {
  started_at: Date | null;
  finished_at: Date;
}

/**
 * The parents that ran before one of their children had finished: a parent's first run was
 * called before a child's last run or before the child's archive row says it finished, or the
 * parent's own archive row says it started before that. `Date.now()` in the workers and the
 * archive's timestamps read the one clock of this machine; a mark has whole milliseconds, hence
 * 1 ms of slack.
 */
function parentsTooEarly(
  flows: ReadonlyMap<string, { children: readonly string[] }>,
  archive: ReadonlyMap<string, EndTimes>,
  runsFor: (id: string) => readonly RunMark[],
): string[] {
  const early: string[] = [];
  for (const [parent, flow] of flows) {
    const firstRun = runsFor(parent)[0];
    const ended = archive.get(parent);
    for (const id of flow.children) {
      const row = archive.get(id);
      const lastChildRun = runsFor(id).at(-1);
      if (row === undefined || lastChildRun === undefined) {
        early.push(`${parent}: child ${id} never finished`);
        continue;
      }
      const finishedAt = row.finished_at.getTime();
      if (firstRun && (firstRun.at < lastChildRun.at || firstRun.at + 1 < finishedAt)) {
        early.push(`${parent} ran at ${firstRun.at}, before child ${id} finished`);
      }
      const startedAt = ended?.started_at?.getTime();
      if (startedAt !== undefined && startedAt < finishedAt) {
        early.push(`${parent} started at ${startedAt}, before child ${id} finished (archive)`);
      }
    }
  }
  return early;
}

describe.skipIf(!pgUp)('crash: SIGKILL of workers draining workflows (PostgreSQL)', () => {
  const schema = uniqueSchema('crash_wf');
  const children: Child[] = [];
  let producer: ChokaQ | undefined;
  let db: pg.Client | undefined;
  const childIds = new Set<string>();
  /** Each parent with its children, in order, and its zombie policy. */
  const flows = new Map<string, { children: string[]; retry: boolean }>();
  const runsDir = mkdtempSync(join(tmpdir(), 'chokaq-wf-runs-'));

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/storage/postgres/index.js']);
    const child = stub<{ flow: number; i: number }>('crash.wf.child.v1', 'wf.children');
    const parentRetry = stub<{ flow: number }>('crash.wf.parent.retry.v1', 'wf.parents');
    const parentDefault = stub<{ flow: number }>('crash.wf.parent.default.v1', 'wf.parents');
    producer = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      jobs: [child, parentRetry, parentDefault],
      worker: false,
      logger: silentLogger,
    });
    await producer.storage.open(); // creates and migrates the schema
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    // The application's table the transactional step writes to: no key, so a double would show.
    await db.query(`CREATE TABLE "${schema}".app_writes (job_id text NOT NULL, pid int NOT NULL)`);
    for (let first = 0; first < FLOWS; first += FLOWS_PER_CALL) {
      await producer.enqueueWorkflow((workflow) => {
        for (let flow = first; flow < Math.min(first + FLOWS_PER_CALL, FLOWS); flow++) {
          const delay = Math.floor((flow * SPREAD_MS) / FLOWS);
          const ids = Array.from({ length: FAN_OUT }, (_, i) =>
            workflow.add(child, { flow, i }, { delay }),
          );
          const retry = flow % 2 === 0;
          const parent = workflow.add(
            retry ? parentRetry : parentDefault,
            { flow },
            { dependsOn: ids },
          );
          for (const id of ids) childIds.add(id);
          flows.set(parent, { children: ids, retry });
        }
      });
    }
  }, 60_000);

  afterAll(async () => {
    await killAll(children);
    await db?.end().catch(() => undefined);
    await producer?.stop().catch(() => undefined);
    if (pgUp) await dropSchema(schema);
    rmSync(runsDir, { recursive: true, force: true });
  }, 60_000);

  it('runs every parent after all its children, ends every job once, explains every rerun', async () => {
    const client = db as pg.Client;
    expect(childIds.size + flows.size).toBe(JOBS);
    const count = () => tableCounts(client, schema);

    let serial = 0;
    const loop = await killWhileDraining({
      spawn: () => {
        const child = spawnNode(`wf-worker-${serial++}`, [WORKER], {
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
    });
    const { killed } = loop;
    expect(
      loop.settled,
      `not settled in ${RUN_LIMIT_MS} ms: ${JSON.stringify(await count())}`,
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
    const archived = await q<{
      id: string;
      attempts: number;
      lost_attempts: number;
      started_at: Date | null;
      finished_at: Date;
    }>(`SELECT id, attempts, lost_attempts, started_at, finished_at FROM "${schema}".jobs_archive`);
    const dead = await q<{ id: string; failure_reason: number; lost_attempts: number }>(
      `SELECT id, failure_reason, lost_attempts FROM "${schema}".jobs_dlq`,
    );
    const archive = new Map(archived.map((r) => [r.id, r]));
    const dlq = new Map(dead.map((r) => [r.id, r]));
    expect([...archive.keys()].filter((id) => dlq.has(id))).toEqual([]);
    expect(new Set([...archive.keys(), ...dlq.keys()])).toEqual(
      new Set([...childIds, ...flows.keys()]),
    );
    expect((await count()).hot).toBe(0);

    // Every child succeeded; no parent failed by a dependency.
    expect([...childIds].filter((id) => !archive.has(id))).toEqual([]);

    const { runs, deps, runsOf, stepsOf } = readMarks(runsDir);
    const known = new Set([...childIds, ...flows.keys()]);
    expect([...runsOf.keys()].filter((id) => !known.has(id))).toEqual([]);
    const runsFor = (id: string): RunMark[] => runsOf.get(id) ?? [];
    const explained = cutShort(killed, readLeaseLosses(runsDir));

    // Every archived job ran; its last run ended it: one attempt counted, never an extra one.
    expect(archived.filter((r) => runsFor(r.id).length < 1).map((r) => r.id)).toEqual([]);
    expect(archived.filter((r) => r.attempts !== 1).map((r) => r.id)).toEqual([]);

    // Every re-execution is explained by a kill: every run but a job's last (every run of a
    // zombie) was in a process we killed (or one told it lost that job's lease), and a process
    // lost at most MAX_LOST_PER_KILL.
    const earlierRuns = (id: string): RunMark[] =>
      dlq.has(id) ? runsFor(id) : runsFor(id).slice(0, -1);
    const lostRuns = [...known].flatMap(earlierRuns);
    expect(lostRuns.filter((run) => !explained(run.pid, run.jobId))).toEqual([]);
    const lostPerPid = new Map<number, number>();
    for (const run of lostRuns) lostPerPid.set(run.pid, (lostPerPid.get(run.pid) ?? 0) + 1);
    for (const [pid, lost] of lostPerPid) {
      expect(lost, `runs lost by pid ${pid}`).toBeLessThanOrEqual(MAX_LOST_PER_KILL);
    }
    // No job ran more often than it was started in a process that was then killed: its lost runs
    // lie in different killed processes, one each.
    const rerunInOneProcess = [...known].filter((id) => {
      const pids = earlierRuns(id).map((run) => run.pid);
      return new Set(pids).size !== pids.length;
    });
    expect(rerunInOneProcess).toEqual([]);
    // A job carries at most as many lost runs as it ran again. A child that naps first marks
    // its runs after the nap: a run killed in its nap is lost without a mark.
    const napped = new Set(
      (
        await q<{ job_id: string }>(`SELECT job_id FROM "${schema}".job_steps WHERE name = 'nap'`)
      ).map((r) => r.job_id),
    );
    for (const row of archived.filter((r) => !napped.has(r.id))) {
      expect(row.lost_attempts, row.id).toBeLessThanOrEqual(runsFor(row.id).length - 1);
    }

    // Durable steps. Each transactional write is in the app's table exactly once.
    const writes = await q<{ job_id: string; n: string }>(
      `SELECT job_id, count(*) AS n FROM "${schema}".app_writes GROUP BY job_id`,
    );
    expect(writes.filter((w) => Number(w.n) !== 1)).toEqual([]);
    expect(new Set(writes.map((w) => w.job_id))).toEqual(childIds);
    // Every child recorded its steps (and its nap); a step's function ran again only when a kill
    // cut its run short before the record: every call but the last in a killed process.
    const recorded = await q<{ job_id: string; names: string }>(
      `SELECT job_id, string_agg(name, ',' ORDER BY seq) AS names FROM "${schema}".job_steps
       GROUP BY job_id`,
    );
    const namesOf = new Map(recorded.map((r) => [r.job_id, r.names]));
    const wrongSteps = [...childIds].filter((id) => {
      const names = namesOf.get(id);
      return names !== 'compute,write' && names !== 'nap,compute,write';
    });
    expect(wrongSteps).toEqual([]);
    expect([...childIds].filter((id) => (stepsOf.get(id) ?? []).length < 1)).toEqual([]);
    const stepRerunsUnexplained = [...childIds].flatMap((id) =>
      (stepsOf.get(id) ?? []).slice(0, -1).filter((call) => !explained(call.pid, id)),
    );
    expect(stepRerunsUnexplained).toEqual([]);

    // Parents: each ran only after all its children succeeded, as it read and as the clocks say.
    const depsOf = new Map<string, number>();
    for (const mark of deps) {
      expect(flows.has(mark.jobId), mark.jobId).toBe(true);
      expect(mark, mark.jobId).toMatchObject({
        count: FAN_OUT,
        allSucceeded: true,
        resultsRight: true,
      });
      depsOf.set(mark.jobId, (depsOf.get(mark.jobId) ?? 0) + 1);
    }
    const early = parentsTooEarly(flows, archive, runsFor);
    expect(early).toEqual([]);

    // Parents that opted in to retryZombies all reached the archive, once (the primary key).
    const retryParents = [...flows].filter(([, f]) => f.retry).map(([id]) => id);
    const defaultParents = [...flows].filter(([, f]) => !f.retry).map(([id]) => id);
    expect(retryParents.filter((id) => !archive.has(id))).toEqual([]);
    // Every archived parent read its dependencies in its last run.
    expect([...flows.keys()].filter((id) => archive.has(id) && !depsOf.has(id))).toEqual([]);

    // Parents under the default policy: a run whose start was recorded never runs again. An
    // archived one counted no lost run; a dead one is a Zombie whose every run was killed.
    const deadParents = defaultParents.filter((id) => dlq.has(id));
    for (const id of defaultParents) {
      const row = archive.get(id);
      if (row) expect(row.lost_attempts, id).toBe(0);
    }
    for (const id of deadParents) {
      const row = dlq.get(id)!;
      expect({ id, reason: row.failure_reason }).toEqual({ id, reason: ZOMBIE });
      expect(runsFor(id).length, id).toBeGreaterThanOrEqual(1);
    }

    // Counters moved with the rows, once each: a success per archive row (a parent archived
    // twice would count twice), a failure per DLQ row, a retry per refunded lost run.
    const stats = await (producer as ChokaQ).queues.stats();
    for (const [queue, ids] of [
      ['wf.children', [...childIds]],
      ['wf.parents', [...flows.keys()]],
    ] as const) {
      const found = stats.find((s) => s.queue === queue);
      const ended = ids.map((id) => archive.get(id) ?? dlq.get(id)!);
      expect({
        queue,
        succeeded: found?.succeededTotal,
        failed: found?.failedTotal,
        retried: found?.retriedTotal,
      }).toEqual({
        queue,
        succeeded: ids.filter((id) => archive.has(id)).length,
        failed: ids.filter((id) => dlq.has(id)).length,
        retried: ended.reduce((sum, r) => sum + r.lost_attempts, 0),
      });
    }

    expect(killed.size).toBeGreaterThanOrEqual(MIN_KILLS);
    const twice = (ids: Iterable<string>) => [...ids].filter((id) => runsFor(id).length > 1).length;
    const parentsCutShort = [...flows.keys()].filter((id) => earlierRuns(id).length > 0).length;
    console.info(
      `workflows: ${FLOWS} flows × (${FAN_OUT} + 1) = ${JOBS} jobs settled in ${loop.elapsedMs} ms ` +
        `with ${killed.size} SIGKILLs (at ${loop.killsAtMs.map((ms) => `${ms} ms`).join(', ')}); ` +
        `archive ${archived.length}, dlq ${dead.length}; runs ${runs.length} ` +
        `(${runs.length - runsOf.size} extra); children run again ${twice(childIds)}; ` +
        `parents killed mid-run ${parentsCutShort}, of which run again: ` +
        `retryZombies ${twice(retryParents)} of ${retryParents.length}, ` +
        `default ${twice(defaultParents)} of ${defaultParents.length}; ` +
        `default parents buried as Zombie ${deadParents.length}; ` +
        `lost runs refunded (lostAttempts) ${archived.reduce((sum, r) => sum + r.lost_attempts, 0)}; ` +
        `step functions called again ${[...stepsOf.values()].filter((c) => c.length > 1).length}`,
    );
  }, 240_000);
});
