/**
 * Workflows end to end on every provider: `enqueueWorkflow` with fan-out and fan-in, a parent
 * that reads its children's results with `ctx.dependencies()`, the death policies as a handler
 * sees them, dependencies on jobs of earlier calls, and the coded errors of bad input, which
 * write nothing.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, FatalError, type JobDependency } from '../../src/index.js';
import { waitForJob } from '../../src/testing/index.js';
import { useEngines } from './engines.js';
import type { EngineStoreFactory } from './suite.js';

/** Registers the workflow tests of one provider. */
export function describeWorkflows(name: string, factory: EngineStoreFactory): void {
  describe(`workflows on ${name}`, () => {
    const { started } = useEngines(name, factory);

    const finished: string[] = [];
    const square = defineJob<{ n: number }>({
      type: 'wf.square.v1',
      queue: 'wf.parts',
      handle: (payload, ctx) => {
        finished.push(ctx.id);
        return payload.n * payload.n;
      },
    });
    const broken = defineJob<{ why: string }>({
      type: 'wf.broken.v1',
      queue: 'wf.parts',
      handle: (payload) => {
        throw new FatalError(payload.why);
      },
    });
    const seen = new Map<string, JobDependency[]>();
    const sum = defineJob<{ label: string }>({
      type: 'wf.sum.v1',
      queue: 'wf.sums',
      handle: async (_payload, ctx) => {
        const dependencies = await ctx.dependencies();
        seen.set(ctx.id, dependencies);
        // Every dependency finished before this run began.
        expect(dependencies.every((d) => d.state === 'succeeded' || d.state === 'dead')).toBe(true);
        return dependencies.reduce(
          (total, d) => total + (typeof d.result === 'number' ? d.result : 0),
          0,
        );
      },
    });
    const jobs = [square, broken, sum];

    it('fans out and in: the parent runs after all its children and reads their results', async () => {
      const chokaq = await started(await factory.make(), { jobs, concurrency: 4 });
      let children: string[] = [];
      let parent = '';
      const results = await chokaq.enqueueWorkflow((workflow) => {
        children = [1, 2, 3, 4, 5].map((n) => workflow.add(square, { n }));
        parent = workflow.add(sum, { label: 'total' }, { dependsOn: children });
      });
      expect(results.map((r) => r.id)).toEqual([...children, parent]);
      const archived = await waitForJob(chokaq, parent, 'succeeded', { timeoutMs: 15_000 });
      expect(archived.result).toBe('55');
      expect(seen.get(parent)?.map((d) => [d.id, d.result])).toEqual(
        children.map((id, i) => [id, (i + 1) ** 2]),
      );
      for (const child of children) {
        const done = await waitForJob(chokaq, child, 'succeeded');
        expect(done.finishedAt.getTime()).toBeLessThanOrEqual(archived.startedAt!.getTime());
      }
      // The operator's detail shows both ends of each edge.
      const detail = await chokaq.jobs.get(parent);
      expect(detail?.dependencies.map((d) => [d.id, d.state, d.onDeath])).toEqual(
        children.map((id) => [id, 'succeeded', 'fail']),
      );
      expect(detail?.dependents).toEqual([]);
      expect((await chokaq.jobs.get(children[0]!))?.dependents).toEqual([parent]);
    });

    it("applies each dependency's death policy: fail to the DLQ, continue with the rest", async () => {
      const chokaq = await started(await factory.make(), { jobs, concurrency: 4 });
      let failing = '';
      let cleanup = '';
      let ok = '';
      await chokaq.enqueueWorkflow((workflow) => {
        ok = workflow.add(square, { n: 3 });
        const dies = workflow.add(broken, { why: 'no disk' });
        failing = workflow.add(sum, { label: 'fails' }, { dependsOn: [ok, dies] });
        cleanup = workflow.add(
          sum,
          { label: 'cleans up' },
          { dependsOn: [ok, { id: dies, onDeath: 'skip' }] },
        );
      });
      const dead = await waitForJob(chokaq, failing, 'dead', { timeoutMs: 15_000 });
      expect(dead.reason).toBe('DependencyFailed');
      expect(dead.errorDetails).toMatch(/^its dependency .+ died$/);
      const cleaned = await waitForJob(chokaq, cleanup, 'succeeded', { timeoutMs: 15_000 });
      expect(cleaned.result).toBe('9');
      const [first, second] = seen.get(cleanup) ?? [];
      expect(first).toMatchObject({ id: ok, state: 'succeeded', result: 9 });
      expect(second).toMatchObject({ state: 'dead', reason: 'Fatal', result: undefined });
      expect(second?.error).toContain('no disk');
    });

    it('waits for a job of an earlier call, and for one that finished already', async () => {
      const chokaq = await started(await factory.make(), { jobs, concurrency: 2 });
      const first = await chokaq.enqueue(square, { n: 6 });
      await waitForJob(chokaq, first.id, 'succeeded', { timeoutMs: 15_000 });
      const second = await chokaq.enqueue(square, { n: 7 });
      const both = await chokaq.enqueue(
        sum,
        { label: 'later' },
        { dependsOn: [first.id, second.id] },
      );
      const done = await waitForJob(chokaq, both.id, 'succeeded', { timeoutMs: 15_000 });
      expect(done.result).toBe(String(36 + 49));
    });

    it('decides the jobs waiting for jobs a bulk cancel moved, and a bulk resurrect brings them back', async () => {
      const chokaq = await started(await factory.make(), { jobs, concurrency: 2 });
      let later = '';
      let parent = '';
      await chokaq.enqueueWorkflow((workflow) => {
        later = workflow.add(square, { n: 2 }, { delay: '1h' });
        parent = workflow.add(sum, { label: 'never' }, { dependsOn: [later] });
      });
      const cancel = await chokaq.bulk.preview({ action: 'cancel', target: { ids: [later] } });
      await chokaq.bulk.run(cancel.token, { actor: 'ana', reason: 'not needed' });
      const failed = await waitForJob(chokaq, parent, 'dead', { timeoutMs: 15_000 });
      expect(failed.reason).toBe('DependencyFailed');
      const back = await chokaq.bulk.preview({ action: 'resurrect', target: { ids: [later] } });
      await chokaq.bulk.run(back.token, { actor: 'ana', reason: 'needed after all' });
      // The parent comes back with it, and runs once it succeeded.
      const done = await waitForJob(chokaq, parent, 'succeeded', { timeoutMs: 15_000 });
      expect(done.result).toBe('4');
    });

    it('refuses cycles, unknown and repeated dependencies and bad policies, writing nothing', async () => {
      const chokaq = await started(await factory.make(), { jobs });
      const count = async (): Promise<number> =>
        (await chokaq.queues.stats()).reduce(
          (n, s) => n + s.awaiting + s.pending + s.scheduled + s.archived + s.dead,
          0,
        );
      const cycle: unknown = await chokaq
        .enqueueWorkflow((workflow) => {
          workflow.add(square, { n: 1 }, { id: 'wf-a', dependsOn: ['wf-c'] });
          workflow.add(square, { n: 2 }, { id: 'wf-b', dependsOn: ['wf-a'] });
          workflow.add(square, { n: 3 }, { id: 'wf-c', dependsOn: ['wf-b'] });
        })
        .catch((error: unknown) => error);
      expect(cycle).toMatchObject({ code: 'CHOKAQ_DEPENDENCY_CYCLE', field: 'dependsOn' });
      expect((cycle as Error).message).toContain('wf-a → wf-c → wf-b → wf-a');
      await expect(
        chokaq.enqueue(square, { n: 1 }, { dependsOn: ['nobody'] }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_UNKNOWN_DEPENDENCY', field: 'dependsOn' });
      await expect(
        chokaq.enqueue(square, { n: 1 }, { id: 'wf-self', dependsOn: ['wf-self'] }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'options.dependsOn[0]' });
      await expect(
        chokaq.enqueueWorkflow((workflow) => {
          const a = workflow.add(square, { n: 1 });
          workflow.add(sum, { label: 'x' }, { dependsOn: [a, { id: a, onDeath: 'skip' }] });
        }),
      ).rejects.toMatchObject({ field: 'workflow[1].dependsOn[1]' });
      await expect(
        chokaq.enqueueWorkflow((workflow) => {
          const a = workflow.add(square, { n: 1 });
          // @ts-expect-error: not a policy
          workflow.add(sum, { label: 'x' }, { dependsOn: [{ id: a, onDeath: 'ignore' }] });
        }),
      ).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
        field: 'workflow[1].dependsOn[0].onDeath',
      });
      expect(await count()).toBe(0);
    });
  });
}
