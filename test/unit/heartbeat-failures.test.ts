import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, memory, silentLogger, type JobDefinition } from '../../src/index.js';
import type { Store } from '../../src/storage/store.js';
import { waitFor } from '../helpers/wait.js';
import { waitForJob } from '../../src/testing/index.js';

/** A real memory store whose heartbeat writes fail, as when the database stops answering them. */
function withFailingHeartbeats(): Store {
  const store = memory();
  store.jobs.heartbeat = () => Promise.reject(new Error('heartbeat write failed'));
  return store;
}

/**
 * A job whose handler runs until `done()` resolves (so it lives through as many heartbeats as the
 * test needs), or fails as soon as its signal aborts.
 */
function heldJob(done: () => Promise<unknown>): JobDefinition<unknown> {
  return defineJob({
    type: 'hb.held.v1',
    handle: (_p, ctx) =>
      new Promise<void>((resolve, reject) => {
        ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
        done().then(() => resolve(), reject);
      }),
  });
}

describe('heartbeat failures', () => {
  it('by default only count and warn: the job still succeeds', async () => {
    // Runs until a heartbeat past the threshold of three has failed.
    const job = heldJob(() => waitFor(() => chokaq.counters.heartbeatFailures >= 4));
    const chokaq = new ChokaQ({
      storage: withFailingHeartbeats(),
      jobs: [job],
      logger: silentLogger,
      pollInterval: 20,
      heartbeatInterval: 20,
      heartbeatFailureThreshold: 3,
    });
    await chokaq.start();
    const { id } = await chokaq.enqueue(job, {});
    await waitForJob(chokaq, id, 'succeeded', { timeoutMs: 5000 });
    expect(chokaq.counters.heartbeatFailures).toBeGreaterThanOrEqual(4);
    await chokaq.stop();
  });

  it('with cancelOnHeartbeatFailure abort the run into the DLQ as HeartbeatFailure', async () => {
    // Never ends by itself: only the abort after the third failed heartbeat ends it.
    const job = heldJob(() => new Promise(() => undefined));
    const chokaq = new ChokaQ({
      storage: withFailingHeartbeats(),
      jobs: [job],
      logger: silentLogger,
      pollInterval: 20,
      heartbeatInterval: 20,
      heartbeatFailureThreshold: 3,
      cancelOnHeartbeatFailure: true,
    });
    await chokaq.start();
    const { id } = await chokaq.enqueue(job, {});
    const dead = await waitForJob(chokaq, id, 'dead', { timeoutMs: 5000 });
    expect(dead.reason).toBe('HeartbeatFailure');
    await chokaq.stop();
  });

  it('reports the late settle of a run rescued as a zombie as a conflict, changing nothing', async () => {
    let rescued!: () => void;
    const zombie = new Promise<void>((resolve) => (rescued = resolve));
    // Runs on until recovery has moved its job to the DLQ, then succeeds: too late.
    const job = heldJob(() => zombie);
    const chokaq = new ChokaQ({
      storage: withFailingHeartbeats(),
      jobs: [job],
      logger: silentLogger,
      pollInterval: 20,
      heartbeatInterval: 20,
      zombieTimeout: 100,
      rescueInterval: 50,
    });
    const conflicts: string[] = [];
    chokaq.on('job:conflict', (e) => conflicts.push(`${e.id}:${e.step}`));
    chokaq.on('job:rescued', () => rescued());
    await chokaq.start();
    const { id } = await chokaq.enqueue(job, {});
    await waitFor(() => conflicts.length === 1, { timeoutMs: 5000 });
    expect(conflicts).toEqual([`${id}:archive`]);
    const found = await chokaq.getJob(id);
    expect(found?.where === 'dlq' && found.job.reason).toBe('Zombie');
    expect(chokaq.counters).toMatchObject({ conflicts: 1, lostRuns: 1 });
    await chokaq.stop();
  });
});
