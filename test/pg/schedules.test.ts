/**
 * Recurring jobs on PostgreSQL:
 * - three scheduler processes (test/fixtures/schedule-worker.mjs, over the built package in
 *   dist/) run one every-second schedule for 15 s: every tick from the first to the last has
 *   exactly one job, and every job one tick — also after the jobs were run and archived;
 *   (real time and real processes);
 * - a restart after downtime applies the missed-tick policy: `all` fills the gap, `skip` leaves
 *   it (one process, on a `FakeClock` that engine and store share).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger, type Schedule } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { FakeClock } from '../../src/util/clock.js';
import { withTimeout } from '../helpers/wait.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = join(ROOT, 'test/fixtures/schedule-worker.mjs');
const DIST_ENTRIES = ['dist/index.js', 'dist/storage/postgres/index.js'];

const PROCESSES = 3;
const RUN_MS = 15_000;
const READY_LIMIT_MS = 30_000;
/** Every child has exited by then, or it is killed. */
const EXIT_LIMIT_MS = RUN_MS + 30_000;

const pgUp = await postgresAvailable();

interface Child {
  index: number;
  child: ChildProcess;
  stderr: string;
  ready: Promise<void>;
  exited: Promise<number | null>;
}

function spawnChild(index: number, schema: string): Child {
  const child = spawn(process.execPath, [FIXTURE], {
    cwd: ROOT,
    env: {
      ...process.env,
      CHOKAQ_SCHED_URL: TEST_DATABASE_URL,
      CHOKAQ_SCHED_SCHEMA: schema,
      CHOKAQ_SCHED_RUN_MS: String(RUN_MS),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const spawned: Child = {
    index,
    child,
    stderr: '',
    ready: Promise.resolve(),
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  let stdout = '';
  spawned.ready = new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('READY\n')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`child ${index} exited (${code}) before READY: ${spawned.stderr}`)),
    );
  });
  spawned.ready.catch(() => undefined); // observed by the test
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    if (spawned.stderr.length < 20_000) spawned.stderr += chunk;
  });
  child.stdin?.on('error', () => undefined);
  return spawned;
}

/** Jobs of a schema (hot, archived, dead) made by schedule `name`: id and `createdBy`. */
async function scheduledJobs(
  db: pg.Client,
  schema: string,
  name: string,
): Promise<{ id: string; created_by: string }[]> {
  const like = `schedule:${name}@%`;
  const { rows } = await db.query<{ id: string; created_by: string }>(
    `select id, created_by from "${schema}".jobs_hot where created_by like $1
     union all select id, created_by from "${schema}".jobs_archive where created_by like $1
     union all select id, created_by from "${schema}".jobs_dlq where created_by like $1`,
    [like],
  );
  return rows;
}

/** The ticks of schedule `name`, by tick time. */
async function ticksOf(
  db: pg.Client,
  schema: string,
  name: string,
): Promise<{ tick_at: Date; job_id: string | null; outcome: string }[]> {
  const { rows } = await db.query<{ tick_at: Date; job_id: string | null; outcome: string }>(
    `select tick_at, job_id, outcome from "${schema}".schedule_ticks where schedule = $1
     order by tick_at`,
    [name],
  );
  return rows;
}

/** Seconds from the first to the last tick, each expected once. */
function everySecond(ticks: readonly { tick_at: Date }[]): string[] {
  const first = ticks[0]?.tick_at.getTime() ?? 0;
  const last = ticks.at(-1)?.tick_at.getTime() ?? 0;
  const out: string[] = [];
  for (let t = first; t <= last; t += 1000) out.push(new Date(t).toISOString());
  return out;
}

describe.skipIf(!pgUp)('PostgreSQL: schedules across processes and restarts', () => {
  const schemas: string[] = [];
  const children: Child[] = [];
  let db: pg.Client | undefined;
  const engines: ChokaQ[] = [];

  beforeAll(async () => {
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });

  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.stop().catch(() => undefined)));
  });

  afterAll(async () => {
    for (const c of children) {
      if (c.child.exitCode === null && c.child.signalCode === null) {
        c.child.kill('SIGKILL');
        await withTimeout(c.exited, 5000, `kill of child ${c.index}`).catch(() => undefined);
      }
    }
    await db?.end().catch(() => undefined);
    if (pgUp) for (const schema of schemas) await dropSchema(schema);
  }, 60_000);

  it(
    'three processes, one every-second schedule, 15 s: exactly one job per tick',
    { timeout: EXIT_LIMIT_MS + READY_LIMIT_MS + 10_000 },
    async () => {
      const missing = DIST_ENTRIES.filter((entry) => !existsSync(join(ROOT, entry)));
      if (missing.length > 0)
        throw new Error(`build first (npm run build): missing ${missing.join(', ')}`);
      const schema = uniqueSchema('sched_mp');
      schemas.push(schema);
      const store = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
      await store.open(); // creates and migrates the schema before the race
      await store.close();
      for (let i = 0; i < PROCESSES; i++) children.push(spawnChild(i, schema));
      await withTimeout(
        Promise.all(children.map((c) => c.ready)),
        READY_LIMIT_MS,
        'children ready',
      );
      for (const c of children) c.child.stdin?.write('GO\n');
      const codes = await withTimeout(
        Promise.all(children.map((c) => c.exited)),
        EXIT_LIMIT_MS,
        'children exit',
      );
      expect(codes, children.map((c) => c.stderr).join('\n')).toEqual([0, 0, 0]);

      const client = db as pg.Client;
      const ticks = await ticksOf(client, schema, 'every-second');
      const jobs = await scheduledJobs(client, schema, 'every-second');
      console.info(`schedules: ${PROCESSES} processes fired ${ticks.length} ticks in ${RUN_MS} ms`);
      // 15 s of every-second ticks, give or take the processes' start and stop.
      expect(ticks.length).toBeGreaterThanOrEqual(10);
      // Every second from the first tick to the last, once each, each with its job.
      expect(ticks.map((t) => t.tick_at.toISOString())).toEqual(everySecond(ticks));
      expect(ticks.every((t) => t.outcome === 'enqueued' && t.job_id !== null)).toBe(true);
      // Exactly one job per tick, and every job belongs to one tick.
      expect(jobs).toHaveLength(ticks.length);
      expect(jobs.map((j) => j.created_by).sort()).toEqual(
        ticks.map((t) => `schedule:every-second@${t.tick_at.toISOString()}`).sort(),
      );
      expect(jobs.map((j) => j.id).sort()).toEqual(ticks.map((t) => t.job_id).sort());
      // The jobs ran and were archived; their ticks stayed.
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from "${schema}".jobs_archive`,
      );
      expect(rows[0]?.n).toBeGreaterThan(0);
    },
  );

  /**
   * Runs an every-second schedule for 2 s, stops, lets 4 s pass, starts again for 2 s: the ticks,
   * the last tick before the stop and the store's now at the restart. Engines and store share a
   * `FakeClock`, so no second is waited for: each step moves the clock over one scheduler pass
   * and waits for that pass; `fires` is how many ticks have fired after each step.
   */
  async function restart(missed: 'all' | 'skip', fires: readonly number[]) {
    const schema = uniqueSchema(`sched_${missed}`);
    schemas.push(schema);
    const tick = defineJob({ type: 'sched.restart.v1', handle: () => undefined });
    const schedule: Schedule = {
      name: 'restart',
      job: tick,
      cron: '* * * * * *',
      missed,
      missedAfter: '1s',
    };
    // Half a second past a whole one: each step of a second makes one tick due, half a second
    // late (within missedAfter).
    const clock = new FakeClock(Math.ceil(Date.now() / 1000) * 1000 + 500);
    let fired = 0;
    const make = () => {
      const chokaq = new ChokaQ({
        storage: postgres({ connectionString: TEST_DATABASE_URL, schema, clock }),
        jobs: [tick],
        logger: silentLogger,
        schedules: [schedule],
        clock,
      });
      chokaq.on('schedule:fired', () => fired++);
      engines.push(chokaq);
      return chokaq;
    };
    const expected = [...fires];
    /** Moves the clock by `ms` over the scheduler's next pass and waits for that pass to end. */
    const step = async (chokaq: ChokaQ, ms: number): Promise<void> => {
      // The scheduler is the engine's own; its nextPass() is the hook LoopService keeps for tests.
      const { scheduler } = chokaq as unknown as { scheduler: { nextPass(): Promise<void> } };
      const passed = scheduler.nextPass();
      await clock.advanceAsync(ms);
      await withTimeout(passed, 10_000, `the scheduler pass at ${clock.now()}`);
      expect(fired).toBe(expected.shift());
    };
    const first = make();
    await first.start();
    for (const ms of [0, 1000, 1000]) await step(first, ms);
    await first.stop();
    const client = db as pg.Client;
    const before = await ticksOf(client, schema, 'restart');
    clock.advance(4000);
    const second = make();
    const restartAt = await second.storage.cluster.now();
    await second.start();
    for (const ms of [0, 1000, 1000]) await step(second, ms);
    await second.stop();
    return {
      ticks: await ticksOf(client, schema, 'restart'),
      lastBefore: before.at(-1),
      restartAt,
    };
  }

  it(
    "a restart after downtime with missed: 'all' fires every missed tick once",
    { timeout: 30_000 },
    async () => {
      // Two ticks, the four missed while down at the restart's first pass, then two more.
      const { ticks, lastBefore } = await restart('all', [0, 1, 2, 6, 7, 8]);
      expect(lastBefore).toBeDefined();
      expect(ticks.map((t) => t.tick_at.toISOString())).toEqual(everySecond(ticks));
      expect(ticks).toHaveLength(8);
    },
  );

  it(
    "a restart after downtime with missed: 'skip' fires none of the missed ticks",
    { timeout: 30_000 },
    async () => {
      // Two ticks; at the restart only the one missed by less than missedAfter, then two more.
      const { ticks, lastBefore, restartAt } = await restart('skip', [0, 1, 2, 3, 4, 5]);
      const gap = ticks.filter(
        (t) =>
          t.tick_at > (lastBefore?.tick_at ?? restartAt) &&
          t.tick_at.getTime() <= restartAt.getTime() - 1000,
      );
      expect(lastBefore).toBeDefined();
      expect(gap).toEqual([]);
      // It fires again after the restart.
      expect(ticks.filter((t) => t.tick_at > restartAt).length).toBeGreaterThanOrEqual(1);
    },
  );
});
