/**
 * Crash proof of bulk actions with real processes: a child process confirms a bulk resurrect of
 * 20,000 DLQ jobs and runs it on its own worker; the test SIGKILLs it in the middle of the run.
 * Another process's worker must then finish the action (the run job comes back through zombie
 * rescue) with every job moved exactly once: none left in the DLQ, none twice in the hot table,
 * counters equal to the snapshot.
 *
 * The child (test/fixtures/crash-bulk-runner.mjs) imports the built package from dist/.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, silentLogger, type BulkAction } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';
import { ROOT, killAll, requireDist, spawnNode, type Child } from '../fixtures/crash-process.js';

const RUNNER = join(ROOT, 'test/fixtures/crash-bulk-runner.mjs');
const JOBS = 20_000;
const CHUNK = 10_000;

const pgUp = await postgresAvailable();

describe.skipIf(!pgUp)('crash: SIGKILL of the process running a bulk action (PostgreSQL)', () => {
  const schema = uniqueSchema('crash_bulk');
  const children: Child[] = [];
  const engines: ChokaQ[] = [];

  /** An engine on the test schema; its worker serves only the operator queue. */
  function engine(options: { worker: boolean }): ChokaQ {
    const chokaq = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      pipe: () => undefined,
      workerQueues: ['none'],
      pollInterval: 50,
      heartbeatInterval: 200,
      zombieTimeout: '1500ms',
      // A kill right after the run began finds its start not yet recorded: a stale claim.
      fetchedTimeout: '1500ms',
      rescueInterval: 300,
      logger: silentLogger,
      ...options,
    });
    engines.push(chokaq);
    return chokaq;
  }

  beforeAll(() => {
    requireDist(['dist/index.js', 'dist/storage/postgres/index.js']);
  });

  afterAll(async () => {
    await killAll(children);
    await Promise.all(engines.map((e) => e.stop().catch(() => undefined)));
    if (pgUp) await dropSchema(schema);
  }, 60_000);

  it('finishes the action in another process, moving every job exactly once', async () => {
    const operator = engine({ worker: false });
    const ids: string[] = [];
    for (let start = 0; start < JOBS; start += CHUNK) {
      const items = Array.from({ length: CHUNK }, (_, i) => ({
        payload: { n: start + i },
        queue: 'parked',
        delay: '1h' as const,
      }));
      const created = await operator.enqueueMany('crash.bulk.v1', items);
      ids.push(...created.map((r) => r.id));
    }
    for (let start = 0; start < JOBS; start += CHUNK) {
      await operator.cancel(ids.slice(start, start + CHUNK), { actor: 'setup' });
    }
    const preview = await operator.bulk.preview({
      action: 'resurrect',
      target: { query: { type: 'crash.bulk.v1' } },
    });
    expect(preview.count).toBe(JOBS);

    const child = spawnNode('bulk-runner', [RUNNER], {
      CRASH_URL: TEST_DATABASE_URL,
      CRASH_SCHEMA: schema,
      BULK_TOKEN: preview.token,
    });
    children.push(child);
    await child.waitForLine('RUNNING', 30_000);
    const before = await waitFor(
      async () => {
        const action = await operator.bulk.get(preview.id);
        return action && action.done >= 1000 ? action : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 10, message: 'the first batches' },
    );
    child.process.kill('SIGKILL');
    await child.exited;
    const atKill = (await operator.bulk.get(preview.id)) as BulkAction;
    expect(atKill.status, 'the action must still be running when the kill lands').toBe('running');
    expect(atKill.done).toBeGreaterThanOrEqual(before.done);
    expect(atKill.done).toBeLessThan(JOBS);

    // Another process's worker takes over once the run's heartbeats have stopped.
    const rescuer = engine({ worker: true });
    await rescuer.start();
    const done = await waitFor(
      async () => {
        const action = await rescuer.bulk.get(preview.id);
        return action?.status === 'succeeded' ? action : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: 'the action to finish after the kill' },
    );
    expect(done).toMatchObject({ total: JOBS, done: JOBS, applied: JOBS, skipped: 0 });
    const parked = (await rescuer.queues.stats()).find((s) => s.queue === 'parked');
    expect(parked).toMatchObject({ pending: JOBS, dead: 0 });
    const runJob = await rescuer.jobs.query({ type: 'chokaq.bulk.v1', state: 'succeeded' });
    expect(runJob.jobs).toHaveLength(1);
    const detail = await rescuer.jobs.get(runJob.jobs[0]?.id ?? '');
    const outcomes = detail?.timeline.flatMap((e) => (e.kind === 'run' ? [e.outcome] : []));
    expect(outcomes?.at(-1)).toBe('succeeded');
    // The killed run is in the timeline as a zombie when its start had been recorded; a run killed
    // before that came back as a stale claim and left no entry.
    expect(outcomes?.slice(0, -1).every((outcome) => outcome === 'zombie')).toBe(true);
  }, 120_000);
});
