/**
 * A workflow as a whole through the operator API, end to end on every provider: `jobs.flow` of
 * any of its jobs (layers, states, the bound, bad input), and bulk actions whose target is a
 * flow — cancel the whole flow, then resurrect its dead jobs, which resumes it — or that releases
 * a job waiting for a cancelled one, which runs at once.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, FatalError, type BulkAction, type ChokaQ } from '../../src/index.js';
import { waitForJob } from '../../src/testing/index.js';
import { waitFor } from '../helpers/wait.js';
import { useEngines } from './engines.js';
import type { EngineStoreFactory } from './suite.js';

/** Registers the tests; call with each provider's factory. */
export function describeWorkflowFlow(name: string, factory: EngineStoreFactory): void {
  describe(`a workflow as a whole on ${name}`, () => {
    const { started } = useEngines(name, factory);

    const part = defineJob<{ n: number }>({
      type: 'wff.part.v1',
      queue: 'wff.parts',
      handle: (payload) => {
        if (payload.n < 0) throw new FatalError('negative');
        return payload.n;
      },
    });
    const whole = defineJob<{ label: string }>({
      type: 'wff.whole.v1',
      queue: 'wff.wholes',
      handle: () => 'done',
    });
    const jobs = [part, whole];

    /** Waits until bulk action `id` has finished, and returns it. */
    function finished(chokaq: ChokaQ, id: string): Promise<BulkAction> {
      return waitFor(
        async () => {
          const action = await chokaq.bulk.get(id);
          return action && action.status !== 'running' && action.status !== 'previewed'
            ? action
            : undefined;
        },
        { timeoutMs: 20_000, message: `bulk action ${id} to finish` },
      );
    }

    it('shows the whole flow from any of its jobs, layered, with each job where it is', async () => {
      const chokaq = await started(await factory.make(), { jobs, concurrency: 2 });
      const ids = { a: '', b: '', dies: '', c: '', d: '' };
      await chokaq.enqueueWorkflow((workflow) => {
        ids.a = workflow.add(part, { n: 1 });
        ids.b = workflow.add(part, { n: 2 }, { dependsOn: [ids.a], delay: '1h' });
        ids.dies = workflow.add(part, { n: -1 }, { dependsOn: [ids.a] });
        ids.c = workflow.add(
          whole,
          { label: 'c' },
          { dependsOn: [ids.b, { id: ids.dies, onDeath: 'skip' }] },
        );
        ids.d = workflow.add(whole, { label: 'd' }, { dependsOn: [ids.c] });
      });
      await waitForJob(chokaq, ids.dies, 'dead', { timeoutMs: 15_000 });
      const flow = await chokaq.jobs.flow(ids.d);
      expect(flow).toMatchObject({ id: ids.d, truncated: false, limit: 1000 });
      expect(flow?.nodes.map((n) => [n.id, n.depth, n.state])).toEqual([
        [ids.a, 0, 'succeeded'],
        ...[
          [ids.b, 1, 'scheduled'],
          [ids.dies, 1, 'dead'],
        ].sort((x, y) => (String(x[0]) < String(y[0]) ? -1 : 1)),
        [ids.c, 2, 'awaiting'],
        [ids.d, 3, 'awaiting'],
      ]);
      expect(flow?.nodes.find((n) => n.id === ids.dies)).toMatchObject({
        type: 'wff.part.v1',
        queue: 'wff.parts',
        reason: 'Fatal',
        attempts: 1,
      });
      expect(flow?.edges).toHaveLength(5);
      expect((await chokaq.jobs.flow(ids.a))?.nodes.map((n) => n.id)).toEqual(
        flow?.nodes.map((n) => n.id),
      );
      const cut = await chokaq.jobs.flow(ids.d, { limit: 2 });
      expect([cut?.truncated, cut?.limit, cut?.nodes.map((n) => n.id)]).toEqual([
        true,
        2,
        [ids.c, ids.d],
      ]);
      // A job with no dependencies is a flow of itself; an unknown one is null, as jobs.get.
      const lone = await chokaq.enqueue(part, { n: 5 }, { delay: '1h' });
      expect((await chokaq.jobs.flow(lone.id))?.nodes.map((n) => n.id)).toEqual([lone.id]);
      expect(await chokaq.jobs.flow('no-such-job')).toBeNull();
      await expect(chokaq.jobs.flow('')).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_JOB_ID',
        field: 'id',
      });
      for (const limit of [0, 1001, 1.5, '10']) {
        await expect(
          chokaq.jobs.flow(ids.d, { limit } as unknown as { limit: number }),
        ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'options.limit' });
      }
      await expect(
        chokaq.jobs.flow(ids.d, { depth: 2 } as unknown as { limit: number }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_UNKNOWN_OPTION' });
    });

    it('cancels a whole flow with one bulk action, then resurrects its dead jobs, which resumes it', async () => {
      const chokaq = await started(await factory.make(), { jobs, concurrency: 2 });
      const ids = { done: '', later: '', merge: '', top: '', stranger: '' };
      await chokaq.enqueueWorkflow((workflow) => {
        ids.done = workflow.add(part, { n: 1 });
        ids.later = workflow.add(part, { n: 2 }, { delay: '1h' });
        ids.merge = workflow.add(whole, { label: 'merge' }, { dependsOn: [ids.done, ids.later] });
        ids.top = workflow.add(whole, { label: 'top' }, { dependsOn: [ids.merge] });
      });
      ids.stranger = (await chokaq.enqueue(part, { n: 3 }, { delay: '1h' })).id;
      await waitForJob(chokaq, ids.done, 'succeeded', { timeoutMs: 15_000 });

      const selected = await chokaq.bulk.select({ action: 'cancel', target: { flow: ids.top } });
      expect([selected.count, selected.notFound]).toEqual([3, []]);
      const cancel = await chokaq.bulk.preview({ action: 'cancel', target: { flow: ids.merge } });
      expect(cancel.sample.map((job) => job.id).sort()).toEqual(
        [ids.later, ids.merge, ids.top].sort(),
      );
      await chokaq.bulk.run(cancel.token, { actor: 'ana', reason: 'the album was withdrawn' });
      expect(await finished(chokaq, cancel.id)).toMatchObject({ status: 'succeeded', applied: 3 });
      const states = async () =>
        Object.fromEntries(
          ((await chokaq.jobs.flow(ids.top))?.nodes ?? []).map((n) => [n.id, n.state]),
        );
      expect(await states()).toEqual({
        [ids.done]: 'succeeded',
        [ids.later]: 'dead',
        [ids.merge]: 'dead',
        [ids.top]: 'dead',
      });
      expect((await chokaq.jobs.get(ids.stranger))?.state).toBe('scheduled');

      const back = await chokaq.bulk.preview({ action: 'resurrect', target: { flow: ids.done } });
      expect(back.count).toBe(3);
      await chokaq.bulk.run(back.token, { actor: 'ana', reason: 'published after all' });
      expect(await finished(chokaq, back.id)).toMatchObject({ applied: 3 });
      await waitForJob(chokaq, ids.top, 'succeeded', { timeoutMs: 15_000 });
      expect(await states()).toEqual({
        [ids.done]: 'succeeded',
        [ids.later]: 'succeeded',
        [ids.merge]: 'succeeded',
        [ids.top]: 'succeeded',
      });
    });

    it('runs a job a bulk cancel released at once, not at the next poll', async () => {
      const chokaq = await started(await factory.make(), { jobs, pollInterval: '1m' });
      const ids = { blocker: '', waiting: '' };
      await chokaq.enqueueWorkflow((workflow) => {
        ids.blocker = workflow.add(part, { n: 1 }, { delay: '1h' });
        ids.waiting = workflow.add(
          whole,
          { label: 'anyway' },
          { dependsOn: [{ id: ids.blocker, onDeath: 'skip' }] },
        );
      });
      // Every claim since found nothing: the worker sleeps for a minute unless something wakes it.
      const cancel = await chokaq.bulk.preview({
        action: 'cancel',
        target: { ids: [ids.blocker] },
      });
      await chokaq.bulk.run(cancel.token, { actor: 'ana', reason: 'not needed' });
      await waitForJob(chokaq, ids.waiting, 'succeeded', { timeoutMs: 15_000 });
    });

    it('refuses a bad flow target, and names a job no table holds as not found', async () => {
      const chokaq = await started(await factory.make(), { jobs });
      await expect(
        chokaq.bulk.select({ action: 'cancel', target: { flow: '' } }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_JOB_ID', field: 'request.target.flow' });
      await expect(
        chokaq.bulk.select({ action: 'purge', target: { flow: 'x', ids: ['x'] } }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'request.target' });
      expect(
        await chokaq.bulk.select({ action: 'resurrect', target: { flow: 'no-such-job' } }),
      ).toMatchObject({ count: 0, notFound: ['no-such-job'] });
    });
  });
}
