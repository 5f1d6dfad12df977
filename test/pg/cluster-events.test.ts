/**
 * Events across real processes on PostgreSQL: a child process runs jobs, loses one to the DLQ and
 * pauses a queue; this process hears of all three through the schema's notifications, coalesced
 * into a few messages.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ChokaQ, silentLogger, type ClusterActivity, type QueueInfo } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { requireDist, spawnNode } from '../fixtures/crash-process.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';

const pgUp = await postgresAvailable();
const JOBS = 300;

describe.skipIf(!pgUp)('cluster events between processes (PostgreSQL)', () => {
  const schema = uniqueSchema('cluster');
  afterAll(async () => {
    await dropSchema(schema);
  });

  it("hears another process's completions, its job's death and its pause", async () => {
    requireDist(['dist/index.js', 'dist/storage/postgres/index.js']);
    const watcher = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      worker: false,
      workerId: 'cluster-parent',
      logger: silentLogger,
    });
    const seen: ClusterActivity[] = [];
    const paused: QueueInfo[] = [];
    const actions: string[] = [];
    watcher.on('cluster:activity', (a) => seen.push(a));
    watcher.on('queue:updated', (q) => q.paused && paused.push(q));
    watcher.on('operator:action', (e) => actions.push(`${e.actor} ${e.action}`));
    await watcher.start();
    try {
      const child = spawnNode('cluster-child', ['test/fixtures/cluster-child.mjs'], {
        CHOKAQ_CLUSTER_URL: TEST_DATABASE_URL,
        CHOKAQ_CLUSTER_SCHEMA: schema,
        CHOKAQ_CLUSTER_JOBS: String(JOBS),
      });
      const deadLine = await child.waitForLine('DEAD ', 60_000);
      const deadId = deadLine.slice('DEAD '.length).trim();
      await child.waitForLine('DONE', 60_000);
      expect(await child.exited).toEqual({ code: 0, signal: null });
      const fromChild = () => seen.filter((a) => a.origin === 'cluster-child');
      await waitFor(
        () =>
          fromChild().reduce((n, a) => n + a.succeeded, 0) === JOBS &&
          fromChild().some((a) => a.dead > 0) &&
          paused.length > 0,
        { timeoutMs: 10_000, message: "the child's completions, death and pause" },
      );
      expect(fromChild().reduce((n, a) => n + a.enqueued, 0)).toBe(JOBS + 1);
      expect(fromChild().reduce((n, a) => n + a.dead, 0)).toBe(1);
      expect(fromChild().flatMap((a) => a.deadIds)).toEqual([deadId]);
      expect(fromChild().every((a) => !a.local)).toBe(true);
      expect(fromChild().length).toBeLessThan(JOBS / 10);
      expect(paused[0]).toMatchObject({ name: 'xp', paused: true });
      expect(actions).toContain('child-op queue-update');
    } finally {
      await watcher.stop();
    }
  }, 90_000);
});
