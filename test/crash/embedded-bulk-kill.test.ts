/**
 * Crash proof of a bulk action on the embedded store, with real processes. The embedded store is
 * held by one process at a time (its lockfile), so this process prepares 20,000 DLQ jobs and a
 * bulk resurrect preview, then closes the store; a child
 * (test/fixtures/crash-embedded-bulk-runner.mjs) opens it, confirms the action and runs it on its
 * own worker, printing its progress. The test SIGKILLs the child in the middle of the run —
 * leaving the lockfile behind with a dead pid — then reopens the data directory (taking over the
 * stale lock) with a worker: the run job comes back through rescue (a zombie, or a stale claim when
 * its start was not recorded yet) and finishes the action,
 * every job moved exactly once.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { ChokaQ, silentLogger, type BulkAction } from '../../src/index.js';
import { embedded } from '../../src/storage/embedded/index.js';
import { waitFor, withTimeout } from '../helpers/wait.js';
import { ROOT, killAll, requireDist, spawnNode, type Child } from '../fixtures/crash-process.js';

const RUNNER = join(ROOT, 'test/fixtures/crash-embedded-bulk-runner.mjs');
const JOBS = 20_000;
/** The kill lands once the child reports at least this share of the jobs done (one batch). */
const KILL_AFTER_PERCENT = (100 * 500) / JOBS;
/** Jobs enqueued and cancelled per call (the most one operator call takes). */
const CHUNK = 10_000;

/** The highest `DONE <percent>` the child printed so far (-1 for none). */
function doneSoFar(child: Child): number {
  const counts = child.stdout
    .split('\n')
    .slice(0, -1)
    .flatMap((line) => (line.startsWith('DONE ') ? [Number(line.slice(5))] : []));
  return counts.length === 0 ? -1 : Math.max(...counts);
}

describe('crash: SIGKILL of the process running a bulk action (embedded)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chokaq-crash-emb-bulk-'));
  const dataDir = join(dir, 'data');
  const children: Child[] = [];
  const engines: ChokaQ[] = [];

  /** An engine on the data directory; its worker (if any) serves only the operator queue. */
  function engine(options: { worker: boolean }): ChokaQ {
    const chokaq = new ChokaQ({
      storage: embedded({ dataDir, logger: silentLogger }),
      pipe: () => undefined,
      workerQueues: ['none'],
      pollInterval: 50,
      heartbeatInterval: 200,
      zombieTimeout: '1500ms',
      // A kill right after the run began finds its start not yet recorded: the run job comes
      // back as a stale claim rather than as a zombie.
      fetchedTimeout: '1500ms',
      rescueInterval: 300,
      logger: silentLogger,
      ...options,
    });
    engines.push(chokaq);
    return chokaq;
  }

  afterAll(async () => {
    await killAll(children);
    await Promise.all(engines.map((e) => e.stop().catch(() => undefined)));
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('finishes the action after the kill, moving every job exactly once', async () => {
    requireDist(['dist/index.js', 'dist/storage/embedded/index.js']);
    const operator = engine({ worker: false });
    for (let start = 0; start < JOBS; start += CHUNK) {
      const created = await operator.enqueueMany(
        'crash.bulk.v1',
        Array.from({ length: CHUNK }, (_, i) => ({
          payload: { n: start + i },
          queue: 'parked',
          delay: '1h' as const,
        })),
      );
      await operator.cancel(
        created.map((r) => r.id),
        { actor: 'setup' },
      );
    }
    const preview = await operator.bulk.preview({
      action: 'resurrect',
      target: { query: { type: 'crash.bulk.v1' } },
    });
    expect(preview.count).toBe(JOBS);
    await operator.stop(); // the child needs the store to itself

    const child = spawnNode('embedded-bulk-runner', [RUNNER], {
      CRASH_DATA_DIR: dataDir,
      BULK_TOKEN: preview.token,
    });
    children.push(child);
    await child.waitForLine('RUNNING', 60_000);
    const deadline = Date.now() + 60_000;
    while (doneSoFar(child) < KILL_AFTER_PERCENT && child.alive() && Date.now() < deadline) {
      await sleep(5);
    }
    const reported = doneSoFar(child);
    expect(reported, child.stderr).toBeGreaterThanOrEqual(KILL_AFTER_PERCENT);
    child.process.kill('SIGKILL');
    expect(await withTimeout(child.exited, 5000, 'SIGKILL')).toEqual({
      code: null,
      signal: 'SIGKILL',
    });
    const lockfile = join(dataDir, 'chokaq.lock');
    expect(readFileSync(lockfile, 'utf8').trim()).toBe(String(child.pid));

    // Reopen: the stale lock is taken over; the action is still running, part of it done.
    const rescuer = engine({ worker: true });
    const atKill = (await rescuer.bulk.get(preview.id)) as BulkAction;
    expect(atKill.status, 'the action must still be running when the kill lands').toBe('running');
    expect(atKill.done).toBeGreaterThanOrEqual((reported * JOBS) / 100);
    expect(atKill.done).toBeLessThan(JOBS);
    expect(readFileSync(lockfile, 'utf8').trim()).toBe(String(process.pid));

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
    // The run job is archived once its handler returned (just after it marked the action done).
    const runJob = await waitFor(
      async () => {
        const page = await rescuer.jobs.query({ type: 'chokaq.bulk.v1', state: 'succeeded' });
        return page.jobs.length > 0 ? page : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, message: 'the run job to be archived' },
    );
    expect(runJob.jobs).toHaveLength(1);
    const detail = await rescuer.jobs.get(runJob.jobs[0]?.id ?? '');
    const outcomes = detail?.timeline.flatMap((e) => (e.kind === 'run' ? [e.outcome] : []));
    expect(outcomes?.at(-1)).toBe('succeeded');
    // The killed run is in the timeline as a zombie when its start had been recorded; a run killed
    // before that came back as a stale claim and left no entry.
    expect(outcomes?.slice(0, -1).every((outcome) => outcome === 'zombie')).toBe(true);
    console.info(
      `embedded-bulk-kill: killed at ${atKill.done}/${JOBS} done; finished after reopening`,
    );
  }, 180_000);
});
