/**
 * Conformance of `store.workflows.graph`: the workflow a job belongs to, walked both ways from any
 * of its jobs, each job where it is now (purged ones included while an edge names them), bounded
 * with `truncated`; retention, which never leaves a waiting job's edge pointing at nothing; and
 * the queue gauges, which count awaiting jobs apart.
 * Registered by `describeWorkflows` (workflows.ts).
 */
import { describe, expect, it } from 'vitest';
import type { NewJob } from '../../src/storage/model.js';
import type { WorkflowGraph } from '../../src/storage/workflow-store.js';
import type { ConformanceContext } from './context.js';
import { leaseOf, newJob } from './helpers.js';

/** The graph's jobs as `id → state`, and its edges sorted, to compare across stores. */
function shape(graph: WorkflowGraph) {
  return {
    states: Object.fromEntries(graph.nodes.map((node) => [node.id, node.state])),
    edges: graph.edges.map((e) => `${e.dependency}->${e.dependent}:${e.onDeath}`).sort(),
    truncated: graph.truncated,
  };
}

/** Registers the tests of the workflow graph; call inside the workflows `describe`. */
export function describeWorkflowGraph(ctx: ConformanceContext): void {
  /** Runs every due job of `queue` to the archive, or to the DLQ. */
  async function finishAll(queue: string, how: 'archive' | 'dead'): Promise<void> {
    const store = ctx.store();
    const claimed = await store.jobs.claim({ workerId: 'w', limit: 100, queues: [queue] });
    const started = await store.jobs.start(claimed.map(leaseOf));
    await store.jobs.settle(
      started.map((job) =>
        how === 'archive'
          ? { kind: 'archive', lease: leaseOf(job), durationMs: 1 }
          : { kind: 'dead', lease: leaseOf(job), reason: 'Fatal', error: 'Error: boom\n    at x' },
      ),
    );
  }

  describe('workflow graph', () => {
    it('walks a fan-out and fan-in both ways from any of its jobs, each job where it is now', async () => {
      const store = ctx.store();
      const root = newJob({ queue: 'wg-root', type: 'wg.root' });
      const left = newJob({ queue: 'wg-left', dependsOn: [{ id: root.id, onDeath: 'fail' }] });
      const right = newJob({ queue: 'wg-right', dependsOn: [{ id: root.id, onDeath: 'fail' }] });
      const merge = newJob({
        queue: 'wg-merge',
        dependsOn: [
          { id: left.id, onDeath: 'fail' },
          { id: right.id, onDeath: 'skip' },
        ],
      });
      const stranger = newJob({ queue: 'wg-root' });
      await store.jobs.enqueue([root, left, right, merge, stranger]);
      const first = await store.workflows.graph(merge.id, 100);
      expect(shape(first)).toEqual({
        states: {
          [root.id]: 'pending',
          [left.id]: 'awaiting',
          [right.id]: 'awaiting',
          [merge.id]: 'awaiting',
        },
        edges: [
          `${left.id}->${merge.id}:fail`,
          `${right.id}->${merge.id}:skip`,
          `${root.id}->${left.id}:fail`,
          `${root.id}->${right.id}:fail`,
        ].sort(),
        truncated: false,
      });
      expect(first.nodes[0]?.id).toBe(merge.id);
      expect(first.nodes.find((n) => n.id === root.id)).toMatchObject({
        queue: 'wg-root',
        type: 'wg.root',
        attempts: 0,
        reason: null,
        finishedAt: null,
      });

      await finishAll('wg-root', 'archive');
      await finishAll('wg-left', 'dead');
      const later = await store.workflows.graph(right.id, 100);
      expect(later.nodes[0]?.id).toBe(right.id);
      expect(shape(later).states).toEqual({
        [root.id]: 'succeeded',
        [left.id]: 'dead',
        [right.id]: 'pending',
        [merge.id]: 'dead',
      });
      const died = later.nodes.find((n) => n.id === left.id);
      expect(died).toMatchObject({ reason: 'Fatal', error: 'Error: boom', attempts: 1 });
      expect(died?.finishedAt).toBeInstanceOf(Date);
      expect(later.nodes.find((n) => n.id === merge.id)).toMatchObject({
        reason: 'DependencyFailed',
        error: `its dependency ${left.id} died`,
      });
      expect(shape(await store.workflows.graph(root.id, 100))).toEqual(shape(later));
    });

    it('is the job alone without dependencies; a job in no table is purged', async () => {
      const store = ctx.store();
      const id = await ctx.enqueueOne({ queue: 'wg-alone' });
      const alone = await store.workflows.graph(id, 10);
      expect(shape(alone)).toEqual({ states: { [id]: 'pending' }, edges: [], truncated: false });
      expect(alone.nodes[0]?.createdAt).toBeInstanceOf(Date);
      const nowhere = newJob().id;
      expect(await store.workflows.graph(nowhere, 10)).toEqual({
        nodes: [
          {
            id: nowhere,
            state: 'purged',
            queue: null,
            type: null,
            attempts: 0,
            createdAt: null,
            runAt: null,
            startedAt: null,
            finishedAt: null,
            reason: null,
            error: null,
          },
        ],
        edges: [],
        truncated: false,
      });
    });

    it('stops at the bound with `truncated`, keeping the job asked about and only edges among the jobs kept', async () => {
      const store = ctx.store();
      const children: NewJob[] = Array.from({ length: 5 }, () => newJob({ queue: 'wg-cap' }));
      const parent = newJob({
        queue: 'wg-cap-p',
        dependsOn: children.map((c) => ({ id: c.id, onDeath: 'fail' as const })),
      });
      await store.jobs.enqueue([...children, parent]);
      const cut = await store.workflows.graph(children[0]!.id, 3);
      expect(cut.truncated).toBe(true);
      expect(cut.nodes).toHaveLength(3);
      expect(cut.nodes[0]?.id).toBe(children[0]!.id);
      // Nearest first: the parent is one step away, its other children two.
      expect(cut.nodes.map((n) => n.id)).toContain(parent.id);
      const kept = new Set(cut.nodes.map((n) => n.id));
      expect(cut.edges).toHaveLength(2);
      for (const edge of cut.edges) {
        expect(kept.has(edge.dependency) && kept.has(edge.dependent)).toBe(true);
      }
      const exact = await store.workflows.graph(parent.id, 6);
      expect([exact.truncated, exact.nodes.length, exact.edges.length]).toEqual([false, 6, 5]);
      expect((await store.workflows.graph(parent.id, 5)).truncated).toBe(true);
    });

    it('shows a purged dependency as purged while a job still waits or waited for it', async () => {
      const store = ctx.store();
      const dies = newJob({ queue: 'wg-purge-c' });
      const parent = newJob({ queue: 'wg-purge-p', dependsOn: [{ id: dies.id, onDeath: 'skip' }] });
      await store.jobs.enqueue([dies, parent]);
      await finishAll('wg-purge-c', 'dead');
      expect(await store.operator.purgeDead([dies.id])).toBe(1);
      expect(shape(await store.workflows.graph(parent.id, 10))).toEqual({
        states: { [parent.id]: 'pending', [dies.id]: 'purged' },
        edges: [`${dies.id}->${parent.id}:skip`],
        truncated: false,
      });
    });

    it('counts awaiting jobs in the queue gauges, as neither due nor scheduled', async () => {
      const store = ctx.store();
      const child = newJob({ queue: 'wg-gauge-c', delayMs: 3_600_000 });
      const parents = [1, 2].map(() =>
        newJob({ queue: 'wg-gauge', dependsOn: [{ id: child.id, onDeath: 'fail' }] }),
      );
      await store.jobs.enqueue([child, ...parents, newJob({ queue: 'wg-gauge' })]);
      const gauges = new Map((await store.queues.queueGauges()).map((g) => [g.queue, g]));
      expect(gauges.get('wg-gauge')).toMatchObject({ awaiting: 2, due: 1, scheduled: 0 });
      expect(gauges.get('wg-gauge-c')).toMatchObject({ awaiting: 0, due: 0, scheduled: 1 });
      expect((await ctx.statsOf('wg-gauge')).awaiting).toBe(2);
    });

    it('leaves no edge of a waiting job pointing at nothing after retention of every table', async () => {
      const store = ctx.store();
      const done = newJob({ queue: 'wg-ret' });
      const slow = newJob({ queue: 'wg-ret-slow' });
      const parent = newJob({
        queue: 'wg-ret-p',
        dependsOn: [
          { id: done.id, onDeath: 'fail' },
          { id: slow.id, onDeath: 'fail' },
        ],
      });
      await store.jobs.enqueue([done, slow, parent]);
      await finishAll('wg-ret', 'archive');
      /** Runs archive and DLQ retention of the flow's queues as far as they go. */
      const purgeAll = async () => {
        await ctx.storeTimePasses((await store.cluster.now()).getTime() + 10_000);
        for (const table of ['archive', 'dlq'] as const) {
          for (const queue of ['wg-ret', 'wg-ret-slow', 'wg-ret-p']) {
            await store.retention.purgeBatch({ table, olderThanMs: 1_000, queue }, 100);
          }
        }
      };
      await purgeAll();
      // The parent still waits: the archived dependency it waits for stays.
      expect(shape(await store.workflows.graph(parent.id, 10)).states).toEqual({
        [done.id]: 'succeeded',
        [slow.id]: 'pending',
        [parent.id]: 'awaiting',
      });
      await finishAll('wg-ret-slow', 'dead');
      await purgeAll();
      // Everything aged out, with its edges: what is left of the flow is each job alone.
      for (const id of [done.id, slow.id, parent.id]) {
        const graph = await store.workflows.graph(id, 10);
        expect(shape(graph)).toEqual({ states: { [id]: 'purged' }, edges: [], truncated: false });
      }
    });
  });
}
