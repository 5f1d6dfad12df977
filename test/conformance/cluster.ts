/**
 * Conformance of the `ClusterStore`, what the processes of one deployment share: wake-ups
 * (`listen`: a listener hears the queue of an enqueue, and of a settle that frees a capped slot,
 * and nothing once unsubscribed), the channel of cross-process events (`broadcast` / `subscribe`:
 * a message reaches every subscriber — the sender's own too — in order), leases (`takeLease`: one
 * holder until the lease expires) and the store's clock (`now`). Worker presence
 * (`recordWorker`, `listWorkers`) has no conformance tests yet. Registered by
 * `describeStoreConformance` (suite.ts) for every provider.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ClusterStore } from '../../src/storage/cluster-store.js';
import type { Store } from '../../src/storage/store.js';
import { waitFor } from '../helpers/wait.js';
import type { ConformanceContext } from './context.js';
import { leaseOf, newJob, waitUntil } from './helpers.js';

/** The store's `listen`, bound, if it has one. */
function listenOf(store: Store): ClusterStore['listen'] {
  return store.cluster.listen?.bind(store.cluster);
}

/** Registers the cluster-store conformance tests; call inside the provider's `describe`. */
export function describeClusterStore(ctx: ConformanceContext): void {
  const { enqueueOne, processing, storeTimePasses } = ctx;
  const name = ctx.provider;

  /** The current test's store: the suite opens a new one before each test. */
  let store: Store;
  beforeEach(() => {
    store = ctx.store();
  });

  describe('broadcast', () => {
    it('delivers each message to every subscriber, in order; stops after unsubscribe', async () => {
      const store = ctx.store();
      const first: string[] = [];
      const second: string[] = [];
      const stopFirst = await store.cluster.subscribe((m) => first.push(m));
      const stopSecond = await store.cluster.subscribe((m) => second.push(m));
      await store.cluster.broadcast('one');
      await store.cluster.broadcast('two {"json":true}');
      await waitFor(() => first.length === 2 && second.length === 2, {
        message: 'both messages at both subscribers',
      });
      expect(first).toEqual(['one', 'two {"json":true}']);
      expect(second).toEqual(first);
      await stopFirst();
      await store.cluster.broadcast('three');
      await waitFor(() => second.length === 3, { message: 'the third message' });
      expect(first).toHaveLength(2);
      await stopSecond();
    });
  });

  // Named as before the suite was split by capability, so that the tests keep their full names;
  // the store's open and close, the rest of the block, are suite.ts.
  describe('listen and lifecycle', () => {
    it('wakes listeners with the queue after an enqueue', async (context) => {
      if (!store.cluster.listen) context.skip(`${name} has no listen()`);
      const listen = store.cluster.listen?.bind(store.cluster);
      if (!listen) return;
      const woken: string[] = [];
      const unlisten = await listen((queue) => woken.push(queue));
      try {
        await enqueueOne({ queue: 'wake' });
        expect(await waitUntil(() => woken.includes('wake'), 1_500)).toBe(true);
      } finally {
        await unlisten();
      }
      // Once unsubscribed, later enqueues no longer call it: a second subscriber hears the
      // next wake-up, the first one does not.
      const heard: string[] = [];
      const stopHearing = await listen((queue) => heard.push(queue));
      try {
        await enqueueOne({ queue: 'after' });
        expect(await waitUntil(() => heard.includes('after'), 1_500)).toBe(true);
      } finally {
        await stopHearing();
      }
      expect(woken).not.toContain('after');
    });

    it('wakes listeners once the job can be claimed, for every enqueue of a busy queue', async (context) => {
      if (!store.cluster.listen) context.skip(`${name} has no listen()`);
      const listen = store.cluster.listen?.bind(store.cluster);
      if (!listen) return;
      // Each wake-up claims at once, as a worker does: the jobs it announces must be visible.
      const claimed: string[] = [];
      const claims: Promise<unknown>[] = [];
      const unlisten = await listen((queue) => {
        if (queue !== 'visible') return;
        claims.push(
          store.jobs
            .claim({ workerId: 'w', limit: 10, queues: ['visible'] })
            .then((rows) => claimed.push(...rows.map((row) => row.id))),
        );
      });
      try {
        // A quiet queue, then two enqueues at once and a failed one (a duplicate id) in between:
        // whichever wake-ups are carried by the insert or sent after it, none is lost.
        const first = await enqueueOne({ queue: 'visible' });
        expect(await waitUntil(() => claimed.includes(first), 1_500)).toBe(true);
        const both = await Promise.all([
          enqueueOne({ queue: 'visible' }),
          enqueueOne({ queue: 'visible' }),
        ]);
        await expect(
          store.jobs.enqueue([newJob({ id: first, queue: 'visible' })]),
        ).rejects.toThrow();
        const last = await enqueueOne({ queue: 'visible' });
        const all = [first, ...both, last];
        expect(await waitUntil(() => all.every((id) => claimed.includes(id)), 1_500)).toBe(true);
        await Promise.all(claims);
      } finally {
        await unlisten();
      }
    });

    it('reports its clock', async () => {
      const first = await store.cluster.now();
      expect(first).toBeInstanceOf(Date);
      expect(Math.abs(first.getTime() - Date.now())).toBeLessThan(5_000);
      // The clock it was given: moved, it reads the new time (the SQL stores in a statement).
      await storeTimePasses(first.getTime() + 60_000);
      expect((await store.cluster.now()).getTime()).toBe(first.getTime() + 60_001);
    });
  });

  describe('wake-ups', () => {
    it('wakes listeners of a capped queue when a settle frees one of its slots', async (context) => {
      const store = ctx.store();
      const listen = listenOf(store);
      if (!listen) return context.skip('this provider has no listen()');
      await store.queues.updateQueue('narrow', { maxWorkers: 1 });
      const [job] = await processing('narrow', 1);
      if (!job) throw new Error('nothing claimed');
      const woken: string[] = [];
      const unlisten = await listen((queue) => woken.push(queue));
      try {
        await store.jobs.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 1 }]);
        // The settling store's own listeners are told before settle returns (no NOTIFY trip).
        expect(woken).toContain('narrow');
      } finally {
        await unlisten();
      }
    });
  });

  // The lease the retention loop takes (one purging process), tested where retention used to be
  // and named so still, so that the test keeps its full name.
  describe('retention', () => {
    it('gives a lease to one holder until it expires', async () => {
      const store = ctx.store();
      expect(await store.cluster.takeLease('duty', 'a', 60_000)).toBe(true);
      expect(await store.cluster.takeLease('duty', 'b', 60_000)).toBe(false);
      expect(await store.cluster.takeLease('duty', 'a', 60_000)).toBe(true);
      expect(await store.cluster.takeLease('short', 'a', 1)).toBe(true);
      await storeTimePasses((await store.cluster.now()).getTime() + 5);
      expect(await store.cluster.takeLease('short', 'b', 60_000)).toBe(true);
      expect(await store.cluster.takeLease('short', 'a', 60_000)).toBe(false);
    });
  });
}
