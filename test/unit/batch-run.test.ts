/**
 * A batch's timeout and abort on a fake clock, on the memory store: one timeout covers the call,
 * the batch's signal fires with every job's, and a handler that ignores it is abandoned after the
 * grace period with every job finalised as `Timeout`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger, type BatchHandler } from '../../src/index.js';
import { FakeClock, memory } from '../../src/testing/index.js';
import type { FoundJob } from '../../src/storage/model.js';

const engines: ChokaQ[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.stop()));
});

/** A started engine on a fake clock running `handleBatch`, with three jobs of it enqueued first. */
async function batchOf3(handleBatch: BatchHandler<{ n: number }>) {
  const clock = new FakeClock();
  const job = defineJob<{ n: number }>({
    type: 'clocked.batch.v1',
    timeout: '1s',
    retry: { maxAttempts: 2, baseDelay: '1m', jitter: 0 },
    handleBatch,
  });
  const chokaq = new ChokaQ({
    storage: memory({ clock }),
    clock,
    jobs: [job],
    logger: silentLogger,
    abortGracePeriod: '1s',
    shutdownGracePeriod: 0,
  });
  engines.push(chokaq);
  const ids = (
    await chokaq.enqueueMany(job, [
      { payload: { n: 1 } },
      { payload: { n: 2 } },
      { payload: { n: 3 } },
    ])
  ).map((r) => r.id);
  await chokaq.start();
  return { clock, chokaq, ids };
}

/** Advances `clock` by `ms` in steps until `check` holds (at most 200 steps). */
async function advanceUntil(clock: FakeClock, ms: number, check: () => boolean | Promise<boolean>) {
  for (let step = 0; step < 200; step++) {
    if (await check()) return;
    await clock.advanceAsync(ms);
  }
  throw new Error('condition not reached on the fake clock');
}

async function everyWhere(chokaq: ChokaQ, ids: readonly string[]): Promise<(FoundJob | null)[]> {
  return Promise.all(ids.map((id) => chokaq.getJob(id)));
}

describe('a batch on the clock', () => {
  it('abandons a handler that ignores the batch timeout, and finalises every job as Timeout', async () => {
    const signals: { batch: AbortSignal; jobs: AbortSignal[] }[] = [];
    const { clock, chokaq, ids } = await batchOf3((jobs, ctx) => {
      signals.push({ batch: ctx.signal, jobs: jobs.map((j) => j.ctx.signal) });
      return new Promise<undefined>(() => undefined); // never returns
    });
    await advanceUntil(clock, 10, () => signals.length > 0);
    expect(signals).toHaveLength(1);
    const [{ batch, jobs } = { batch: undefined, jobs: [] }] = signals;
    expect(jobs).toHaveLength(3);
    expect(batch?.aborted).toBe(false);
    await clock.advanceAsync(1000); // the batch's timeout
    expect(batch?.aborted).toBe(true);
    expect(jobs.every((signal) => signal.aborted)).toBe(true);
    await advanceUntil(clock, 100, async () =>
      (await everyWhere(chokaq, ids)).every((f) => f?.where === 'dlq'),
    );
    for (const found of await everyWhere(chokaq, ids)) {
      expect(found?.where === 'dlq' && found.job).toMatchObject({ reason: 'Timeout', attempts: 1 });
    }
  });

  it('finalises every job as Timeout when the handler stops on the batch signal', async () => {
    let calls = 0;
    const { clock, chokaq, ids } = await batchOf3(
      (_jobs, ctx) =>
        new Promise((_resolve, reject) => {
          calls += 1;
          ctx.signal.addEventListener('abort', () => reject(new Error('stopped')));
        }),
    );
    await advanceUntil(clock, 10, () => calls > 0);
    await clock.advanceAsync(1000);
    await advanceUntil(clock, 10, async () =>
      (await everyWhere(chokaq, ids)).every((f) => f?.where === 'dlq'),
    );
    for (const found of await everyWhere(chokaq, ids)) {
      expect(found?.where === 'dlq' && found.job.errorDetails).toContain(
        'the batch exceeded 1000 ms',
      );
    }
    expect(calls).toBe(1);
  });

  it('fails and retries every job of a batch whose result has the wrong shape', async () => {
    const attempts: number[] = [];
    const { clock, chokaq, ids } = await batchOf3((jobs) => {
      attempts.push(...jobs.map((j) => j.ctx.attempt));
      // One outcome for three jobs on the first attempt; nothing (all succeed) on the second.
      return jobs[0]?.ctx.attempt === 1 ? [undefined] : undefined;
    });
    const retried: string[] = [];
    chokaq.on('job:retrying', (e) => retried.push(e.error));
    await advanceUntil(clock, 10, () => attempts.length === 3);
    await advanceUntil(clock, 1000, async () =>
      (await everyWhere(chokaq, ids)).every((f) => f?.where === 'archive'),
    );
    expect(attempts).toEqual([1, 1, 1, 2, 2, 2]);
    expect(retried).toHaveLength(3);
    for (const error of retried) expect(error).toContain('CHOKAQ_INVALID_BATCH_RESULT');
  });
});
