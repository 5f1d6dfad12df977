import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, memory, silentLogger } from '../../src/index.js';
import type { Store } from '../../src/storage/store.js';
import { sleep, waitFor } from '../helpers/wait.js';

/** A real memory store whose heartbeat writes fail, as when the database stops answering them. */
function withFailingHeartbeats(): Store {
  const store = memory();
  store.heartbeat = () => Promise.reject(new Error('heartbeat write failed'));
  return store;
}

const slowJob = defineJob({
  type: 'hb.slow.v1',
  handle: (_p, ctx) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, 400);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      });
    }),
});

describe('heartbeat failures', () => {
  it('by default only count and warn: the job still succeeds', async () => {
    const chokaq = new ChokaQ({
      storage: withFailingHeartbeats(),
      jobs: [slowJob],
      logger: silentLogger,
      pollInterval: 20,
      heartbeatInterval: 20,
      heartbeatFailureThreshold: 3,
    });
    await chokaq.start();
    const { id } = await chokaq.enqueue(slowJob, {});
    await waitFor(async () => (await chokaq.getJob(id))?.where === 'archive', { timeoutMs: 5000 });
    expect(chokaq.counters.heartbeatFailures).toBeGreaterThanOrEqual(3);
    await chokaq.stop();
  });

  it('with cancelOnHeartbeatFailure abort the run into the DLQ as HeartbeatFailure', async () => {
    const chokaq = new ChokaQ({
      storage: withFailingHeartbeats(),
      jobs: [slowJob],
      logger: silentLogger,
      pollInterval: 20,
      heartbeatInterval: 20,
      heartbeatFailureThreshold: 3,
      cancelOnHeartbeatFailure: true,
    });
    await chokaq.start();
    const { id } = await chokaq.enqueue(slowJob, {});
    const dead = await waitFor(
      async () => {
        const found = await chokaq.getJob(id);
        return found?.where === 'dlq' ? found.job : undefined;
      },
      { timeoutMs: 5000 },
    );
    expect(dead.reason).toBe('HeartbeatFailure');
    await sleep(10);
    await chokaq.stop();
  });

  it('reports the late settle of a run rescued as a zombie as a conflict, changing nothing', async () => {
    const chokaq = new ChokaQ({
      storage: withFailingHeartbeats(),
      jobs: [slowJob],
      logger: silentLogger,
      pollInterval: 20,
      heartbeatInterval: 20,
      zombieTimeout: 100,
      rescueInterval: 50,
    });
    const conflicts: string[] = [];
    chokaq.on('job:conflict', (e) => conflicts.push(`${e.id}:${e.step}`));
    await chokaq.start();
    const { id } = await chokaq.enqueue(slowJob, {});
    await waitFor(() => conflicts.length === 1, { timeoutMs: 5000 });
    expect(conflicts).toEqual([`${id}:archive`]);
    const found = await chokaq.getJob(id);
    expect(found?.where === 'dlq' && found.job.reason).toBe('Zombie');
    expect(chokaq.counters).toMatchObject({ conflicts: 1, lostRuns: 1 });
    await chokaq.stop();
  });
});
