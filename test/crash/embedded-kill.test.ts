/**
 * SIGKILL of a process holding the embedded store: a child (test/fixtures/crash-embedded-enqueue.mjs)
 * opens `embedded({ dataDir })`, enqueues 500 jobs and prints READY once enqueue resolved; the test
 * SIGKILLs it while PGlite is live, leaving its lockfile behind with a dead pid. This process then
 * opens the same data directory — taking over the stale lock — finds all 500 jobs pending, and
 * drains them to the archive, each handler running exactly once.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { embedded } from '../../src/storage/embedded/index.js';
import { ROOT, killAll, requireDist, spawnNode, type Child } from '../fixtures/crash-process.js';
import { withTimeout } from '../helpers/wait.js';

const ENQUEUER = join(ROOT, 'test/fixtures/crash-embedded-enqueue.mjs');
const JOBS = 500;
const DRAIN_LIMIT_MS = 60_000;

describe('crash: SIGKILL of a process holding the embedded store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chokaq-crash-emb-'));
  const dataDir = join(dir, 'data');
  const children: Child[] = [];
  let chokaq: ChokaQ | undefined;

  afterAll(async () => {
    await killAll(children);
    await chokaq?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('takes over the stale lock, finds every enqueued job and drains them all', async () => {
    requireDist(['dist/index.js', 'dist/storage/embedded/index.js']);
    const child = spawnNode('embedded-enqueuer', [ENQUEUER], {
      CRASH_DATA_DIR: dataDir,
      CRASH_JOBS: String(JOBS),
    });
    children.push(child);
    await child.waitForLine('READY', 60_000);
    const lockfile = join(dataDir, 'chokaq.lock');
    expect(readFileSync(lockfile, 'utf8').trim()).toBe(String(child.pid));

    child.process.kill('SIGKILL');
    expect(await withTimeout(child.exited, 5000, 'SIGKILL')).toEqual({
      code: null,
      signal: 'SIGKILL',
    });
    // The dead owner's lockfile is still there: the new opener must take it over.
    expect(readFileSync(lockfile, 'utf8').trim()).toBe(String(child.pid));

    const ran = new Map<string, number>();
    const job = defineJob<{ n: number }>({
      type: 'crash.embedded.v1',
      queue: 'embedded',
      handle: (_payload, ctx) => {
        ran.set(ctx.id, (ran.get(ctx.id) ?? 0) + 1);
      },
    });
    const reopenedAt = Date.now();
    chokaq = new ChokaQ({
      storage: embedded({ dataDir, logger: silentLogger }),
      jobs: [job],
      concurrency: 8,
      pollInterval: 100,
      logger: silentLogger,
    });
    const before = (await chokaq.queues.stats()).find((s) => s.queue === 'embedded');
    const reopenMs = Date.now() - reopenedAt;
    expect(readFileSync(lockfile, 'utf8').trim()).toBe(String(process.pid));
    expect(before).toMatchObject({ pending: JOBS, fetched: 0, processing: 0, archived: 0 });
    const pending = await chokaq.listJobs({ state: 'pending', limit: JOBS + 10 });
    const expected = Array.from({ length: JOBS }, (_, n) => `emb-${String(n).padStart(5, '0')}`);
    expect(pending.map((j) => j.id).sort()).toEqual(expected);

    const drainStart = Date.now();
    await chokaq.start();
    let archived = 0;
    while (archived < JOBS && Date.now() - drainStart < DRAIN_LIMIT_MS) {
      await sleep(100);
      archived = (await chokaq.queues.stats()).find((s) => s.queue === 'embedded')?.archived ?? 0;
    }
    const drainMs = Date.now() - drainStart;
    expect(archived).toBe(JOBS);
    expect([...ran.keys()].sort()).toEqual(expected);
    expect([...ran.values()].filter((n) => n !== 1)).toEqual([]);
    const after = (await chokaq.queues.stats()).find((s) => s.queue === 'embedded');
    expect(after).toMatchObject({ pending: 0, fetched: 0, processing: 0, dead: 0 });

    await chokaq.stop();
    chokaq = undefined;
    expect(existsSync(lockfile)).toBe(false);
    console.info(
      `embedded-kill: reopened after SIGKILL in ${reopenMs} ms (stale lock taken over), ` +
        `${JOBS} jobs found and drained in ${drainMs} ms`,
    );
  }, 150_000);
});
