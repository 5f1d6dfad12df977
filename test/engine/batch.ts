/**
 * Batch handlers end to end on every provider: jobs of one type and queue reach `handleBatch`
 * together, and each still succeeds, retries, dies or is cancelled on its own.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob, type ChokaQ, type Middleware } from '../../src/index.js';
import { waitFor } from '../helpers/wait.js';
import { useEngines } from './engines.js';
import type { EngineStoreFactory } from './suite.js';

/** Where each of `ids` ended, once every one left the hot table. */
async function endsOf(chokaq: ChokaQ, ids: readonly string[]) {
  return waitFor(
    async () => {
      const found = await Promise.all(ids.map((id) => chokaq.getJob(id)));
      return found.every((f) => f !== null && f.where !== 'hot') ? found : undefined;
    },
    { timeoutMs: 15_000, message: 'every job settled' },
  );
}

/** The ids of an `enqueueMany`'s jobs, in order. */
async function idsOf(results: Promise<readonly { id: string }[]>): Promise<string[]> {
  return (await results).map((r) => r.id);
}

/** Registers the batch handler tests of one provider. */
export function describeBatch(name: string, factory: EngineStoreFactory): void {
  describe(`batch handlers on ${name}`, () => {
    const engines = useEngines(name, factory);

    it('hands buffered jobs over in batches and settles each job on its own', async () => {
      // The schema refuses 13 only once the worker runs: as after a deploy that tightened it.
      let strict = false;
      const calls: number[] = [];
      const job = defineJob({
        type: 'batch.mixed.v1',
        queue: 'batch',
        payload: z.object({ n: z.number() }).refine((p) => !(strict && p.n === 13)),
        retry: { maxAttempts: 2, baseDelay: 10, jitter: 0 },
        batchSize: 5,
        handleBatch(jobs) {
          calls.push(jobs.length);
          return jobs.map(({ payload }) =>
            payload.n % 4 === 0
              ? { status: 'rejected', reason: new Error(`no ${payload.n}`) }
              : { status: 'fulfilled', value: { doubled: payload.n * 2 } },
          );
        },
      });
      const chokaq = engines.engineOn(await factory.make(), {
        jobs: [job],
        concurrency: 8,
        prefetch: 20,
      });
      const ids: string[] = [];
      for (let n = 1; n <= 16; n++) ids.push((await chokaq.enqueue(job, { n })).id);
      strict = true;
      await chokaq.start();
      const ends = await endsOf(chokaq, ids);

      // One claim buffered all 16: the first batch took 5 slots, the next the 3 left of 8.
      expect(calls.slice(0, 2)).toEqual([5, 3]);
      expect(Math.max(...calls)).toBeLessThanOrEqual(5);
      ends.forEach((found, i) => {
        const n = i + 1;
        if (n === 13) {
          // Died alone, without reaching the batch handler.
          expect(found?.where === 'dlq' && found.job).toMatchObject({ reason: 'Fatal' });
        } else if (n % 4 === 0) {
          expect(found?.where === 'dlq' && found.job).toMatchObject({
            reason: 'Transient',
            attempts: 2,
          });
          expect(found?.where === 'dlq' && found.job.errorDetails).toContain(`no ${n}`);
        } else {
          expect(found?.where === 'archive' && found.job).toMatchObject({
            attempts: 1,
            result: JSON.stringify({ doubled: n * 2 }),
          });
        }
      });
      // 15 valid jobs on the first attempt, the 4 failing ones again on their second.
      expect(calls.reduce((a, b) => a + b, 0)).toBe(15 + 4);
      const stats = (await chokaq.queues.stats()).find((s) => s.queue === 'batch');
      expect(stats).toMatchObject({ succeededTotal: 11, retriedTotal: 4, failedTotal: 5, dead: 5 });
    });

    it('fails every job of a batch whose handler throws, each retried on its own', async () => {
      const attempts: number[][] = [];
      const job = defineJob<{ n: number }>({
        type: 'batch.throws.v1',
        retry: { maxAttempts: 3, baseDelay: 10, jitter: 0 },
        handleBatch(jobs) {
          attempts.push(jobs.map((j) => j.ctx.attempt));
          if (jobs.some((j) => j.ctx.attempt === 1)) throw new Error('bulk API down');
        },
      });
      const chokaq = engines.engineOn(await factory.make(), { jobs: [job], concurrency: 4 });
      const ids = await idsOf(
        chokaq.enqueueMany(job, [
          { payload: { n: 1 } },
          { payload: { n: 2 } },
          { payload: { n: 3 } },
        ]),
      );
      await chokaq.start();
      const ends = await endsOf(chokaq, ids);
      for (const found of ends) {
        expect(found?.where === 'archive' && found.job).toMatchObject({ attempts: 2 });
      }
      expect(attempts.flat().sort()).toEqual([1, 1, 1, 2, 2, 2]);
    });

    it('aborts only the cancelled job of a running batch', async () => {
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let batchAborted: boolean | undefined;
      const job = defineJob<{ n: number }>({
        type: 'batch.cancel.v1',
        async handleBatch(jobs, ctx) {
          await released;
          batchAborted = ctx.signal.aborted;
          return jobs.map((j) =>
            j.ctx.signal.aborted
              ? { status: 'rejected', reason: j.ctx.signal.reason as unknown }
              : { status: 'fulfilled', value: j.ctx.signal.aborted },
          );
        },
      });
      const chokaq = engines.engineOn(await factory.make(), { jobs: [job], concurrency: 4 });
      const ids = await idsOf(
        chokaq.enqueueMany(job, [
          { payload: { n: 1 } },
          { payload: { n: 2 } },
          { payload: { n: 3 } },
        ]),
      );
      await chokaq.start();
      await waitFor(async () => (await chokaq.listJobs({ state: 'processing' })).length === 3);
      expect(await chokaq.cancel([ids[1] ?? ''], { actor: 'ops' })).toEqual({
        cancelled: [],
        requested: [ids[1]],
      });
      release();
      const [first, cancelled, third] = await endsOf(chokaq, ids);
      expect(batchAborted).toBe(false);
      expect(cancelled?.where === 'dlq' && cancelled.job).toMatchObject({ reason: 'Cancelled' });
      expect(first?.where === 'archive' && first.job.result).toBe('false');
      expect(third?.where).toBe('archive');
    });

    it('runs the middleware once per job; a job it skips does not reach the batch', async () => {
      const seen: string[] = [];
      const batches: number[][] = [];
      const skipOdd: Middleware = async (ctx, payload, next) => {
        seen.push(ctx.id);
        if ((payload as { n: number }).n % 2 === 1) return; // not calling next: skipped
        await next();
      };
      const job = defineJob<{ n: number }>({
        type: 'batch.middleware.v1',
        handleBatch(jobs) {
          batches.push(jobs.map((j) => j.payload.n));
        },
      });
      const chokaq = engines.engineOn(await factory.make(), {
        jobs: [job],
        middleware: [skipOdd],
        concurrency: 8,
      });
      const ids = await idsOf(
        chokaq.enqueueMany(
          job,
          [1, 2, 3, 4].map((n) => ({ payload: { n } })),
        ),
      );
      await chokaq.start();
      const ends = await endsOf(chokaq, ids);
      expect(ends.map((f) => f?.where)).toEqual(['archive', 'archive', 'archive', 'archive']);
      expect([...seen].sort()).toEqual([...ids].sort());
      expect(batches.flat().sort()).toEqual([2, 4]);
    });

    it('reschedules every job of a batch interrupted by shutdown without using an attempt', async () => {
      let called = 0;
      const job = defineJob<{ n: number }>({
        type: 'batch.shutdown.v1',
        handleBatch: (jobs, ctx) =>
          new Promise((_resolve, reject) => {
            called = jobs.length;
            ctx.signal.addEventListener('abort', () => reject(new Error('shutting down')));
          }),
      });
      const storage = await factory.make();
      const chokaq = engines.engineOn(storage, { jobs: [job], shutdownGracePeriod: 50 });
      const ids = await idsOf(
        chokaq.enqueueMany(job, [{ payload: { n: 1 } }, { payload: { n: 2 } }]),
      );
      await chokaq.start();
      await waitFor(async () => (await chokaq.listJobs({ state: 'processing' })).length === 2);
      await chokaq.stop();
      expect(called).toBe(2);
      const view = await factory.reopen(storage);
      for (const id of ids) {
        const found = await view.operator.getJob(id);
        expect(found?.job).toMatchObject({ state: 'pending', attempts: 0, lostAttempts: 1 });
      }
      await view.close();
    });
  });
}
