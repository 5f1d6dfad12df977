/**
 * Conformance tests of `settleAndClaim`: a settle that hands the capped slots it frees to the
 * settling worker (the next jobs are claimed for it in the same step, fetched, as a claim's),
 * never more than it freed nor past the cap, nothing from queues it may not take from, wake-ups
 * only where room is left, and a job it handed over and that never ran goes back to pending like
 * any stale claim. Registered by `describeStoreConformance` in
 * suite.ts for every provider.
 */
import { describe, expect, it } from 'vitest';
import type { HotJob } from '../../../src/storage/model.js';
import type { HandoffRequest } from '../../../src/storage/job-store.js';
import type { ConformanceContext } from '../context.js';
import { ids, leaseOf, newJob, waitUntil } from '../helpers.js';

/** Age of an untouched claim that counts as stale. */
const STALE_MS = 150;

/** A hand-off to worker `w2` of up to `limit` jobs of any served queue and type. */
function offer(limit = 1, overrides: Partial<HandoffRequest> = {}): HandoffRequest {
  return { workerId: 'w2', limit, queues: null, ...overrides };
}

/** Registers the hand-off conformance tests; call inside the provider's `describe`. */
export function describeHandoff(ctx: ConformanceContext): void {
  const { hot, archived, storeTimePasses } = ctx;

  /** Caps `queue`, enqueues `count` jobs in one call and starts the first `running` of them. */
  async function cappedQueue(
    queue: string,
    cap: number,
    count: number,
    running: number,
  ): Promise<{ started: HotJob[]; pending: string[] }> {
    const store = ctx.store();
    await store.queues.updateQueue(queue, { maxWorkers: cap });
    const jobs = Array.from({ length: count }, (_, i) =>
      newJob({ id: `${queue}-${String(i).padStart(2, '0')}`, queue }),
    );
    await store.jobs.enqueue(jobs);
    const claimed = await store.jobs.claim({ workerId: 'w1', limit: running, queues: [queue] });
    const started = await store.jobs.start(claimed.map(leaseOf));
    const pending = ids(jobs).filter((id) => !ids(started).includes(id));
    return { started: await Promise.all(started.map((job) => hot(job.id))), pending };
  }

  const archive = (job: HotJob) => ({
    kind: 'archive' as const,
    lease: leaseOf(job),
    durationMs: 1,
  });

  describe('settleAndClaim', () => {
    it("claims the freed slot's next job for the settling worker", async () => {
      const store = ctx.store();
      const { started, pending } = await cappedQueue('ho', 1, 3, 1);
      const [done] = started;
      if (!done) throw new Error('nothing started');
      const result = await store.jobs.settleAndClaim([archive(done)], offer(5));
      expect(result.applied).toEqual([true]);
      expect(ids(result.started)).toEqual([pending[0]]);
      expect(result.started[0]).toMatchObject({ state: 'fetched', attempts: 0, workerId: 'w2' });
      expect(await archived(done.id)).toMatchObject({ id: done.id, queue: 'ho' });
      expect(await hot(pending[0] ?? '')).toMatchObject({ state: 'fetched', workerId: 'w2' });
      // Its lease is the worker's: it can start, heartbeat and settle it.
      const [next] = result.started;
      if (!next) throw new Error('unreachable');
      expect(ids(await store.jobs.start([leaseOf(next)]))).toEqual([next.id]);
      expect(await store.jobs.heartbeat([leaseOf(next)])).toMatchObject([{ alive: true }]);
      expect(await store.jobs.settle([archive(await hot(next.id))])).toEqual([true]);
    });

    it('hands over the freed slot also when an archived job had the id of the one it archives', async () => {
      const store = ctx.store();
      // An earlier job of another queue with the id the capped queue's first job will have.
      await store.jobs.enqueue([newJob({ id: 'hr-00', queue: 'hr-earlier' })]);
      const [earlier] = await store.jobs.claim({
        workerId: 'w1',
        limit: 1,
        queues: ['hr-earlier'],
      });
      if (!earlier) throw new Error('nothing claimed');
      expect(await store.jobs.settle([archive(await hot(earlier.id))])).toEqual([true]);
      const { started, pending } = await cappedQueue('hr', 1, 2, 1);
      const [done] = started;
      if (done?.id !== 'hr-00') throw new Error(`started ${String(done?.id)}`);
      const result = await store.jobs.settleAndClaim([archive(done)], offer(5));
      expect(result.applied).toEqual([true]);
      expect(ids(result.started)).toEqual(pending);
      expect(await archived('hr-00')).toMatchObject({ queue: 'hr', attempts: 1 });
    });

    it('takes no more than the slots it freed, never past the cap', async () => {
      const store = ctx.store();
      const { started } = await cappedQueue('hc', 3, 8, 3);
      const [a, b, c] = started;
      if (!a || !b || !c) throw new Error('nothing started');
      const first = await store.jobs.settleAndClaim([archive(a)], offer(5));
      expect(first.started).toHaveLength(1);
      // The cap lowered below the running count: a freed slot is not handed on.
      await store.queues.updateQueue('hc', { maxWorkers: 1 });
      expect((await store.jobs.settleAndClaim([archive(b)], offer(5))).started).toEqual([]);
      expect((await store.jobs.settleAndClaim([archive(c)], offer(5))).started).toEqual([]);
      const last = first.started[0];
      if (!last) throw new Error('unreachable');
      const freedLast = await store.jobs.settleAndClaim([archive(await hot(last.id))], offer(5));
      expect(freedLast.started).toHaveLength(1);
      const active = await store.operator.listHot({ queue: 'hc', state: 'fetched', limit: 10 });
      expect(active).toHaveLength(1);
    });

    it('hands nothing over from queues it may not take from', async () => {
      const store = ctx.store();
      const none = async (queue: string, request: HandoffRequest): Promise<void> => {
        const [job] = (await cappedQueue(queue, 1, 2, 1)).started;
        if (!job) throw new Error('nothing started');
        const result = await store.jobs.settleAndClaim([archive(job)], request);
        expect(result).toEqual({ applied: [true], started: [] });
      };
      await none('h-unserved', offer(1, { queues: ['elsewhere'] }));
      await none('h-types', offer(1, { types: ['another.type'] }));
      // The next job is of another type (a later one is the worker's): it is not passed over.
      const [first] = (await cappedQueue('h-next', 1, 1, 1)).started;
      if (!first) throw new Error('nothing started');
      await store.jobs.enqueue([newJob({ queue: 'h-next', type: 'another.type', priority: 20 })]);
      await store.jobs.enqueue([newJob({ queue: 'h-next' })]);
      const mine = offer(1, { types: ['conformance.job'] });
      expect((await store.jobs.settleAndClaim([archive(first)], mine)).started).toEqual([]);
      // Not capped.
      const [open] = await ctx.processing('h-open', 1);
      await store.jobs.enqueue([newJob({ queue: 'h-open' })]);
      if (!open) throw new Error('nothing started');
      expect((await store.jobs.settleAndClaim([archive(open)], offer())).started).toEqual([]);
      // A retry frees a slot too, but only an archive hands it over.
      const [retried] = (await cappedQueue('h-retry', 1, 2, 1)).started;
      if (!retried) throw new Error('nothing started');
      const retry = {
        kind: 'retry' as const,
        lease: leaseOf(retried),
        from: 'processing' as const,
        delayMs: 60_000,
        error: 'again',
      };
      expect((await store.jobs.settleAndClaim([retry], offer())).started).toEqual([]);
    });

    it('hands nothing over in a paused queue or one holding keyed jobs', async () => {
      const store = ctx.store();
      const [paused] = (await cappedQueue('h-paused', 1, 2, 1)).started;
      if (!paused) throw new Error('nothing started');
      await store.queues.updateQueue('h-paused', { paused: true });
      expect((await store.jobs.settleAndClaim([archive(paused)], offer())).started).toEqual([]);
      const [keyedRun] = (await cappedQueue('h-keyed', 1, 2, 1)).started;
      if (!keyedRun) throw new Error('nothing started');
      await store.jobs.enqueue([newJob({ queue: 'h-keyed', concurrencyKey: 'k' })]);
      expect((await store.jobs.settleAndClaim([archive(keyedRun)], offer())).started).toEqual([]);
    });

    it('wakes the queue only when it leaves freed room unclaimed', async (context) => {
      const store = ctx.store();
      const listen = store.cluster.listen?.bind(store.cluster);
      if (!listen) return context.skip('this provider has no listen()');
      const woken: string[] = [];
      const unlisten = await listen((queue) => woken.push(queue));
      try {
        const full = await cappedQueue('hw-full', 1, 2, 1);
        const left = await cappedQueue('hw-left', 1, 2, 1);
        // The enqueues' own wake-ups first, so that none arrives during the settles below.
        expect(
          await waitUntil(() => woken.includes('hw-full') && woken.includes('hw-left'), 5_000),
        ).toBe(true);
        woken.length = 0;
        const [a] = full.started;
        const [b] = left.started;
        if (!a || !b) throw new Error('nothing started');
        expect((await store.jobs.settleAndClaim([archive(a)], offer())).started).toHaveLength(1);
        // Not the worker's type: the freed slot must go to someone else, so everyone is woken.
        const other = await store.jobs.settleAndClaim([archive(b)], offer(1, { types: ['x.y'] }));
        expect(other.started).toEqual([]);
        expect([...new Set(woken)]).toEqual(['hw-left']); // here and by NOTIFY, maybe
      } finally {
        await unlisten();
      }
    });

    it('returns a handed-over job that never ran to pending, like any stale claim', async () => {
      const store = ctx.store();
      const [done] = (await cappedQueue('h-crash', 1, 2, 1)).started;
      if (!done) throw new Error('nothing started');
      const [orphan] = (await store.jobs.settleAndClaim([archive(done)], offer())).started;
      if (!orphan) throw new Error('nothing handed over');
      // The worker crashed before running it: no start, no heartbeat ever comes.
      const row = await hot(orphan.id);
      await storeTimePasses(row.updatedAt.getTime() + STALE_MS);
      const rescued = await store.jobs.rescue({
        fetchedTimeoutMs: STALE_MS,
        processingTimeoutMs: 60_000,
        retryZombieTypes: {},
      });
      expect(rescued.dead).toEqual([]);
      expect(await hot(orphan.id)).toMatchObject({ state: 'pending', attempts: 0 });
      expect(await store.jobs.heartbeat([leaseOf(orphan)])).toMatchObject([{ alive: false }]);
    });
  });
}
