/**
 * Batches end to end on every provider: `enqueueBatch` with real workers, each callback run once
 * with its batch's counts (`ctx.batch()`), the Sidekiq rule that a dead member resurrected and
 * then succeeding fires `onSuccess`, the operator's view (`jobs.get`, `batches.get`), and the
 * coded errors of bad input, which write nothing.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, FatalError, type JobBatch } from '../../src/index.js';
import { waitForJob } from '../../src/testing/index.js';
import { waitFor } from '../helpers/wait.js';
import { useEngines } from './engines.js';
import type { EngineStoreFactory } from './suite.js';

/** Registers the batch tests of one provider. */
export function describeBatches(name: string, factory: EngineStoreFactory): void {
  describe(`batches on ${name}`, () => {
    const { started } = useEngines(name, factory);

    const part = defineJob<{ n: number; fail?: boolean }>({
      type: 'bt.part.v1',
      queue: 'bt.parts',
      handle: (payload) => {
        if (payload.fail === true) throw new FatalError(`part ${payload.n} failed`);
        return payload.n;
      },
    });
    /** Each callback run: the callback's id, what it was told, and its batch as it read it. */
    const runs: { id: string; label: string; batch: JobBatch | null }[] = [];
    const report = defineJob<{ label: string }>({
      type: 'bt.report.v1',
      queue: 'bt.reports',
      handle: async (payload, ctx) => {
        runs.push({ id: ctx.id, label: payload.label, batch: await ctx.batch() });
      },
    });
    const jobs = [part, report];

    /** The callback runs of `id` so far. */
    const runsOf = (id: string): typeof runs => runs.filter((run) => run.id === id);

    it('runs onSuccess and onComplete once when every member succeeded, with the counts', async () => {
      const chokaq = await started(await factory.make(), { jobs, concurrency: 8 });
      const result = await chokaq.enqueueBatch((batch) => {
        for (let n = 1; n <= 20; n++) batch.add(part, { n });
        batch.onSuccess(report, { label: 'all good' });
        batch.onComplete(report, { label: 'all done' });
        batch.onDeath(report, { label: 'one died' });
      });
      expect(result.jobs).toHaveLength(20);
      const success = result.callbacks.success ?? '';
      const complete = result.callbacks.complete ?? '';
      await waitForJob(chokaq, success, 'succeeded', { timeoutMs: 15_000 });
      await waitForJob(chokaq, complete, 'succeeded', { timeoutMs: 15_000 });
      expect(runsOf(success)).toHaveLength(1);
      expect(runsOf(complete)).toHaveLength(1);
      expect(runsOf(success)[0]).toMatchObject({
        label: 'all good',
        batch: { id: result.id, role: 'success', total: 20, succeeded: 20, died: 0, pending: 0 },
      });
      const read = await chokaq.batches.get(result.id);
      expect(read?.callbacks.map((c) => [c.kind, c.firedAt !== null])).toEqual([
        ['success', true],
        ['complete', true],
        ['death', false],
      ]);
      // The death callback never fired: it still waits, and no worker ran it.
      expect((await chokaq.jobs.get(result.callbacks.death ?? ''))?.state).toBe('awaiting');
      const member = await chokaq.jobs.get(result.jobs[0]?.id ?? '');
      expect(member?.batch).toMatchObject({ role: 'member', batch: { id: result.id } });
    });

    it('wakes a fired callback queue at once, not at the next poll', async (ctx) => {
      if (factory.notifications === false) ctx.skip('no notifications through this store');
      const chokaq = await started(await factory.make(), { jobs, pollInterval: '1m' });
      const result = await chokaq.enqueueBatch((batch) => {
        batch.add(part, { n: 1 });
        batch.onSuccess(report, { label: 'woken' });
      });
      const success = result.callbacks.success ?? '';
      await waitForJob(chokaq, result.jobs[0]?.id ?? '', 'succeeded', { timeoutMs: 15_000 });
      // Every claim since found nothing: the worker sleeps for a minute unless something wakes it.
      await waitForJob(chokaq, success, 'succeeded', { timeoutMs: 15_000 });
      expect(runsOf(success)).toHaveLength(1);
    });

    it('runs onDeath once at the first death; a resurrected member that succeeds fires onSuccess', async () => {
      const chokaq = await started(await factory.make(), { jobs, concurrency: 4 });
      let failing: string[] = [];
      const result = await chokaq.enqueueBatch((batch) => {
        for (let n = 1; n <= 5; n++) batch.add(part, { n });
        failing = [6, 7].map((n) => batch.add(part, { n, fail: true }));
        batch.onSuccess(report, { label: 'all good' });
        batch.onComplete(report, { label: 'all done' });
        batch.onDeath(report, { label: 'one died' });
      });
      const { success = '', complete = '', death = '' } = result.callbacks;
      await waitForJob(chokaq, death, 'succeeded', { timeoutMs: 15_000 });
      await waitForJob(chokaq, complete, 'succeeded', { timeoutMs: 15_000 });
      expect(runsOf(death)).toHaveLength(1);
      expect(runsOf(complete)[0]?.batch).toMatchObject({ succeeded: 5, died: 2, pending: 0 });
      expect((await chokaq.jobs.get(success))?.state).toBe('awaiting');
      // Repaired: the dead members are edited and resurrected, and succeed.
      await chokaq.dlq.resurrect(failing, { actor: 'ana', payload: { n: 8 } });
      await waitForJob(chokaq, success, 'succeeded', { timeoutMs: 15_000 });
      expect(runsOf(success)).toHaveLength(1);
      expect(runsOf(success)[0]?.batch).toMatchObject({ succeeded: 7, died: 0, pending: 0 });
      expect(runsOf(death)).toHaveLength(1);
      expect(runsOf(complete)).toHaveLength(1);
    });

    it('counts a cancelled member as cancelled, not a death', async () => {
      const chokaq = await started(await factory.make(), { jobs, concurrency: 2 });
      let later = '';
      const result = await chokaq.enqueueBatch((batch) => {
        batch.add(part, { n: 1 });
        later = batch.add(part, { n: 2 }, { delay: '1h' });
        batch.onComplete(report, { label: 'done' });
        batch.onDeath(report, { label: 'died' });
      });
      await waitFor(async () => (await chokaq.batches.get(result.id))?.succeeded === 1, {
        timeoutMs: 15_000,
      });
      await chokaq.cancel([later], { actor: 'ana' });
      const complete = result.callbacks.complete ?? '';
      await waitForJob(chokaq, complete, 'succeeded', { timeoutMs: 15_000 });
      expect(runsOf(complete)[0]?.batch).toMatchObject({ succeeded: 1, cancelled: 1, died: 0 });
      expect((await chokaq.jobs.get(result.callbacks.death ?? ''))?.state).toBe('awaiting');
    });

    it('a bulk cancel counts its members; a bulk resurrect counts them back', async () => {
      const chokaq = await started(await factory.make(), { jobs, concurrency: 2 });
      let later: string[] = [];
      const result = await chokaq.enqueueBatch((batch) => {
        later = [1, 2].map((n) => batch.add(part, { n }, { delay: '1h' }));
        batch.onSuccess(report, { label: 'good' });
        batch.onComplete(report, { label: 'done' });
      });
      const cancel = await chokaq.bulk.preview({ action: 'cancel', target: { ids: later } });
      await chokaq.bulk.run(cancel.token, { actor: 'ana', reason: 'not now' });
      const complete = result.callbacks.complete ?? '';
      await waitForJob(chokaq, complete, 'succeeded', { timeoutMs: 15_000 });
      expect(runsOf(complete)[0]?.batch).toMatchObject({ cancelled: 2, pending: 0 });
      const back = await chokaq.bulk.preview({ action: 'resurrect', target: { ids: later } });
      await chokaq.bulk.run(back.token, { actor: 'ana', reason: 'now' });
      const success = result.callbacks.success ?? '';
      await waitForJob(chokaq, success, 'succeeded', { timeoutMs: 15_000 });
      expect(runsOf(success)[0]?.batch).toMatchObject({ succeeded: 2, cancelled: 0 });
      expect(runsOf(complete)).toHaveLength(1);
    });

    it('refuses bad input with coded errors naming the field, writing nothing', async () => {
      const chokaq = await started(await factory.make(), { jobs });
      const count = async (): Promise<number> =>
        (await chokaq.queues.stats()).reduce(
          (n, s) => n + s.awaiting + s.pending + s.scheduled + s.archived + s.dead,
          0,
        );
      await expect(chokaq.enqueueBatch(() => undefined)).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
        field: 'batch',
      });
      await expect(
        // @ts-expect-error: not a function
        chokaq.enqueueBatch({ jobs: [] }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'build' });
      await expect(
        chokaq.enqueueBatch((batch) => {
          batch.add(part, { n: 1 });
          // @ts-expect-error: batch jobs take no idempotency key
          batch.add(part, { n: 2 }, { idempotencyKey: 'k' });
        }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_UNKNOWN_OPTION', field: 'batch[1].idempotencyKey' });
      await expect(
        chokaq.enqueueBatch((batch) => {
          batch.add(part, { n: 1 }, { priority: 1.5 });
        }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_PRIORITY', field: 'batch[0].priority' });
      await expect(
        chokaq.enqueueBatch((batch) => {
          batch.add(part, { n: 1 });
          batch.onSuccess(report, { label: 'x' });
          batch.onSuccess(report, { label: 'y' });
        }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'batch.onSuccess' });
      await expect(
        chokaq.enqueueBatch((batch) => {
          const a = batch.add(part, { n: 1 });
          // @ts-expect-error: a callback waits for its batch, not for jobs
          batch.onDeath(report, { label: 'x' }, { dependsOn: [a] });
        }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_UNKNOWN_OPTION', field: 'batch.onDeath.dependsOn' });
      await expect(
        chokaq.enqueueBatch((batch) => {
          batch.add(part, { n: 1 });
          batch.onComplete('bt.nobody.v1', {});
        }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_UNKNOWN_JOB_TYPE', field: 'batch.onComplete.job' });
      await expect(
        chokaq.enqueueBatch((batch) => {
          batch.add(part, { n: 1 }, { id: 'bt-same' });
          batch.add(part, { n: 2 }, { id: 'bt-same' });
        }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_DUPLICATE_JOB_ID' });
      await expect(chokaq.batches.get('')).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_JOB_ID',
        field: 'id',
      });
      if (name !== 'postgres') {
        await expect(
          chokaq.enqueueBatch(
            (batch) => {
              batch.add(part, { n: 1 });
            },
            { client: {} },
          ),
        ).rejects.toMatchObject({
          code: 'CHOKAQ_TRANSACTION_UNSUPPORTED',
          field: 'options.client',
        });
      }
      expect(await count()).toBe(0);
    });
  });
}
