/**
 * Conformance of jobs that wait for other jobs (`NewJob.dependsOn`, `store.workflows`): an
 * enqueue links them in its own atomic step and refuses unknown dependencies; a waiting job is
 * `awaiting` and never claimed; the resolver releases, fails or keeps it as the policies say;
 * a job others depend on is archived even where its queue keeps no rows. Registered by
 * `describeStoreConformance` in suite.ts.
 */
import { describe, expect, it } from 'vitest';
import type { DependencyPolicy } from '../../src/job/dependencies.js';
import type { ClaimedJob, NewJob } from '../../src/storage/model.js';
import type { ConformanceContext } from './context.js';
import { leaseOf, newJob } from './helpers.js';
import { describeWorkflowGraph } from './workflow-graph.js';

/** Registers the workflow conformance tests; call inside the provider's `describe`. */
export function describeWorkflows(ctx: ConformanceContext): void {
  const { hot, dead } = ctx;

  /** A job of `queue` that waits for `ids` under `onDeath`. */
  function waiting(
    queue: string,
    ids: readonly string[],
    onDeath: DependencyPolicy = 'fail',
  ): NewJob {
    return newJob({ queue, dependsOn: ids.map((id) => ({ id, onDeath })) });
  }

  /** Claims and starts every due job of `queue`. */
  async function runAll(queue: string): Promise<ClaimedJob[]> {
    const store = ctx.store();
    const claimed = await store.jobs.claim({ workerId: 'w', limit: 100, queues: [queue] });
    return store.jobs.start(claimed.map(leaseOf));
  }

  /** Runs every due job of `queue` to the archive (with `result`), or to the DLQ. */
  async function finishAll(queue: string, how: 'archive' | 'dead'): Promise<string[]> {
    const started = await runAll(queue);
    await ctx
      .store()
      .jobs.settle(
        started.map((job) =>
          how === 'archive'
            ? { kind: 'archive', lease: leaseOf(job), durationMs: 1, result: `"${job.id}"` }
            : { kind: 'dead', lease: leaseOf(job), reason: 'Fatal', error: 'Error: boom' },
        ),
      );
    return started.map((job) => job.id);
  }

  describe('workflows', () => {
    it('keeps a job awaiting, unclaimed, until its dependencies succeed, then releases it', async () => {
      const store = ctx.store();
      const a = newJob({ queue: 'wf-a' });
      const b = newJob({ queue: 'wf-a' });
      const merge = waiting('wf-merge', [a.id, b.id]);
      await store.jobs.enqueue([a, b, merge]);
      expect((await hot(merge.id)).state).toBe('awaiting');
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['wf-merge'] })).toEqual(
        [],
      );
      expect((await ctx.statsOf('wf-merge')).awaiting).toBe(1);

      // The claim tells the worker that others wait for these jobs.
      const [first, second] = await runAll('wf-a');
      expect([first?.hasDependents, second?.hasDependents]).toEqual([true, true]);
      await store.jobs.settle([{ kind: 'archive', lease: leaseOf(first!), durationMs: 1 }]);
      expect((await hot(merge.id)).state).toBe('awaiting');
      // The settle of the last one decides the waiting job (a resolve finds nothing left to do).
      await store.jobs.settle([{ kind: 'archive', lease: leaseOf(second!), durationMs: 1 }]);
      expect((await hot(merge.id)).state).toBe('pending');
      expect(await store.workflows.resolve({ dependenciesOf: [second!.id], limit: 10 })).toEqual({
        released: [],
        failed: [],
        next: null,
      });
      const [claimed] = await runAll('wf-merge');
      expect(claimed).toMatchObject({ id: merge.id, hasDependents: false });
    });

    it('archives a job others depend on even where its queue and type keep no rows', async () => {
      const store = ctx.store();
      await store.queues.updateQueue('wf-nokeep', { keepSucceeded: false });
      const child = newJob({ queue: 'wf-nokeep' });
      const plain = newJob({ queue: 'wf-nokeep' });
      const parent = waiting('wf-parent', [child.id]);
      await store.jobs.enqueue([child, plain, parent]);
      const started = await runAll('wf-nokeep');
      await store.jobs.settle(
        started.map((job) => ({
          kind: 'archive' as const,
          lease: leaseOf(job),
          durationMs: 1,
          keep: false,
          result: '{"rows":3}',
        })),
      );
      expect(await store.operator.getJob(plain.id)).toBeNull();
      expect((await ctx.archived(child.id)).result).toBe('{"rows":3}');
      expect((await hot(parent.id)).state).toBe('pending');
      expect(await store.workflows.dependencies(parent.id)).toEqual([
        {
          id: child.id,
          onDeath: 'fail',
          state: 'succeeded',
          result: '{"rows":3}',
          reason: null,
          error: null,
        },
      ]);
    });

    it('releases a job at once whose dependencies finished before it was enqueued', async () => {
      const store = ctx.store();
      await store.jobs.enqueue([newJob({ queue: 'wf-done' })]);
      const [done] = await finishAll('wf-done', 'archive');
      const later = waiting('wf-later', [done!]);
      const delayed = { ...waiting('wf-later', [done!]), delayMs: 60_000 };
      await store.jobs.enqueue([later, delayed]);
      expect((await hot(later.id)).state).toBe('pending');
      expect((await hot(delayed.id)).state).toBe('scheduled');
    });

    it('fails a waiting job to the DLQ when a dependency dies under `fail`, naming it', async () => {
      const store = ctx.store();
      const child = newJob({ queue: 'wf-fail-c' });
      const parent = waiting('wf-fail-p', [child.id]);
      await store.jobs.enqueue([child, parent]);
      await finishAll('wf-fail-c', 'dead');
      const row = await dead(parent.id);
      expect(row).toMatchObject({ reason: 'DependencyFailed', startedAt: null });
      expect(row.errorDetails).toBe(`its dependency ${child.id} died`);
      expect((await ctx.statsOf('wf-fail-p')).failedTotal).toBe(1);
      expect(await store.workflows.dependencies(parent.id)).toEqual([
        {
          id: child.id,
          onDeath: 'fail',
          state: 'dead',
          result: null,
          reason: 'Fatal',
          error: 'Error: boom',
        },
      ]);
    });

    it('runs a job after the others when a dependency dies under `skip`', async () => {
      const store = ctx.store();
      const dies = newJob({ queue: 'wf-skip-c' });
      const slow = newJob({ queue: 'wf-skip-slow' });
      const parent = newJob({
        queue: 'wf-skip-p',
        dependsOn: [
          { id: dies.id, onDeath: 'skip' },
          { id: slow.id, onDeath: 'fail' },
        ],
      });
      await store.jobs.enqueue([dies, slow, parent]);
      await finishAll('wf-skip-c', 'dead');
      expect((await hot(parent.id)).state).toBe('awaiting');
      await finishAll('wf-skip-slow', 'archive');
      expect((await hot(parent.id)).state).toBe('pending');
    });

    it('makes a job due at once when a dependency dies under `continue`', async () => {
      const store = ctx.store();
      const dies = newJob({ queue: 'wf-cont-c' });
      const never = newJob({ queue: 'wf-cont-never' });
      const cleanup = newJob({
        queue: 'wf-cont-p',
        dependsOn: [
          { id: dies.id, onDeath: 'continue' },
          { id: never.id, onDeath: 'continue' },
        ],
      });
      await store.jobs.enqueue([dies, never, cleanup]);
      await finishAll('wf-cont-c', 'dead');
      expect((await hot(cleanup.id)).state).toBe('pending');
      expect((await hot(never.id)).state).toBe('pending');
    });

    it('counts a dependency purged from the DLQ as dead', async () => {
      const store = ctx.store();
      const dies = newJob({ queue: 'wf-purge-c' });
      const slow = newJob({ queue: 'wf-purge-slow' });
      const parent = newJob({
        queue: 'wf-purge-p',
        dependsOn: [
          { id: dies.id, onDeath: 'skip' },
          { id: slow.id, onDeath: 'fail' },
        ],
      });
      await store.jobs.enqueue([dies, slow, parent]);
      await finishAll('wf-purge-c', 'dead');
      expect(await store.operator.purgeDead([dies.id])).toBe(1);
      expect((await store.workflows.dependencies(parent.id))[0]).toMatchObject({
        id: dies.id,
        state: 'purged',
      });
      await finishAll('wf-purge-slow', 'archive');
      expect((await hot(parent.id)).state).toBe('pending');
    });

    it('links a chain in one call: the middle job waits and is waited for', async () => {
      const store = ctx.store();
      const a = newJob({ queue: 'wf-chain' });
      const b = waiting('wf-chain', [a.id]);
      const c = waiting('wf-chain', [b.id]);
      await store.jobs.enqueue([a, b, c]);
      expect((await hot(b.id)).state).toBe('awaiting');
      expect((await hot(b.id)).hasDependents).toBe(true);
      expect((await hot(c.id)).hasDependents).toBe(false);
      await finishAll('wf-chain', 'archive');
      const [second] = await runAll('wf-chain');
      expect(second).toMatchObject({ id: b.id, hasDependents: true });
    });

    it('runs a death up a chain under `fail`, and resolves when a job leaves by rescue or cancel', async () => {
      const store = ctx.store();
      const a = newJob({ queue: 'wf-up' });
      const b = waiting('wf-up-b', [a.id]);
      const c = waiting('wf-up-c', [b.id]);
      const d = waiting('wf-up-d', [c.id], 'skip');
      await store.jobs.enqueue([a, b, c, d]);
      // A cancel moves the job to the DLQ and decides its dependents in the same call.
      expect((await store.jobs.cancel([a.id], 'ops')).cancelled).toEqual([a.id]);
      expect((await dead(b.id)).reason).toBe('DependencyFailed');
      expect((await dead(c.id)).errorDetails).toBe(`its dependency ${b.id} died`);
      expect((await hot(d.id)).state).toBe('pending');
    });

    it('decides the dependents of a job a settle moved, in the settle', async () => {
      const store = ctx.store();
      const child = newJob({ queue: 'wf-settle-c' });
      const parent = waiting('wf-settle-p', [child.id]);
      await store.jobs.enqueue([child, parent]);
      await finishAll('wf-settle-c', 'archive');
      expect((await hot(parent.id)).state).toBe('pending');
    });

    it("keeps an awaited dependency's archive row from retention; a purged job's dependencies go", async () => {
      const store = ctx.store();
      const done = newJob({ queue: 'wf-ret-c' });
      const slow = newJob({ queue: 'wf-ret-slow' });
      const parent = waiting('wf-ret-p', [done.id, slow.id]);
      await store.jobs.enqueue([done, slow, parent]);
      await finishAll('wf-ret-c', 'archive');
      await ctx.storeTimePasses((await store.cluster.now()).getTime() + 5_000);
      const rule = { table: 'archive', olderThanMs: 1_000, queue: 'wf-ret-c' } as const;
      expect(await store.retention.countPurgeable(rule)).toBe(0);
      expect(await store.retention.purgeBatch(rule, 100)).toBe(0);
      // Once nothing waits for it, it goes as any archived job.
      await finishAll('wf-ret-slow', 'dead');
      expect((await dead(parent.id)).reason).toBe('DependencyFailed');
      expect(await store.retention.countPurgeable(rule)).toBe(1);
      expect(await store.retention.purgeBatch(rule, 100)).toBe(1);
      expect((await store.workflows.dependencies(parent.id)).map((d) => d.state)).toEqual([
        'purged',
        'dead',
      ]);
      expect(await store.operator.purgeDead([parent.id])).toBe(1);
      expect(await store.workflows.dependencies(parent.id)).toEqual([]);
    });

    it('resumes a workflow when a dead dependency is resurrected: the jobs that failed come back', async () => {
      const store = ctx.store();
      const a = newJob({ queue: 'wf-res-a' });
      const b = waiting('wf-res-b', [a.id]);
      const c = waiting('wf-res-c', [b.id]);
      await store.jobs.enqueue([a, b, c]);
      await finishAll('wf-res-a', 'dead');
      expect((await dead(c.id)).reason).toBe('DependencyFailed');
      expect(await store.operator.resurrect([a.id], { actor: 'ops' })).toEqual([a.id]);
      expect((await hot(a.id)).hasDependents).toBe(true);
      for (const id of [b.id, c.id]) {
        expect(await hot(id)).toMatchObject({ state: 'awaiting', lastModifiedBy: 'ops' });
      }
      expect(await store.operator.getJob(b.id)).toMatchObject({ where: 'hot' });
      await finishAll('wf-res-a', 'archive');
      expect((await hot(b.id)).state).toBe('pending');
      expect((await hot(c.id)).state).toBe('awaiting');
    });

    it('refuses an unknown dependency and writes nothing', async () => {
      const store = ctx.store();
      const other = newJob({ queue: 'wf-unknown' });
      const job = waiting('wf-unknown', ['no-such-job']);
      await expect(store.jobs.enqueue([other, job])).rejects.toMatchObject({
        code: 'CHOKAQ_UNKNOWN_DEPENDENCY',
        field: 'dependsOn',
      });
      expect(await store.operator.getJob(other.id)).toBeNull();
      expect(await store.operator.getJob(job.id)).toBeNull();
    });

    it('points a dependency on a deduplicated job of the call at the job holding its key', async () => {
      const store = ctx.store();
      const holder = newJob({ queue: 'wf-key', idempotencyKey: 'wf-k' });
      await store.jobs.enqueue([holder]);
      const again = newJob({ queue: 'wf-key', idempotencyKey: 'wf-k' });
      const parent = waiting('wf-key-p', [again.id]);
      const results = await store.jobs.enqueue([again, parent]);
      expect(results).toEqual([
        { id: holder.id, created: false },
        { id: parent.id, created: true },
      ]);
      expect((await store.workflows.dependencies(parent.id)).map((d) => d.id)).toEqual([holder.id]);
      expect((await hot(holder.id)).hasDependents).toBe(true);
    });

    it('passes over jobs with nothing to decide: a dependency still runs, none died under fail or continue', async () => {
      const store = ctx.store();
      const done = newJob({ queue: 'wf-pass-done' });
      const child = newJob({ queue: 'wf-pass-c' });
      await store.jobs.enqueue([done, child]);
      await finishAll('wf-pass-done', 'archive');
      const parents: NewJob[] = [];
      for (let i = 0; i < 3; i++) {
        const parent = waiting('wf-pass-p', [done.id, child.id]);
        parents.push(parent);
        await store.jobs.enqueue([parent, waiting('wf-pass-q', [child.id])]);
      }
      // Each waits for a running job and one that succeeded: nothing to decide, none looked at
      // (a page of 2 would otherwise end at the second and name it `next`).
      expect(await store.workflows.resolve({ limit: 2 })).toEqual({
        released: [],
        failed: [],
        next: null,
      });
      const [running] = await runAll('wf-pass-c');
      // A running job gets a cancel request; its worker's settle moves it to the DLQ.
      await store.jobs.cancel([running!.id], 'ops');
      await store.jobs.settle([
        { kind: 'dead', lease: leaseOf(running!), reason: 'Cancelled', error: 'Cancelled by ops' },
      ]);
      for (const parent of parents) expect((await dead(parent.id)).reason).toBe('DependencyFailed');
    });
  });
  describeWorkflowGraph(ctx);
}
