/**
 * Conformance of `JobStore.settle`: archive, retry, dead-letter and release, each under its lease
 * and expected state, applied item by item in a mixed batch (a lease given twice counted once, an
 * archived job's id reused), succeeded jobs counted but not kept where a queue or type keeps none;
 * and the reliability fields settles keep (`lostAttempts`, cancel requests, archive notes).
 * Lost runs and a dead-lettered fetched job are recovery.ts; `settleAndClaim` is handoff.ts.
 * Registered by `describeJobStore` (index.ts) for every provider.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { JobStore } from '../../../src/storage/job-store.js';
import type { Store } from '../../../src/storage/store.js';
import type { ConformanceContext } from '../context.js';
import { claimAndStart, leaseOf, newJob, sorted } from '../helpers.js';

/** Registers the settle conformance tests; call inside the provider's `describe`. */
export function describeSettle(ctx: ConformanceContext): void {
  const { hot, archived, dead, fetched, processing, statsOf, bucketsOf, storeTimePasses } = ctx;

  /** The current test's store: the suite opens a new one before each test. */
  let store: Store;
  beforeEach(() => {
    store = ctx.store();
  });

  describe('settle', () => {
    it('archives a processing job', async () => {
      const [job] = await processing('arch', 1);
      if (!job) throw new Error('unreachable');
      const original = await hot(job.id);
      expect(
        await store.jobs.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 250 }]),
      ).toEqual([true]);
      const row = await archived(job.id);
      expect(row).toMatchObject({
        id: job.id,
        queue: 'arch',
        type: 'conformance.job',
        payload: original.payload,
        tags: original.tags,
        attempts: 1,
        workerId: 'worker-1',
        createdBy: original.createdBy,
        durationMs: 250,
      });
      expect(row.createdAt.getTime()).toBe(original.createdAt.getTime());
      expect(row.startedAt?.getTime()).toBe(original.startedAt?.getTime());
      expect(row.finishedAt.getTime()).toBeGreaterThanOrEqual(original.startedAt?.getTime() ?? 0);
      expect(await store.operator.listHot({ limit: 10 })).toEqual([]);
    });

    it('archives a fetched job under its lease, recording the start with it', async () => {
      const [row] = await fetched('arch-fetched', 1);
      if (!row) throw new Error('unreachable');
      const lease = leaseOf(row);
      const before = await store.cluster.now();
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease: { ...lease, leaseToken: 'nope' }, durationMs: 1 },
        ]),
      ).toEqual([false]);
      expect((await hot(row.id)).state).toBe('fetched');
      expect(await store.jobs.settle([{ kind: 'archive', lease, durationMs: 60_000 }])).toEqual([
        true,
      ]);
      const found = await store.operator.getJob(row.id);
      if (found?.where !== 'archive') throw new Error(`not archived: ${found?.where}`);
      expect(found.job.attempts).toBe(1);
      // Started its duration before the settle.
      const startedAt = found.job.startedAt?.getTime() ?? 0;
      expect(startedAt).toBeLessThanOrEqual(before.getTime() - 60_000 + 5_000);
      expect(startedAt).toBeGreaterThan(before.getTime() - 60_000 - 60_000);
      expect((await statsOf('arch-fetched')).succeededTotal).toBe(1);
    });

    it('counts but does not archive the succeeded jobs of a queue or type that keeps none', async () => {
      await store.queues.updateQueue('no-history', { keepSucceeded: false });
      expect((await store.queues.listQueues()).find((q) => q.name === 'no-history')).toMatchObject({
        keepSucceeded: false,
      });
      const [a, b] = await processing('no-history', 2);
      const [c, d] = await processing('typed-no-history', 2);
      if (!a || !b || !c || !d) throw new Error('unreachable');
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease: leaseOf(a), durationMs: 4 },
          { kind: 'archive', lease: leaseOf(b), durationMs: 6 },
          // A job type that keeps no rows, in a queue that does.
          { kind: 'archive', lease: leaseOf(c), durationMs: 1, keep: false },
          { kind: 'archive', lease: leaseOf(d), durationMs: 1 },
        ]),
      ).toEqual([true, true, true, true]);
      for (const id of [a.id, b.id, c.id]) expect(await store.operator.getJob(id)).toBeNull();
      expect((await store.operator.getJob(d.id))?.where).toBe('archive');
      expect(await statsOf('no-history')).toMatchObject({ succeededTotal: 2, archived: 0 });
      expect(await statsOf('typed-no-history')).toMatchObject({ succeededTotal: 2, archived: 1 });
      const buckets = await bucketsOf('no-history');
      expect(buckets.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(2);
      // Keeping them again archives from the next settle on.
      await store.queues.updateQueue('no-history', { keepSucceeded: true });
      const [e] = await processing('no-history', 1);
      if (!e) throw new Error('unreachable');
      await store.jobs.settle([{ kind: 'archive', lease: leaseOf(e), durationMs: 1 }]);
      expect((await store.operator.getJob(e.id))?.where).toBe('archive');
    });

    it('refuses to archive without the lease', async () => {
      const [row] = await fetched('arch', 1);
      if (!row) throw new Error('unreachable');
      const lease = leaseOf(row);
      await store.jobs.start([lease]);
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease: { ...lease, leaseToken: 'nope' }, durationMs: 1 },
          { kind: 'archive', lease: { ...lease, workerId: 'intruder' }, durationMs: 1 },
        ]),
      ).toEqual([false, false]);
      expect(await hot(row.id)).toMatchObject({
        state: 'processing',
        attempts: 1,
        workerId: 'worker-1',
      });
      expect((await statsOf('arch')).succeededTotal).toBe(0);
      expect(await bucketsOf('arch')).toEqual([]);
      expect(await store.jobs.settle([{ kind: 'archive', lease, durationMs: 1 }])).toEqual([true]);
      expect(await store.jobs.settle([{ kind: 'archive', lease, durationMs: 1 }])).toEqual([false]);
      expect((await statsOf('arch')).succeededTotal).toBe(1);
    });

    it('retries a processing job later, keeping attempts and the error', async () => {
      const [job] = await processing('r', 1);
      if (!job) throw new Error('unreachable');
      const before = await store.cluster.now();
      expect(
        await store.jobs.settle([
          { kind: 'retry', lease: leaseOf(job), from: 'processing', delayMs: 300, error: 'boom' },
        ]),
      ).toEqual([true]);
      const row = await hot(job.id);
      expect(row).toMatchObject({
        state: 'scheduled',
        attempts: 1,
        lastError: 'boom',
        workerId: null,
        leaseToken: null,
      });
      expect(row.runAt.getTime()).toBeGreaterThanOrEqual(before.getTime() + 299);
      expect(row.runAt.getTime()).toBeLessThanOrEqual(before.getTime() + 1_300);
      expect(await store.jobs.claim({ workerId: 'w', limit: 1, queues: null })).toEqual([]);
      expect(await store.jobs.settle([{ kind: 'release', lease: leaseOf(job) }])).toEqual([false]);
      expect((await statsOf('r')).retriedTotal).toBe(1);

      await storeTimePasses(row.runAt);
      await store.jobs.promote(100);
      const [again] = await store.jobs.claim({ workerId: 'w', limit: 1, queues: null });
      expect(again).toMatchObject({ id: job.id, attempts: 1 });
      expect(await hot(job.id)).toMatchObject({ attempts: 1, lastError: 'boom' });
      if (!again) throw new Error('unreachable');
      const [restarted] = await store.jobs.start([leaseOf(again)]);
      expect(restarted).toMatchObject({ attempts: 2, state: 'processing' });
      expect(await hot(job.id)).toMatchObject({ attempts: 2, lastError: 'boom' });
      if (!restarted) throw new Error('unreachable');
      expect(
        await store.jobs.settle([
          {
            kind: 'retry',
            lease: leaseOf(restarted),
            from: 'processing',
            delayMs: 0,
            error: 'boom 2',
          },
        ]),
      ).toEqual([true]);
      expect(await hot(job.id)).toMatchObject({
        state: 'pending',
        attempts: 2,
        lastError: 'boom 2',
      });
      expect((await statsOf('r')).retriedTotal).toBe(2);
      expect(await bucketsOf('r')).toEqual([]);
    });

    it('retries a fetched job without using an attempt, guarded by the expected state', async () => {
      const [row] = await fetched('circuit', 1);
      if (!row) throw new Error('unreachable');
      const lease = leaseOf(row);
      expect(
        await store.jobs.settle([
          { kind: 'retry', lease, from: 'processing', delayMs: 0, error: 'wrong state' },
        ]),
      ).toEqual([false]);
      expect(
        await store.jobs.settle([
          {
            kind: 'retry',
            lease: { ...lease, leaseToken: 'x' },
            from: 'fetched',
            delayMs: 0,
            error: 'e',
          },
        ]),
      ).toEqual([false]);
      expect(await hot(row.id)).toMatchObject({ state: 'fetched', lastError: null });
      expect((await statsOf('circuit')).retriedTotal).toBe(0);

      expect(
        await store.jobs.settle([
          { kind: 'retry', lease, from: 'fetched', delayMs: 0, error: 'circuit open' },
        ]),
      ).toEqual([true]);
      expect(await hot(row.id)).toMatchObject({
        state: 'pending',
        attempts: 0,
        lastError: 'circuit open',
        workerId: null,
        leaseToken: null,
      });
      expect((await statsOf('circuit')).retriedTotal).toBe(1);

      const [again] = await store.jobs.claim({ workerId: 'w', limit: 1, queues: null });
      if (!again) throw new Error('not claimable after a zero delay');
      await store.jobs.start([leaseOf(again)]);
      expect(
        await store.jobs.settle([
          {
            kind: 'retry',
            lease: leaseOf(again),
            from: 'fetched',
            delayMs: 0,
            error: 'wrong state',
          },
        ]),
      ).toEqual([false]);
      expect(await hot(row.id)).toMatchObject({ state: 'processing', attempts: 1 });
    });

    it('moves a processing job to the DLQ', async () => {
      const job = newJob({ queue: 'dlq', tags: 't1', createdBy: 'me', payload: '{"x":true}' });
      await store.jobs.enqueue([job]);
      const [claimedRow] = await store.jobs.claim({
        workerId: 'worker-9',
        limit: 1,
        queues: null,
      });
      if (!claimedRow) throw new Error('unreachable');
      const [started] = await store.jobs.start([leaseOf(claimedRow)]);
      if (!started) throw new Error('unreachable');
      const startedAt = (await hot(job.id)).startedAt;
      expect(
        await store.jobs.settle([
          { kind: 'dead', lease: leaseOf(started), reason: 'Timeout', error: 'took too long' },
        ]),
      ).toEqual([true]);
      const row = await dead(job.id);
      expect(row).toMatchObject({
        id: job.id,
        queue: 'dlq',
        type: job.type,
        payload: '{"x":true}',
        tags: 't1',
        reason: 'Timeout',
        errorDetails: 'took too long',
        attempts: 1,
        workerId: 'worker-9',
        createdBy: 'me',
      });
      expect(row.createdAt.getTime()).toBe(started.createdAt.getTime());
      expect(row.failedAt.getTime()).toBeGreaterThanOrEqual(startedAt?.getTime() ?? 0);
      expect(await store.operator.listHot({ limit: 10 })).toEqual([]);
    });

    it('refuses to dead-letter without the lease or before start', async () => {
      const [row] = await fetched('dlq', 1);
      if (!row) throw new Error('unreachable');
      const lease = leaseOf(row);
      expect(
        await store.jobs.settle([{ kind: 'dead', lease, reason: 'Fatal', error: 'e' }]),
      ).toEqual([false]);
      await store.jobs.start([lease]);
      expect(
        await store.jobs.settle([
          {
            kind: 'dead',
            lease: { ...lease, workerId: 'intruder' },
            reason: 'Fatal',
            error: 'e',
          },
          { kind: 'dead', lease: { ...lease, leaseToken: 'nope' }, reason: 'Fatal', error: 'e' },
        ]),
      ).toEqual([false, false]);
      expect((await hot(row.id)).state).toBe('processing');
      expect((await statsOf('dlq')).failedTotal).toBe(0);
      expect(
        await store.jobs.settle([{ kind: 'dead', lease, reason: 'Fatal', error: 'e' }]),
      ).toEqual([true]);
      expect(
        await store.jobs.settle([{ kind: 'dead', lease, reason: 'Fatal', error: 'e' }]),
      ).toEqual([false]);
      expect((await statsOf('dlq')).failedTotal).toBe(1);
    });

    it('releases a fetched job back to pending at once', async () => {
      const [row] = await fetched('rel', 1);
      if (!row) throw new Error('unreachable');
      const lease = leaseOf(row);
      expect(
        await store.jobs.settle([{ kind: 'release', lease: { ...lease, leaseToken: 'nope' } }]),
      ).toEqual([false]);
      expect(
        await store.jobs.settle([{ kind: 'release', lease: { ...lease, workerId: 'other' } }]),
      ).toEqual([false]);
      expect((await hot(row.id)).state).toBe('fetched');
      expect(await store.jobs.settle([{ kind: 'release', lease }])).toEqual([true]);
      expect(await hot(row.id)).toMatchObject({
        state: 'pending',
        attempts: 0,
        workerId: null,
        leaseToken: null,
      });
      expect(await store.jobs.settle([{ kind: 'release', lease }])).toEqual([false]);
      const stats = await statsOf('rel');
      expect([stats.succeededTotal, stats.failedTotal, stats.retriedTotal]).toEqual([0, 0, 0]);

      const [again] = await store.jobs.claim({ workerId: 'w', limit: 1, queues: null });
      expect(again?.id).toBe(row.id);
      if (!again) throw new Error('unreachable');
      await store.jobs.start([leaseOf(again)]);
      expect(await store.jobs.settle([{ kind: 'release', lease: leaseOf(again) }])).toEqual([
        false,
      ]);
      expect((await hot(row.id)).state).toBe('processing');
    });

    it('applies a mixed batch item by item', async () => {
      const [j1, j2, j3, j4] = await processing('mix', 4);
      const [j5] = await fetched('mix-fetched', 1);
      if (!j1 || !j2 || !j3 || !j4 || !j5) throw new Error('unreachable');
      const results = await store.jobs.settle([
        { kind: 'archive', lease: leaseOf(j1), durationMs: 10 },
        { kind: 'archive', lease: { ...leaseOf(j2), leaseToken: 'stale' }, durationMs: 10 },
        { kind: 'dead', lease: leaseOf(j3), reason: 'Fatal', error: 'fatal' },
        { kind: 'retry', lease: leaseOf(j4), from: 'processing', delayMs: 0, error: 'again' },
        { kind: 'release', lease: leaseOf(j5) },
        {
          kind: 'archive',
          lease: { id: 'no-such-job', workerId: 'worker-1', leaseToken: 't' },
          durationMs: 1,
        },
      ]);
      expect(results).toEqual([true, false, true, true, true, false]);
      await archived(j1.id);
      expect(await hot(j2.id)).toMatchObject({ state: 'processing', attempts: 1 });
      await dead(j3.id);
      expect(await hot(j4.id)).toMatchObject({
        state: 'pending',
        attempts: 1,
        lastError: 'again',
      });
      expect(await hot(j5.id)).toMatchObject({ state: 'pending', attempts: 0 });
      const stats = await statsOf('mix');
      expect([stats.succeededTotal, stats.failedTotal, stats.retriedTotal]).toEqual([1, 1, 1]);
    });

    it('counts a lease given twice in one call once, by its first occurrence', async () => {
      const store = ctx.store();
      const [job] = await processing('twice', 1);
      if (!job) throw new Error('nothing claimed');
      const lease = leaseOf(job);
      // The first occurrence does not apply (the job is not fetched); the second would, alone.
      expect(
        await store.jobs.settle([
          { kind: 'release', lease },
          { kind: 'archive', lease, durationMs: 5 },
        ]),
      ).toEqual([false, false]);
      expect(await hot(job.id)).toMatchObject({ state: 'processing' });
      // And when the first applies, the second is not applied on top of it.
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease, durationMs: 5 },
          { kind: 'retry', lease, from: 'processing', delayMs: 0, error: 'again' },
        ]),
      ).toEqual([true, false]);
      expect((await store.operator.getJob(job.id))?.where).toBe('archive');
    });

    it('archives a job whose id an archived job had, replacing that row, beside others, counted once', async () => {
      const store = ctx.store();
      const runToArchive = async (jobs: Parameters<JobStore['enqueue']>[0]): Promise<boolean[]> => {
        await store.jobs.enqueue(jobs);
        const started = await claimAndStart(store, { workerId: 'w', limit: 10, queues: ['reuse'] });
        return store.jobs.settle(
          started.map((job) => ({ kind: 'archive' as const, lease: leaseOf(job), durationMs: 1 })),
        );
      };
      const again = newJob({ id: 'reused', queue: 'reuse', payload: '{"run":2}' });
      expect(
        await runToArchive([newJob({ id: 'reused', queue: 'reuse', payload: '{"run":1}' })]),
      ).toEqual([true]);
      expect(await runToArchive([newJob({ id: 'fresh', queue: 'reuse' }), again])).toEqual([
        true,
        true,
      ]);
      expect(await archived('reused')).toMatchObject({ payload: '{"run":2}', attempts: 1 });
      expect(await archived('fresh')).toMatchObject({ queue: 'reuse' });
      expect(await statsOf('reuse')).toMatchObject({ succeededTotal: 3, archived: 2 });
    });
  });

  describe('reliability fields', () => {
    it('starts new rows with no lost runs and no cancel request', async () => {
      const store = ctx.store();
      const id = await ctx.enqueueOne({ queue: 'nr' });
      const fresh = { lostAttempts: 0, cancelRequestedAt: null, cancelRequestedBy: null };
      expect(await hot(id)).toMatchObject({ state: 'pending', ...fresh });
      const [claimedRow] = await store.jobs.claim({ workerId: 'w', limit: 1, queues: ['nr'] });
      expect(claimedRow).toMatchObject({ id, state: 'fetched' });
      expect(await hot(id)).toMatchObject({ state: 'fetched', ...fresh });
      if (!claimedRow) throw new Error('unreachable');
      const [started] = await store.jobs.start([leaseOf(claimedRow)]);
      expect(started).toMatchObject({ id, state: 'processing', attempts: 1 });
      expect(await hot(id)).toMatchObject({ state: 'processing', ...fresh });
      expect((await store.operator.listHot({ queue: 'nr', limit: 10 }))[0]).toMatchObject(fresh);

      const [failed] = await processing('nr-dead', 1);
      if (!failed) throw new Error('unreachable');
      expect(
        await store.jobs.settle([
          { kind: 'dead', lease: leaseOf(failed), reason: 'Fatal', error: 'x' },
        ]),
      ).toEqual([true]);
      expect(await dead(failed.id)).toMatchObject({ reason: 'Fatal', lostAttempts: 0 });
    });

    it('archives with a null note by default and stores a given note', async () => {
      const store = ctx.store();
      const [plain, noted] = await processing('note', 2);
      if (!plain || !noted) throw new Error('unreachable');
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease: leaseOf(plain), durationMs: 4 },
          {
            kind: 'archive',
            lease: leaseOf(noted),
            durationMs: 0,
            note: 'skipped: duplicate of order-7 — ✓',
          },
        ]),
      ).toEqual([true, true]);
      expect(await archived(plain.id)).toMatchObject({
        note: null,
        lostAttempts: 0,
        attempts: 1,
        durationMs: 4,
      });
      expect(await archived(noted.id)).toMatchObject({
        note: 'skipped: duplicate of order-7 — ✓',
        lostAttempts: 0,
      });
      const listed = await store.operator.listArchive({ queue: 'note', limit: 10 });
      expect(sorted(listed.map((row) => row.note ?? 'null'))).toEqual(
        sorted(['null', 'skipped: duplicate of order-7 — ✓']),
      );
    });

    it('carries lost runs into the archive and the DLQ', async () => {
      const store = ctx.store();
      const [a, b] = await processing('carry', 2);
      if (!a || !b) throw new Error('unreachable');
      expect(
        await store.jobs.settle(
          [a, b].map((job) => ({
            kind: 'retry' as const,
            lease: leaseOf(job),
            from: 'processing' as const,
            delayMs: 0,
            error: 'shutdown',
            lost: true,
          })),
        ),
      ).toEqual([true, true]);
      const rows = await store.jobs.claim({ workerId: 'worker-2', limit: 2, queues: ['carry'] });
      const started = new Map(
        (await store.jobs.start(rows.map(leaseOf))).map((row) => [row.id, row]),
      );
      const again = started.get(a.id);
      const againB = started.get(b.id);
      if (!again || !againB) throw new Error('jobs did not start again');
      expect(again).toMatchObject({ attempts: 1 });
      expect(await hot(a.id)).toMatchObject({ attempts: 1, lostAttempts: 1 });
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease: leaseOf(again), durationMs: 2, note: 'kept' },
          { kind: 'dead', lease: leaseOf(againB), reason: 'Transient', error: 'gave up' },
        ]),
      ).toEqual([true, true]);
      expect(await archived(a.id)).toMatchObject({ attempts: 1, lostAttempts: 1, note: 'kept' });
      expect(await dead(b.id)).toMatchObject({
        reason: 'Transient',
        attempts: 1,
        lostAttempts: 1,
      });
      expect((await store.operator.listDead({ queue: 'carry', limit: 10 }))[0]?.lostAttempts).toBe(
        1,
      );
    });
  });
}
