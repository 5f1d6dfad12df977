/**
 * Batches under SIGKILL with real processes: 100 batches of 40 members (4,000 jobs), each with an
 * onSuccess, an onComplete and an onDeath callback, drained from PostgreSQL by three worker
 * processes while the test SIGKILLs a random one every 1–3 s and starts a replacement. In every
 * third batch two members fail for good (FatalError). Members and callbacks opt in to
 * `retryZombies`, so a run cut short by a kill runs again and every job ends.
 *
 * Each handler call appends a line to its process's file with a synchronous write as it is called
 * (test/fixtures/crash-batch-worker.mjs); a callback appends what `ctx.batch()` said. The test
 * checks that every batch counted each member once, that each callback that was due fired once
 * (its job archived once, every earlier run in a killed process) with the right counts and after
 * the members it waited for, that the callbacks that were not due never ran, and that every
 * member ended once. A process that was never killed may have a run come back only for a job
 * whose lease it was told it lost (it stalled past `zombieTimeout` on a loaded machine;
 * test/fixtures/lease-losses.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger, type JobDefinition } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { ROOT, killAll, requireDist, spawnNode, type Child } from '../fixtures/crash-process.js';
import { killWhileDraining, tableCounts } from '../fixtures/kill-loop.js';
import { cutShort, markFiles, readLeaseLosses } from '../fixtures/lease-losses.js';

const WORKER = join(ROOT, 'test/fixtures/crash-batch-worker.mjs');
const BATCHES = 100;
const MEMBERS = 40;
/** Members of a failing batch that die (every third batch fails). */
const FAILING = 2;
/** Batches become due over this span, so there is always work in flight when a kill lands. */
const SPREAD_MS = 12_000;
const WORKERS = 3;
const MIN_KILLS = 3;
const MAX_KILLS = 40;
const RUN_LIMIT_MS = 150_000;
const KINDS = ['success', 'complete', 'death'] as const;

const pgUp = await postgresAvailable();

/** A definition that only names a type of the fixture, for enqueueing. */
function stub<P>(type: string, queue: string): JobDefinition<P> {
  return defineJob<P>({ type, queue, handle: () => undefined });
}

/** One handler call. */
interface RunMark {
  at: number;
  jobId: string;
  pid: number;
}

/** What a callback run read of its batch. */
interface BatchMark {
  jobId: string;
  role: string;
  batchId: string;
  total: number;
  succeeded: number;
  died: number;
  cancelled: number;
}

/** Every mark the workers wrote to `dir`: runs per job (oldest first), and batch reads. */
function readMarks(dir: string): { runsOf: Map<string, RunMark[]>; reads: BatchMark[] } {
  const runsOf = new Map<string, RunMark[]>();
  const reads: BatchMark[] = [];
  const lines = markFiles(dir).flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n'));
  for (const line of lines) {
    if (line === '') continue;
    const [tag, ...f] = line.split(' ');
    if (tag === 'run' && f.length === 5) {
      const run = { at: Number(f[0]), jobId: f[1]!, pid: Number(f[3]) };
      runsOf.set(run.jobId, [...(runsOf.get(run.jobId) ?? []), run]);
    } else if (tag === 'batch' && f.length === 9) {
      reads.push({
        jobId: f[1]!,
        role: f[3]!,
        batchId: f[4]!,
        total: Number(f[5]),
        succeeded: Number(f[6]),
        died: Number(f[7]),
        cancelled: Number(f[8]),
      });
    } else {
      throw new Error(`unknown mark: ${line}`);
    }
  }
  for (const runs of runsOf.values()) runs.sort((a, b) => a.at - b.at);
  return { runsOf, reads };
}

/** One batch as the producer wrote it. */
interface WrittenBatch {
  members: string[];
  failing: boolean;
  callbacks: Record<(typeof KINDS)[number], string>;
}

describe.skipIf(!pgUp)('crash: SIGKILL of workers draining batches (PostgreSQL)', () => {
  const schema = uniqueSchema('crash_bt');
  const children: Child[] = [];
  let producer: ChokaQ | undefined;
  let db: pg.Client | undefined;
  const batches = new Map<string, WrittenBatch>();
  const runsDir = mkdtempSync(join(tmpdir(), 'chokaq-bt-runs-'));

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/storage/postgres/index.js']);
    const member = stub<{ batch: number; i: number; fail: boolean }>(
      'crash.bt.member.v1',
      'bt.members',
    );
    const callback = stub<{ batch: number }>('crash.bt.callback.v1', 'bt.callbacks');
    producer = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      jobs: [member, callback],
      worker: false,
      logger: silentLogger,
    });
    await producer.storage.open(); // creates and migrates the schema
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    for (let b = 0; b < BATCHES; b++) {
      const delay = Math.floor((b * SPREAD_MS) / BATCHES);
      const failing = b % 3 === 0;
      const result = await producer.enqueueBatch((batch) => {
        for (let i = 0; i < MEMBERS; i++) {
          batch.add(member, { batch: b, i, fail: failing && i < FAILING }, { delay });
        }
        batch.onSuccess(callback, { batch: b });
        batch.onComplete(callback, { batch: b });
        batch.onDeath(callback, { batch: b });
      });
      const { success = '', complete = '', death = '' } = result.callbacks;
      batches.set(result.id, {
        members: result.jobs.map((j) => j.id),
        failing,
        callbacks: { success, complete, death },
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

  it('fires each due callback once, with the counts, after its members; counts every member once', async () => {
    const client = db as pg.Client;
    const written = [...batches.values()];
    const failingBatches = written.filter((b) => b.failing).length;
    const members = BATCHES * MEMBERS;
    const dead = failingBatches * FAILING;
    // Two callbacks fire per batch (success or death, and complete); the third stays awaiting.
    const fired = 2 * BATCHES;
    const count = () => tableCounts(client, schema);

    let serial = 0;
    const loop = await killWhileDraining({
      spawn: () => {
        const child = spawnNode(`bt-worker-${serial++}`, [WORKER], {
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
        return now.hot === BATCHES && now.archive + now.dlq === members + fired;
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

    const q = async <R extends pg.QueryResultRow>(sql: string): Promise<R[]> =>
      (await client.query<R>(sql)).rows;
    const archived = new Map(
      (
        await q<{ id: string; attempts: number; finished_at: Date }>(
          `SELECT id, attempts, finished_at FROM "${schema}".jobs_archive`,
        )
      ).map((r) => [r.id, r]),
    );
    const inDlq = new Map(
      (
        await q<{ id: string; failure_reason: number; failed_at: Date }>(
          `SELECT id, failure_reason, failed_at FROM "${schema}".jobs_dlq`,
        )
      ).map((r) => [r.id, r]),
    );
    const hot = await q<{ id: string; status: number }>(
      `SELECT id, status FROM "${schema}".jobs_hot`,
    );
    const rows = new Map(
      (
        await q<{
          id: string;
          total: number;
          succeeded: number;
          died: number;
          cancelled: number;
          success_fired_at: Date | null;
          complete_fired_at: Date | null;
          death_fired_at: Date | null;
        }>(`SELECT * FROM "${schema}".batches`)
      ).map((r) => [r.id, r]),
    );
    const { runsOf, reads } = readMarks(runsDir);
    const runsFor = (id: string): RunMark[] => runsOf.get(id) ?? [];
    const explained = cutShort(killed, readLeaseLosses(runsDir));
    const endOf = (id: string): number =>
      (archived.get(id)?.finished_at ?? inDlq.get(id)?.failed_at ?? new Date(8.64e15)).getTime();

    expect(inDlq.size).toBe(dead);
    // The callbacks not due stay awaiting, and never ran.
    expect(hot.every((row) => row.status === 4)).toBe(true);
    const unfired = new Set(hot.map((row) => row.id));
    expect([...unfired].filter((id) => runsFor(id).length > 0)).toEqual([]);

    const problems: string[] = [];
    for (const [id, batch] of batches) {
      const row = rows.get(id);
      const died = batch.failing ? FAILING : 0;
      // Each member counted once: archived or dead, never both, and the counts agree.
      for (const member of batch.members) {
        if (archived.has(member) === inDlq.has(member)) problems.push(`${member}: not ended once`);
      }
      expect(row, id).toMatchObject({
        total: MEMBERS,
        succeeded: MEMBERS - died,
        died,
        cancelled: 0,
      });
      const due = { success: !batch.failing, complete: true, death: batch.failing };
      const lastMemberEnd = Math.max(...batch.members.map(endOf));
      for (const kind of KINDS) {
        const jobId = batch.callbacks[kind];
        const stamped = row?.[`${kind}_fired_at`] !== null;
        if (stamped !== due[kind]) problems.push(`${id} ${kind}: fired ${stamped}`);
        if (!due[kind]) {
          if (!unfired.has(jobId)) problems.push(`${id} ${kind}: not awaiting`);
          continue;
        }
        // Fired once: archived once (the primary key), one attempt counted; every earlier run
        // was in a process that was killed (or told it lost the job's lease).
        const ended = archived.get(jobId);
        if (ended === undefined || ended.attempts !== 1) {
          problems.push(`${id} ${kind}: not archived once (${JSON.stringify(ended)})`);
        }
        const runs = runsFor(jobId);
        if (runs.length === 0) problems.push(`${id} ${kind}: never ran`);
        for (const run of runs.slice(0, -1)) {
          if (!explained(run.pid, jobId))
            problems.push(`${id} ${kind}: ran again, pid ${run.pid} alive`);
        }
        // success and complete ran only after every member ended (clock marks, 1 ms of slack).
        const first = runs[0];
        if (kind !== 'death' && first !== undefined && first.at + 1 < lastMemberEnd) {
          problems.push(`${id} ${kind}: ran at ${first.at}, before a member ended`);
        }
        // What it read of its batch: its role and id, and the counts that made it due.
        const read = reads.filter((r) => r.jobId === jobId).at(-1);
        if (read === undefined) {
          problems.push(`${id} ${kind}: read no batch`);
          continue;
        }
        const counts = read.role === kind && read.batchId === id && read.total === MEMBERS;
        const enough =
          kind === 'success'
            ? read.succeeded === MEMBERS
            : kind === 'complete'
              ? read.succeeded + read.died === MEMBERS && read.died === died
              : read.died >= 1;
        if (!counts || !enough) problems.push(`${id} ${kind}: read ${JSON.stringify(read)}`);
      }
    }
    expect(problems).toEqual([]);

    expect(killed.size).toBeGreaterThanOrEqual(MIN_KILLS);
    const callbacks = written.flatMap((b) => KINDS.map((kind) => b.callbacks[kind]));
    const rerunCallbacks = callbacks.filter((id) => runsFor(id).length > 1).length;
    const rerunMembers = written.flatMap((b) => b.members).filter((id) => runsFor(id).length > 1);
    console.info(
      `batches: ${BATCHES} batches × ${MEMBERS} members + ${fired} fired callbacks settled in ` +
        `${loop.elapsedMs} ms with ${killed.size} SIGKILLs (at ${loop.killsAtMs
          .map((ms) => `${ms} ms`)
          .join(', ')}); members run again ${rerunMembers.length}, callbacks run again ` +
        `${rerunCallbacks}; dead members ${inDlq.size}; callbacks never due ${unfired.size}`,
    );
  }, 240_000);
});
