/**
 * Conformance of batches with callbacks (`store.batches`, docs/workflows.md "Batches"): a batch is
 * written in one atomic step (members due, callbacks awaiting and never claimed); each member's
 * move out of the hot table (archive, DLQ, cancel, rescue) or back (resurrect) changes its
 * batch's counts in that step and fires each callback the counts make due, once; a purged member
 * stays counted; retention deletes a batch only when it is done. Registered by
 * `describeStoreConformance` in suite.ts.
 */
import { describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import type { BatchCallbackKind, NewBatch } from '../../src/storage/batch-store.js';
import type { ClaimedJob, NewJob } from '../../src/storage/model.js';
import type { Settlement } from '../../src/storage/job-store.js';
import { uuidv7 } from '../../src/util/uuid.js';
import type { ConformanceContext } from './context.js';
import { leaseOf, newJob } from './helpers.js';

/** Registers the batch conformance tests; call inside the provider's `describe`. */
export function describeBatches(ctx: ConformanceContext): void {
  const { hot } = ctx;

  /** A batch of `count` members in `queue` with the callbacks `kinds` (in queue `queue-cb`). */
  function batchOf(
    queue: string,
    count: number,
    kinds: readonly BatchCallbackKind[] = ['success', 'complete', 'death'],
    member: Partial<NewJob> = {},
  ): NewBatch {
    return {
      id: uuidv7(),
      members: Array.from({ length: count }, () => newJob({ queue, ...member })),
      callbacks: Object.fromEntries(
        kinds.map((kind) => [kind, newJob({ queue: `${queue}-cb`, type: `cb.${kind}` })]),
      ),
    };
  }

  /** The callback job id of `kind` in `batch`. */
  function callbackOf(batch: NewBatch, kind: BatchCallbackKind): string {
    const job = batch.callbacks[kind];
    if (job === undefined) throw new Error(`no ${kind} callback`);
    return job.id;
  }

  /** Claims and starts up to `limit` due jobs of `queue`. */
  async function runSome(queue: string, limit = 100): Promise<ClaimedJob[]> {
    const store = ctx.store();
    const claimed = await store.jobs.claim({ workerId: 'w', limit, queues: [queue] });
    return store.jobs.start(claimed.map(leaseOf));
  }

  /** A settlement of `job` as `how`. */
  function settlement(job: ClaimedJob, how: 'archive' | 'dead'): Settlement {
    return how === 'archive'
      ? { kind: 'archive', lease: leaseOf(job), durationMs: 1 }
      : { kind: 'dead', lease: leaseOf(job), reason: 'Fatal', error: 'Error: boom' };
  }

  /** Runs up to `limit` due jobs of `queue` to the archive or the DLQ; their ids. */
  async function finish(queue: string, how: 'archive' | 'dead', limit = 100): Promise<string[]> {
    const started = await runSome(queue, limit);
    await ctx.store().jobs.settle(started.map((job) => settlement(job, how)));
    return started.map((job) => job.id);
  }

  /** The state of each callback of `batch` by kind: its hot state, or `gone`. */
  async function callbackStates(batch: NewBatch): Promise<Record<string, string>> {
    const states: Record<string, string> = {};
    for (const [kind, job] of Object.entries(batch.callbacks)) {
      const found = await ctx.store().operator.getJob(job.id);
      states[kind] = found?.where === 'hot' ? found.job.state : (found?.where ?? 'gone');
    }
    return states;
  }

  /** The counts of batch `id`. */
  async function countsOf(id: string): Promise<Record<string, number>> {
    const batch = await ctx.store().batches.get(id);
    if (batch === null) throw new Error(`no batch ${id}`);
    const { total, succeeded, died, cancelled, pending } = batch;
    return { total, succeeded, died, cancelled, pending };
  }

  /** The kinds of the callbacks of batch `id` that fired. */
  async function firedOf(id: string): Promise<string[]> {
    const batch = await ctx.store().batches.get(id);
    return (batch?.callbacks ?? []).filter((c) => c.firedAt !== null).map((c) => c.kind);
  }

  describe('batches', () => {
    it('writes the members due and the callbacks awaiting, never claimed, in one step', async () => {
      const store = ctx.store();
      const batch = batchOf('b-write', 3);
      const results = await store.batches.enqueue(batch);
      expect(results).toEqual(
        [...batch.members, ...Object.values(batch.callbacks)].map((job) => ({
          id: job.id,
          created: true,
        })),
      );
      for (const member of batch.members) expect((await hot(member.id)).state).toBe('pending');
      expect(await callbackStates(batch)).toEqual({
        success: 'awaiting',
        complete: 'awaiting',
        death: 'awaiting',
      });
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['b-write-cb'] })).toEqual(
        [],
      );
      expect(await countsOf(batch.id)).toEqual({
        total: 3,
        succeeded: 0,
        died: 0,
        cancelled: 0,
        pending: 3,
      });
      const read = await store.batches.get(batch.id);
      expect(read?.callbacks).toEqual([
        { kind: 'success', jobId: callbackOf(batch, 'success'), firedAt: null },
        { kind: 'complete', jobId: callbackOf(batch, 'complete'), firedAt: null },
        { kind: 'death', jobId: callbackOf(batch, 'death'), firedAt: null },
      ]);
      const member = await store.batches.ofJob(batch.members[0]?.id ?? '');
      expect(member?.role).toBe('member');
      expect(member?.batch.id).toBe(batch.id);
      expect((await store.batches.ofJob(callbackOf(batch, 'death')))?.role).toBe('death');
      expect(await store.batches.ofJob(await ctx.enqueueOne({ queue: 'b-write' }))).toBeNull();
      expect(await store.batches.get(uuidv7())).toBeNull();
    });

    it('a delayed member is scheduled, a delayed callback fires scheduled', async () => {
      const store = ctx.store();
      const batch = batchOf('b-delay', 1, ['success']);
      batch.members = [newJob({ queue: 'b-delay', delayMs: 60_000 })];
      batch.callbacks.success = newJob({ queue: 'b-delay-cb', delayMs: 3_600_000 });
      await store.batches.enqueue(batch);
      expect((await hot(batch.members[0]?.id ?? '')).state).toBe('scheduled');
      await ctx.storeTimePasses((await store.cluster.now()).getTime() + 60_000);
      await store.jobs.promote(100);
      await finish('b-delay', 'archive');
      expect(await callbackStates(batch)).toEqual({ success: 'scheduled' });
    });

    it('fires success and complete once every member succeeded, and never death', async () => {
      const batch = batchOf('b-ok', 4);
      await ctx.store().batches.enqueue(batch);
      expect(await finish('b-ok', 'archive', 3)).toHaveLength(3);
      expect(await firedOf(batch.id)).toEqual([]);
      expect(await callbackStates(batch)).toEqual({
        success: 'awaiting',
        complete: 'awaiting',
        death: 'awaiting',
      });
      expect(await finish('b-ok', 'archive')).toHaveLength(1);
      expect(await countsOf(batch.id)).toEqual({
        total: 4,
        succeeded: 4,
        died: 0,
        cancelled: 0,
        pending: 0,
      });
      expect(await firedOf(batch.id)).toEqual(['success', 'complete']);
      expect(await callbackStates(batch)).toEqual({
        success: 'pending',
        complete: 'pending',
        death: 'awaiting',
      });
      // The callbacks run as any job; they are no members.
      expect((await finish('b-ok-cb', 'archive')).sort()).toEqual(
        [callbackOf(batch, 'success'), callbackOf(batch, 'complete')].sort(),
      );
      expect((await countsOf(batch.id)).succeeded).toBe(4);
    });

    it('fires death at the first death, complete when all finished, success never', async () => {
      const batch = batchOf('b-die', 3);
      await ctx.store().batches.enqueue(batch);
      await finish('b-die', 'dead', 1);
      expect(await firedOf(batch.id)).toEqual(['death']);
      expect(await callbackStates(batch)).toEqual({
        success: 'awaiting',
        complete: 'awaiting',
        death: 'pending',
      });
      await finish('b-die-cb', 'archive');
      await finish('b-die', 'dead', 1);
      await finish('b-die', 'archive', 1);
      expect(await countsOf(batch.id)).toEqual({
        total: 3,
        succeeded: 1,
        died: 2,
        cancelled: 0,
        pending: 0,
      });
      expect(await firedOf(batch.id)).toEqual(['complete', 'death']);
      expect(await callbackStates(batch)).toEqual({
        success: 'awaiting',
        complete: 'pending',
        death: 'archive',
      });
    });

    it('counts a cancel as cancelled, not a death; a cancelled batch completes', async () => {
      const store = ctx.store();
      const batch = batchOf('b-cancel', 2);
      await store.batches.enqueue(batch);
      const [first, second] = batch.members.map((job) => job.id);
      expect((await store.jobs.cancel([first ?? ''], 'tester')).cancelled).toEqual([first]);
      expect(await countsOf(batch.id)).toMatchObject({ cancelled: 1, died: 0, pending: 1 });
      expect(await firedOf(batch.id)).toEqual([]);
      // A running member carries the request; the rescue that applies it counts it.
      const [running] = await runSome('b-cancel');
      expect(running?.id).toBe(second);
      expect((await store.jobs.cancel([second ?? ''], 'tester')).requested).toEqual([second]);
      await store.jobs.settle([
        {
          kind: 'dead',
          lease: leaseOf(running as ClaimedJob),
          reason: 'Cancelled',
          error: 'Cancelled by tester',
        },
      ]);
      expect(await countsOf(batch.id)).toEqual({
        total: 2,
        succeeded: 0,
        died: 0,
        cancelled: 2,
        pending: 0,
      });
      expect(await firedOf(batch.id)).toEqual(['complete']);
    });

    it('counts a zombie buried by the rescue as a death, and fires death', async () => {
      const store = ctx.store();
      const batch = batchOf('b-zombie', 2, ['death', 'complete']);
      await store.batches.enqueue(batch);
      await runSome('b-zombie');
      await ctx.storeTimePasses((await store.cluster.now()).getTime() + 60);
      const rescued = await store.jobs.rescue({
        fetchedTimeoutMs: 60_000,
        processingTimeoutMs: 50,
        retryZombieTypes: {},
      });
      expect(rescued.dead).toHaveLength(2);
      expect(await countsOf(batch.id)).toMatchObject({ died: 2, pending: 0 });
      expect(await firedOf(batch.id)).toEqual(['complete', 'death']);
    });

    it('a zombie the rescue retries is counted only when it ends', async () => {
      const store = ctx.store();
      const batch = batchOf('b-retry', 1, ['success']);
      await store.batches.enqueue(batch);
      await runSome('b-retry');
      await ctx.storeTimePasses((await store.cluster.now()).getTime() + 60);
      const rescued = await store.jobs.rescue({
        fetchedTimeoutMs: 60_000,
        processingTimeoutMs: 50,
        retryZombieTypes: { 'conformance.job': 5 },
      });
      expect(rescued.retried).toHaveLength(1);
      expect(await countsOf(batch.id)).toMatchObject({ succeeded: 0, died: 0, pending: 1 });
      await finish('b-retry', 'archive');
      expect(await firedOf(batch.id)).toEqual(['success']);
    });

    it('a resurrected member counts one death fewer; its success then fires success', async () => {
      const store = ctx.store();
      const batch = batchOf('b-res', 2);
      await store.batches.enqueue(batch);
      const [dead] = await finish('b-res', 'dead', 1);
      await finish('b-res', 'archive');
      expect(await firedOf(batch.id)).toEqual(['complete', 'death']);
      expect(await store.operator.resurrect([dead ?? ''], { actor: 'op' })).toEqual([dead]);
      expect(await countsOf(batch.id)).toEqual({
        total: 2,
        succeeded: 1,
        died: 0,
        cancelled: 0,
        pending: 1,
      });
      expect((await store.batches.ofJob(dead ?? ''))?.batch.id).toBe(batch.id);
      await finish('b-res', 'archive');
      expect(await countsOf(batch.id)).toMatchObject({ succeeded: 2, died: 0, pending: 0 });
      expect(await firedOf(batch.id)).toEqual(['success', 'complete', 'death']);
      // Each fired once: complete and death were already due, and are not made due again.
      expect(await callbackStates(batch)).toEqual({
        success: 'pending',
        complete: 'pending',
        death: 'pending',
      });
    });

    it('a resurrected cancelled member counts one cancel fewer', async () => {
      const store = ctx.store();
      const batch = batchOf('b-rescancel', 1, ['success']);
      await store.batches.enqueue(batch);
      const id = batch.members[0]?.id ?? '';
      await store.jobs.cancel([id], 'tester');
      expect(await countsOf(batch.id)).toMatchObject({ cancelled: 1, pending: 0 });
      await store.operator.resurrect([id], { actor: 'op' });
      expect(await countsOf(batch.id)).toMatchObject({ cancelled: 0, pending: 1 });
      await finish('b-rescancel', 'archive');
      expect(await firedOf(batch.id)).toEqual(['success']);
    });

    it('a purged dead member stays counted as died', async () => {
      const store = ctx.store();
      const batch = batchOf('b-purge', 2, ['success', 'complete']);
      await store.batches.enqueue(batch);
      const [dead] = await finish('b-purge', 'dead', 1);
      expect(await store.operator.purgeDead([dead ?? ''])).toBe(1);
      expect(await countsOf(batch.id)).toMatchObject({ died: 1, pending: 1 });
      await finish('b-purge', 'archive');
      expect(await countsOf(batch.id)).toMatchObject({ succeeded: 1, died: 1, pending: 0 });
      expect(await firedOf(batch.id)).toEqual(['complete']);
    });

    it('counts a member failed by its dependency (DependencyFailed) as a death', async () => {
      const store = ctx.store();
      const batch = batchOf('b-dep', 2, ['death']);
      const [first, second] = batch.members;
      batch.members = [
        first as NewJob,
        { ...(second as NewJob), dependsOn: [{ id: first?.id ?? '', onDeath: 'fail' }] },
      ];
      await store.batches.enqueue(batch);
      expect((await hot(second?.id ?? '')).state).toBe('awaiting');
      await finish('b-dep', 'dead');
      expect(await countsOf(batch.id)).toMatchObject({ died: 2, pending: 0 });
      expect((await ctx.dead(second?.id ?? '')).reason).toBe('DependencyFailed');
      expect(await firedOf(batch.id)).toEqual(['death']);
    });

    it('refuses a job id in use: nothing of the batch is written', async () => {
      const store = ctx.store();
      const taken = await ctx.enqueueOne({ queue: 'b-dup' });
      const batch = batchOf('b-dup', 2);
      batch.members = [newJob({ queue: 'b-dup' }), newJob({ queue: 'b-dup', id: taken })];
      const error = await store.batches.enqueue(batch).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChokaQError);
      expect((error as ChokaQError).code).toBe('CHOKAQ_DUPLICATE_JOB_ID');
      expect(await store.batches.get(batch.id)).toBeNull();
      expect(await store.operator.getJob(batch.members[0]?.id ?? '')).toBeNull();
      expect(await store.operator.getJob(callbackOf(batch, 'success'))).toBeNull();
    });

    it('fires each callback exactly once when the last members settle at once', async () => {
      const store = ctx.store();
      const batches = Array.from({ length: 8 }, () =>
        batchOf('b-race', 2, ['success', 'complete']),
      );
      for (const batch of batches) await store.batches.enqueue(batch);
      const started = await runSome('b-race');
      expect(started).toHaveLength(16);
      const byBatch = new Map<string, ClaimedJob[]>();
      for (const batch of batches) {
        const members = new Set(batch.members.map((job) => job.id));
        byBatch.set(
          batch.id,
          started.filter((job) => members.has(job.id)),
        );
      }
      // Two settlers, each with one member of every batch, at once (PostgreSQL: two connections).
      const halves = [0, 1].map((half) =>
        [...byBatch.values()].map((jobs) => settlement(jobs[half] as ClaimedJob, 'archive')),
      );
      const applied = await Promise.all(halves.map((half) => store.jobs.settle(half)));
      expect(applied.flat().every(Boolean)).toBe(true);
      for (const batch of batches) {
        expect(await countsOf(batch.id)).toMatchObject({ succeeded: 2, pending: 0 });
        expect(await firedOf(batch.id)).toEqual(['success', 'complete']);
        expect(await callbackStates(batch)).toEqual({ success: 'pending', complete: 'pending' });
      }
      const callbacks = await store.jobs.claim({
        workerId: 'w',
        limit: 100,
        queues: ['b-race-cb'],
      });
      expect(callbacks).toHaveLength(16);
    });

    it('retention deletes a batch only once done, with its callbacks that can never fire', async () => {
      const store = ctx.store();
      const batch = batchOf('b-ret', 2);
      await store.batches.enqueue(batch);
      await finish('b-ret', 'archive', 1);
      expect(await store.batches.purge(100)).toBe(0); // a member is hot
      await finish('b-ret', 'archive');
      expect(await store.batches.purge(100)).toBe(0); // members archived, callbacks pending
      await finish('b-ret-cb', 'archive');
      expect(await store.batches.purge(100)).toBe(0); // the archived members remain
      await ctx.storeTimePasses((await store.cluster.now()).getTime() + 1_000);
      expect(
        await store.retention.purgeBatch({ table: 'archive', olderThanMs: 1 }, 100),
      ).toBeGreaterThanOrEqual(4);
      expect(await store.batches.purge(100)).toBe(1);
      expect(await store.batches.get(batch.id)).toBeNull();
      // The death callback never fired: it went with its batch.
      expect(await store.operator.getJob(callbackOf(batch, 'death'))).toBeNull();
      expect(await store.batches.purge(100)).toBe(0);
    });

    it('one round of members, plain jobs and a lost lease counts only the members, once', async () => {
      const store = ctx.store();
      const batch = batchOf('b-mix', 3, ['success']);
      await store.batches.enqueue(batch);
      for (let i = 0; i < 3; i++) await ctx.enqueueOne({ queue: 'b-mix' });
      const claimed = await store.jobs.claim({ workerId: 'w', limit: 100, queues: ['b-mix'] });
      expect(claimed).toHaveLength(6);
      // Half of them started, half still fetched (a start written with its archive).
      const started = await store.jobs.start(claimed.slice(0, 3).map(leaseOf));
      const round: Settlement[] = [...started, ...claimed.slice(3)].map((job) =>
        settlement(job, 'archive'),
      );
      const lost = await ctx.enqueueOne({ queue: 'b-mix-lost' });
      const [taken] = await store.jobs.claim({ workerId: 'w', limit: 1, queues: ['b-mix-lost'] });
      expect(taken?.id).toBe(lost);
      round.splice(2, 0, {
        kind: 'archive',
        lease: { ...leaseOf(taken as ClaimedJob), leaseToken: 'not-the-lease' },
        durationMs: 1,
      });
      const applied = await store.jobs.settle(round);
      expect(applied).toEqual([true, true, false, true, true, true, true]);
      expect(await countsOf(batch.id)).toMatchObject({ succeeded: 3, pending: 0 });
      expect(await firedOf(batch.id)).toEqual(['success']);
      for (const job of claimed)
        expect((await store.operator.getJob(job.id))?.where).toBe('archive');
      expect((await store.operator.getJob(lost))?.where).toBe('hot');
    });

    it('a member that used steps and keeps no row leaves no steps behind', async () => {
      const store = ctx.store();
      const batch = batchOf('b-steps', 1, ['complete']);
      await store.batches.enqueue(batch);
      const [member] = await runSome('b-steps');
      await store.steps.record(member!.id, { name: 's', result: '1' });
      const applied = await store.jobs.settle([
        { kind: 'archive', lease: leaseOf(member!), durationMs: 1, keep: false, steps: true },
      ]);
      expect(applied).toEqual([true]);
      expect(await store.steps.list(member!.id)).toEqual([]);
      expect(await countsOf(batch.id)).toMatchObject({ succeeded: 1, pending: 0 });
    });

    it('a plain job settles outside every batch', async () => {
      const store = ctx.store();
      const batch = batchOf('b-plain', 1);
      await store.batches.enqueue(batch);
      const plain = await ctx.enqueueOne({ queue: 'b-plain-other' });
      await finish('b-plain-other', 'archive');
      expect(await store.batches.ofJob(plain)).toBeNull();
      expect(await countsOf(batch.id)).toMatchObject({ succeeded: 0, pending: 1 });
    });
  });
}
