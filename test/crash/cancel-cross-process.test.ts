/**
 * Cancel across processes: a worker process (test/fixtures/crash-cancel-worker.mjs, heartbeat
 * 300 ms) runs long cooperative jobs that wait on ctx.signal; this process, a separate ChokaQ with
 * `worker: false` on the same schema, calls `cancel([id])`. The owner sees the persisted request
 * at its next heartbeat, aborts the run with cause `cancel`, and the job lands in the DLQ as
 * `Cancelled` — within about one heartbeat interval. Three jobs are cancelled one by one at
 * random moments (so the heartbeat phase varies), each by another actor, whose name must reach
 * the owner through its heartbeat and end up in the DLQ error, `lastModifiedBy` and the job's
 * timeline; a fourth job running next to them is left alone and must succeed.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger, type FoundJob } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { ROOT, killAll, requireDist, spawnNode, type Child } from '../fixtures/crash-process.js';

const WORKER = join(ROOT, 'test/fixtures/crash-cancel-worker.mjs');
const HEARTBEAT_MS = 300;
/** Cancel → DLQ must take less than this. */
const LATENCY_LIMIT_MS = 3000;
const CANCELLED = 3;
/** The job left alone finishes on its own after this long. */
const CONTROL_HOLD_MS = 4000;

const pgUp = await postgresAvailable();

describe.skipIf(!pgUp)('crash: cancel a job running in another process (PostgreSQL)', () => {
  const schema = uniqueSchema('crash_cx');
  const children: Child[] = [];
  let operator: ChokaQ | undefined;

  const job = defineJob<{ holdMs: number }>({
    type: 'crash.cancel.v1',
    queue: 'cancel',
    handle: () => undefined,
  });

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/storage/postgres/index.js']);
    operator = new ChokaQ({
      storage: postgres({
        connectionString: TEST_DATABASE_URL,
        schema,
        poolSize: 2,
        logger: silentLogger,
      }),
      jobs: [job],
      worker: false,
      logger: silentLogger,
    });
    await operator.start(); // worker: false — opens and migrates, runs nothing
  }, 60_000);

  afterAll(async () => {
    await killAll(children, 5000);
    await operator?.stop().catch(() => undefined);
    if (pgUp) await dropSchema(schema);
  }, 60_000);

  it('moves a running job to the DLQ as Cancelled within about one heartbeat', async () => {
    const chokaq = operator as ChokaQ;
    const targets: string[] = [];
    for (let i = 0; i < CANCELLED; i++) {
      targets.push((await chokaq.enqueue(job, { holdMs: 60_000 })).id);
    }
    const control = (await chokaq.enqueue(job, { holdMs: CONTROL_HOLD_MS })).id;

    const worker = spawnNode('cancel-worker', [WORKER], {
      CRASH_URL: TEST_DATABASE_URL,
      CRASH_SCHEMA: schema,
    });
    children.push(worker);
    await worker.waitForLine('READY', 30_000);
    for (const id of [...targets, control]) await worker.waitForLine(`RUNNING ${id}`, 10_000);

    const latencies: number[] = [];
    for (const [i, id] of targets.entries()) {
      const actor = `crash-test-${i}`;
      await sleep(Math.floor(Math.random() * HEARTBEAT_MS)); // vary the heartbeat phase
      // Running, and its start recorded (with the worker's next settle round, behind the run).
      await expect
        .poll(async () => {
          const found = await chokaq.getJob(id);
          return found?.where === 'hot' && found.job.state;
        })
        .toBe('processing');
      const startedMs = Date.now();
      const result = await chokaq.cancel([id], { actor });
      expect(result).toEqual({ cancelled: [], requested: [id] });
      let final: FoundJob | null = null;
      while (Date.now() - startedMs < LATENCY_LIMIT_MS + 2000) {
        final = await chokaq.getJob(id);
        if (final?.where !== 'hot') break;
        await sleep(10);
      }
      const latencyMs = Date.now() - startedMs;
      latencies.push(latencyMs);
      expect(final?.where, `job ${id} after ${latencyMs} ms`).toBe('dlq');
      if (final?.where === 'dlq') {
        expect(final.job.reason).toBe('Cancelled');
        expect(final.job.attempts).toBe(1);
        // The requester's actor crossed the process boundary with the request.
        expect(final.job.errorDetails).toBe(`Cancelled by ${actor} while running`);
        expect(final.job.lastModifiedBy).toBe(actor);
      }
      const detail = await chokaq.jobs.get(id);
      expect(detail?.timeline.filter((e) => e.kind === 'cancel-requested')).toEqual([
        expect.objectContaining({ actor }),
      ]);
      expect(latencyMs).toBeLessThan(LATENCY_LIMIT_MS);
      // The handler itself saw the abort, with cause `cancel`.
      const aborted = await worker.waitForLine(`ABORTED ${id} `, 5000);
      const reason = JSON.parse(aborted.slice(`ABORTED ${id} `.length)) as {
        why?: string;
        message?: string;
      };
      expect(reason.why).toBe('cancel');
      expect(reason.message).toBe(`Cancelled by ${actor} while running`);
    }

    // The job nobody cancelled kept running and succeeded.
    await worker.waitForLine(`DONE ${control}`, CONTROL_HOLD_MS + 5000);
    let controlFinal: FoundJob | null = null;
    for (let i = 0; i < 100; i++) {
      controlFinal = await chokaq.getJob(control);
      if (controlFinal?.where !== 'hot') break;
      await sleep(50);
    }
    expect(controlFinal?.where).toBe('archive');

    const dead = await chokaq.dlq.list({ queue: 'cancel' });
    expect(dead.map((d) => d.id).sort()).toEqual([...targets].sort());
    expect(dead.every((d) => d.reason === 'Cancelled')).toBe(true);

    await killAll([worker], 10_000);
    expect(await worker.exited, worker.stderr).toEqual({ code: 0, signal: null });
    console.info(
      `cancel-cross-process: cancel → DLQ latencies ${latencies.join(', ')} ms ` +
        `(heartbeat ${HEARTBEAT_MS} ms ±20 %, limit ${LATENCY_LIMIT_MS} ms)`,
    );
  }, 90_000);
});
