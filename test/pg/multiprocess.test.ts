/**
 * Three worker processes drain 20,300 jobs from one PostgreSQL schema: no job runs twice, every
 * job ends in the archive, and a queue capped at maxWorkers 3 never has more than 3 fetched +
 * processing rows, sampled every ~20 ms while the workers run.
 *
 * The workers (test/fixtures/drain-worker.mjs) import the built package from dist/; `npm test`
 * builds it first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { withTimeout } from '../helpers/wait.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = join(ROOT, 'test/fixtures/drain-worker.mjs');
const DIST_ENTRIES = ['dist/index.js', 'dist/storage/postgres/index.js'];

const WORKERS = 3;
const NOOP_JOBS = 20_000;
const CAPPED_JOBS = 300;
const TOTAL = NOOP_JOBS + CAPPED_JOBS;
const CAP = 3;
const CHUNK = 1000;
/** Every wait in this file ends by this long after the workers were told to go. */
const RUN_LIMIT_MS = 150_000;
const READY_LIMIT_MS = 30_000;
const SAMPLE_EVERY_MS = 20;

const pgUp = await postgresAvailable();

/** What one worker process left behind. */
interface WorkerResult {
  index: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  ids: string[];
  drained: boolean;
}

interface RunningWorker {
  index: number;
  child: ChildProcess;
  out: string;
  stdout: string;
  stderr: string;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnWorker(index: number, schema: string, dir: string): RunningWorker {
  const out = join(dir, `worker-${index}.json`);
  const child = spawn(process.execPath, [FIXTURE], {
    cwd: ROOT,
    env: {
      ...process.env,
      CHOKAQ_MP_URL: TEST_DATABASE_URL,
      CHOKAQ_MP_SCHEMA: schema,
      CHOKAQ_MP_OUT: out,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const worker: RunningWorker = {
    index,
    child,
    out,
    stdout: '',
    stderr: '',
    ready: Promise.resolve(),
    exited: new Promise((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
    }),
  };
  worker.ready = new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      worker.stdout += chunk;
      if (worker.stdout.includes('READY\n')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`worker ${index} exited (${code}) before READY: ${worker.stderr}`)),
    );
  });
  worker.ready.catch(() => undefined); // observed by the test; avoid an unhandled rejection
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    if (worker.stderr.length < 20_000) worker.stderr += chunk;
  });
  child.stdin?.on('error', () => undefined); // a worker that died must not fail the writer
  return worker;
}

describe.skipIf(!pgUp)('PostgreSQL: three worker processes drain 20,300 jobs', () => {
  const schema = uniqueSchema('mp');
  let dir = '';
  const workers: RunningWorker[] = [];
  let producer: ChokaQ | undefined;
  let sampler: pg.Client | undefined;

  beforeAll(async () => {
    const missing = DIST_ENTRIES.filter((entry) => !existsSync(join(ROOT, entry)));
    if (missing.length > 0) {
      throw new Error(`build first (npm run build): missing ${missing.join(', ')}`);
    }
    dir = mkdtempSync(join(tmpdir(), 'chokaq-mp-'));
    const noop = defineJob<{ n: number }>({
      type: 'mp.noop.v1',
      queue: 'mp',
      handle: () => undefined,
    });
    const capped = defineJob<{ n: number }>({
      type: 'mp.capped.v1',
      queue: 'capped',
      handle: () => undefined,
    });
    producer = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      jobs: [noop, capped],
      worker: false,
      logger: silentLogger,
    });
    await producer.storage.open(); // creates and migrates the schema
    await producer.queues.setMaxWorkers('capped', CAP);
    // The capped jobs go first: their earlier run_at puts them at the head of every claim, so the
    // three workers keep competing for the capped queue's room while the big queue drains.
    await producer.enqueueMany(
      capped,
      Array.from({ length: CAPPED_JOBS }, (_, n) => ({ payload: { n } })),
    );
    for (let start = 0; start < NOOP_JOBS; start += CHUNK) {
      const size = Math.min(CHUNK, NOOP_JOBS - start);
      await producer.enqueueMany(
        noop,
        Array.from({ length: size }, (_, i) => ({ payload: { n: start + i } })),
      );
    }
    sampler = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await sampler.connect();
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers) {
      if (worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill('SIGKILL');
        await withTimeout(worker.exited, 5000, `kill of worker ${worker.index}`).catch(
          () => undefined,
        );
      }
    }
    await sampler?.end().catch(() => undefined);
    await producer?.stop().catch(() => undefined);
    if (pgUp) await dropSchema(schema);
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs every job exactly once and never exceeds the maxWorkers cap', async () => {
    const db = sampler as pg.Client;
    const chokaq = producer as ChokaQ;
    const [hotBefore] = (
      await db.query<{ n: number }>(`select count(*)::int as n from "${schema}".jobs_hot`)
    ).rows;
    expect(hotBefore?.n).toBe(TOTAL);

    for (let index = 0; index < WORKERS; index++) workers.push(spawnWorker(index, schema, dir));
    await withTimeout(
      Promise.all(workers.map((w) => w.ready)),
      READY_LIMIT_MS,
      'workers getting ready',
    );
    const startedAt = Date.now();
    for (const worker of workers) worker.child.stdin?.write('GO\n');

    let running = WORKERS;
    const allExited = Promise.all(
      workers.map((w) =>
        w.exited.then((status) => {
          running -= 1;
          return status;
        }),
      ),
    );

    // Sample the capped queue's in-flight rows until every worker has exited.
    const activeSql = `select count(*)::int as n from "${schema}".jobs_hot where queue = 'capped' and status in (1, 2)`;
    let maxActive = 0;
    let samples = 0;
    let samplesAtCap = 0;
    while (running > 0 && Date.now() - startedAt < RUN_LIMIT_MS) {
      const { rows } = await db.query<{ n: number }>(activeSql);
      const active = rows[0]?.n ?? 0;
      maxActive = Math.max(maxActive, active);
      samples += 1;
      if (active === CAP) samplesAtCap += 1;
      await sleep(SAMPLE_EVERY_MS);
    }
    const statuses = await withTimeout(allExited, 10_000, 'worker exit');
    const elapsedMs = Date.now() - startedAt;

    const results: WorkerResult[] = workers.map((worker, index) => {
      const status = statuses[index] ?? { code: null, signal: null };
      const report = existsSync(worker.out)
        ? (JSON.parse(readFileSync(worker.out, 'utf8')) as { ids: string[]; drained: boolean })
        : { ids: [], drained: false };
      return { index, ...status, stderr: worker.stderr, ids: report.ids, drained: report.drained };
    });
    console.info(
      `multiprocess: drained ${TOTAL} jobs in ${elapsedMs} ms; per worker ` +
        `${results.map((r) => r.ids.length).join('/')}; capped in flight max ${maxActive} ` +
        `(${samplesAtCap} of ${samples} samples at the cap)`,
    );

    for (const result of results) {
      expect(
        { index: result.index, code: result.code, signal: result.signal, drained: result.drained },
        result.stderr,
      ).toEqual({ index: result.index, code: 0, signal: null, drained: true });
    }

    // Zero double executions: every run of every worker is a distinct job, and every job ran.
    const all = results.flatMap((r) => r.ids);
    const unique = new Set(all);
    expect(unique.size).toBe(TOTAL);
    expect(all.length).toBe(unique.size);
    for (const result of results) expect(result.ids.length).toBeGreaterThan(0);

    const count = async (sql: string): Promise<number> =>
      (await db.query<{ n: number }>(sql)).rows[0]?.n ?? -1;
    expect(await count(`select count(*)::int as n from "${schema}".jobs_archive`)).toBe(TOTAL);
    expect(await count(`select count(*)::int as n from "${schema}".jobs_hot`)).toBe(0);
    expect(await count(`select count(*)::int as n from "${schema}".jobs_dlq`)).toBe(0);
    expect(
      await count(`select count(*)::int as n from "${schema}".jobs_archive where queue = 'capped'`),
    ).toBe(CAPPED_JOBS);
    // Each archived job ran once: one attempt, no retry.
    expect(
      await count(`select count(*)::int as n from "${schema}".jobs_archive where attempts <> 1`),
    ).toBe(0);
    const archivedIds = await db.query<{ id: string }>(`select id from "${schema}".jobs_archive`);
    expect(archivedIds.rows.filter((r) => !unique.has(r.id))).toEqual([]);

    expect(await chokaq.dlq.list()).toEqual([]);
    const stats = await chokaq.queues.stats();
    const succeeded = stats.reduce((sum, s) => sum + s.succeededTotal, 0);
    expect(succeeded).toBe(TOTAL);
    expect(stats.reduce((sum, s) => sum + s.failedTotal + s.retriedTotal, 0)).toBe(0);

    // The cap held, and the sampler saw the queue at (or near) it, so a breach would have shown.
    expect(maxActive).toBeLessThanOrEqual(CAP);
    expect(maxActive).toBeGreaterThanOrEqual(2);
  }, 180_000);
});
