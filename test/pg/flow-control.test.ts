/**
 * Flow control across processes on PostgreSQL (issue 13). Four worker processes of concurrency
 * 10 (test/fixtures/flow-worker.mjs, from the built dist/):
 * - 50 keys with a limit of 2 each (key i has 2 + i jobs): never more than 2 runs of one key at a time (from the
 *   handlers' own start and end times, and from fetched + processing rows sampled in the
 *   database), every job done once;
 * - one key with 10,000 jobs, then 20 keys with one job each, enqueued while it drains: every
 *   single job starts before more than `workers × concurrency` further jobs of the big key
 *   start (the claims that were already in flight), the bound docs/flow-control.md gives;
 * - a rate limit of 20 starts a second: over 10 s after the bucket's first second, the starts of
 *   all processes together are 200 ± 10 %.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { maxOverlapPerKey, runFlowWorkers, type FlowRun } from '../helpers/flow-workers.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';

const WORKERS = 4;
const CONCURRENCY = 10;
const KEYS = 50;
const LIMIT = 2;
const BIG = 10_000;
const SINGLES = 20;
const RATE = 20;
const RATED_JOBS = 300;
/** The window the rate is measured over, in ms, after the bucket's first second (its burst). */
const RATE_WINDOW_MS = 10_000;
const SAMPLE_EVERY_MS = 20;
const RUN_LIMIT_MS = 150_000;

const pgUp = await postgresAvailable();

type Payload = { key: string };
const keyed = defineJob<Payload>({
  type: 'flow.keyed.v1',
  queue: 'flow',
  concurrencyKey: (p) => p.key,
  concurrencyLimit: LIMIT,
  handle: () => undefined,
});
const rated = defineJob<Payload>({
  type: 'flow.rated.v1',
  queue: 'rated',
  rateLimit: { limit: RATE, per: '1s' },
  handle: () => undefined,
});
const fair = defineJob<Payload>({
  type: 'flow.fair.v1',
  queue: 'fair',
  concurrencyKey: (p) => p.key,
  handle: () => undefined,
});

/** Every worker exited 0 having drained; returns all runs. */
function allRuns(results: Awaited<ReturnType<typeof runFlowWorkers>>): FlowRun[] {
  for (const result of results) {
    expect({ code: result.code, drained: result.drained }, result.stderr).toEqual({
      code: 0,
      drained: true,
    });
  }
  return results.flatMap((result) => result.runs);
}

describe.skipIf(!pgUp)('PostgreSQL: flow control across 4 worker processes', () => {
  const schema = uniqueSchema('flow');
  let dir = '';
  let producer: ChokaQ | undefined;
  let db: pg.Client | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chokaq-flow-'));
    producer = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      jobs: [keyed, fair, rated],
      worker: false,
      logger: silentLogger,
    });
    await producer.storage.open();
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await producer?.stop().catch(() => undefined);
    if (pgUp) await dropSchema(schema);
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('never runs more than 2 jobs of one key at a time, and runs every job once', async () => {
    const chokaq = producer as ChokaQ;
    const client = db as pg.Client;
    // Key i has 2 + i jobs: near the end few keys have work left, and the limit must hold them.
    const payloads = Array.from({ length: KEYS }, (_, i) =>
      Array.from({ length: 2 + i }, () => ({ payload: { key: `tenant-${i}` } })),
    ).flat();
    const made = await chokaq.enqueueMany(keyed, payloads);
    const sampleSql = `select coalesce(max(n), 0)::int as n from (select count(*) as n
      from "${schema}".jobs_hot where queue = 'flow' and status in (1, 2)
      group by concurrency_key) k`;
    let sampledMax = 0;
    let samples = 0;
    const results = await runFlowWorkers(WORKERS, schema, dir, async (running) => {
      const deadline = Date.now() + RUN_LIMIT_MS;
      while (running() && Date.now() < deadline) {
        const { rows } = await client.query<{ n: number }>(sampleSql);
        sampledMax = Math.max(sampledMax, rows[0]?.n ?? 0);
        samples += 1;
        await sleep(SAMPLE_EVERY_MS);
      }
    });
    const runs = allRuns(results);
    const overlaps = maxOverlapPerKey(runs);
    const worst = Math.max(...overlaps.values());
    console.info(
      `flow-control keys: ${runs.length} runs, most runs of one key at once ${worst}, ` +
        `most in flight sampled ${sampledMax} (${samples} samples)`,
    );
    expect(new Set(runs.map(([id]) => id)).size).toBe(made.length);
    expect(runs).toHaveLength(made.length);
    expect(overlaps.size).toBe(KEYS);
    expect(worst).toBeLessThanOrEqual(LIMIT);
    expect(sampledMax).toBeLessThanOrEqual(LIMIT);
    // The limit was reached, so a breach would have shown.
    expect(worst).toBe(LIMIT);
  }, 200_000);

  it('starts each single-job key within the bound while one key drains 10,000 jobs', async () => {
    const chokaq = producer as ChokaQ;
    const client = db as pg.Client;
    for (let start = 0; start < BIG; start += 2000) {
      await chokaq.enqueueMany(
        fair,
        Array.from({ length: 2000 }, () => ({ payload: { key: 'big' } })),
      );
    }
    let enqueuedAt = 0;
    const archivedSql = `select count(*)::int as n from "${schema}".jobs_archive where queue = 'fair'`;
    const results = await runFlowWorkers(WORKERS, schema, dir, async (running) => {
      // Once the big key is well under way, the single jobs arrive.
      const deadline = Date.now() + RUN_LIMIT_MS;
      while (running() && Date.now() < deadline) {
        const { rows } = await client.query<{ n: number }>(archivedSql);
        if ((rows[0]?.n ?? 0) >= 500) break;
        await sleep(SAMPLE_EVERY_MS);
      }
      await chokaq.enqueueMany(
        fair,
        Array.from({ length: SINGLES }, (_, n) => ({ payload: { key: `single-${n}` } })),
      );
      enqueuedAt = Date.now();
      while (running() && Date.now() < deadline) await sleep(100);
    });
    const runs = allRuns(results);
    expect(runs).toHaveLength(BIG + SINGLES);
    const singles = runs.filter(([, key]) => key !== 'big');
    expect(singles).toHaveLength(SINGLES);
    const lastSingle = Math.max(...singles.map(([, , start]) => start));
    const bigBetween = runs.filter(
      ([, key, start]) => key === 'big' && start > enqueuedAt && start < lastSingle,
    ).length;
    const bigAfter = runs.filter(([, key, start]) => key === 'big' && start >= lastSingle).length;
    console.info(
      `flow-control fairness: last single job started ${lastSingle - enqueuedAt} ms after the ` +
        `enqueue; ${bigBetween} jobs of the big key started in between, ${bigAfter} after`,
    );
    // The claims in flight when the single jobs committed (one per process), and, since starts are
    // timed in four processes, at most one more claim per process: the big key's jobs claimed
    // after every single job was claimed, started before the last single's process started it.
    expect(bigBetween).toBeLessThanOrEqual(2 * WORKERS * CONCURRENCY);
    // The big key was still draining, so waiting for its backlog would have shown.
    expect(bigAfter).toBeGreaterThan(1000);
  }, 200_000);

  it('holds a rate of 20 starts a second across the processes, within 10 % over 10 s', async () => {
    const chokaq = producer as ChokaQ;
    await chokaq.enqueueMany(
      rated,
      Array.from({ length: RATED_JOBS }, () => ({ payload: { key: 'rated' } })),
    );
    const results = await runFlowWorkers(WORKERS, schema, dir, async (running) => {
      const deadline = Date.now() + RUN_LIMIT_MS;
      while (running() && Date.now() < deadline) await sleep(100);
    });
    const starts = allRuns(results)
      .map(([, , start]) => start)
      .sort((a, b) => a - b);
    expect(starts).toHaveLength(RATED_JOBS);
    // The bucket starts full (a burst of 20), then refills at 20 a second.
    const from = (starts[0] ?? 0) + 1000;
    const inWindow = starts.filter((at) => at >= from && at < from + RATE_WINDOW_MS).length;
    const expected = (RATE * RATE_WINDOW_MS) / 1000;
    const [bucket] = await chokaq.storage.rateLimits.list(1);
    console.info(
      `flow-control rate: ${inWindow} starts in ${RATE_WINDOW_MS} ms (expected ${expected}); ` +
        `first second ${starts.filter((at) => at < from).length}; bucket ${JSON.stringify(bucket)}`,
    );
    expect(inWindow).toBeGreaterThanOrEqual(expected * 0.9);
    expect(inWindow).toBeLessThanOrEqual(expected * 1.1);
    expect(bucket).toMatchObject({ name: 'flow.rated.v1', limit: RATE, perMs: 1000 });
  }, 200_000);
});
