/**
 * Conformance of durable steps (`store.steps`): records whose first one wins, sleeps and event
 * waits that give the job back as `scheduled` (refunded, kept in the history), events taken in
 * order and never missed, sends refused for jobs that are not active, steps deleted with their
 * job. Registered by `describeStoreConformance` in suite.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ChokaQError } from '../../src/errors.js';
import type { Lease } from '../../src/storage/job-store.js';
import type { ConformanceContext } from './context.js';
import { leaseOf } from './helpers.js';

/** Registers the durable-step conformance tests; call inside the provider's `describe`. */
export function describeSteps(ctx: ConformanceContext): void {
  const { hot } = ctx;

  /** A processing job of `queue` and its lease. */
  async function running(queue: string): Promise<Lease> {
    const [job] = await ctx.processing(queue, 1);
    return leaseOf(job!);
  }

  /** Claims and starts the due job of `queue` again; its lease. */
  async function rerun(queue: string): Promise<Lease> {
    const store = ctx.store();
    const claimed = await store.jobs.claim({ workerId: 'w2', limit: 1, queues: [queue] });
    const [started] = await store.jobs.start(claimed.map(leaseOf));
    expect(started).toBeDefined();
    return leaseOf(started!);
  }

  /**
   * One whole scan of retention's event purge in windows of `limit` (bounded: the schema may hold
   * other tests' events): the events it deleted and the windows it took.
   */
  async function scanEvents(limit: number): Promise<{ deleted: number; windows: number }> {
    const store = ctx.store();
    let deleted = 0;
    let after: number | null = null;
    for (let windows = 1; windows <= 10_000; windows++) {
      const window = await store.steps.purgeEvents(limit, after);
      deleted += window.deleted;
      if (window.after === null) return { deleted, windows };
      if (after !== null) expect(window.after).toBeGreaterThan(after);
      after = window.after;
    }
    throw new Error('the scan of events did not end within 10,000 windows');
  }

  /** The coded error `promise` rejects with. */
  async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
    try {
      await promise;
    } catch (error) {
      return (error as ChokaQError).code;
    }
    return undefined;
  }

  describe('durable steps', () => {
    it('records a step once: the first record of a name wins and is returned to later ones', async () => {
      const store = ctx.store();
      const lease = await running('st-rec');
      expect(await store.steps.list(lease.id)).toEqual([]);
      const first = await store.steps.record(lease.id, { name: 'charge', result: '{"n":1}' });
      expect(first).toMatchObject({ name: 'charge', kind: 'run', done: true, result: '{"n":1}' });
      const again = await store.steps.record(lease.id, { name: 'charge', result: '{"n":2}' });
      expect(again.result).toBe('{"n":1}');
      await store.steps.record(lease.id, { name: 'mail', result: null });
      const listed = await store.steps.list(lease.id);
      expect(listed.map((step) => [step.name, step.result])).toEqual([
        ['charge', '{"n":1}'],
        ['mail', null],
      ]);
      expect(listed[0]?.recordedAt).toBeInstanceOf(Date);
    });

    it('suspends a sleeping job as scheduled until the sleep ends, refunded, with a history entry', async () => {
      const store = ctx.store();
      const lease = await running('st-sleep');
      const before = await hot(lease.id);
      const wakeAt = new Date(Date.now() + 60_000);
      const outcome = await store.steps.sleep(lease, { name: 'cool-off', wakeAt });
      expect(outcome).toEqual({ kind: 'suspended', wakeAt });
      const row = await hot(lease.id);
      expect(row).toMatchObject({ state: 'scheduled', workerId: null, leaseToken: null });
      expect(row.runAt.getTime()).toBe(wakeAt.getTime());
      expect(row.attempts).toBe(before.attempts - 1);
      expect(row.history.at(-1)).toMatchObject({ kind: 'run', outcome: 'suspended' });
      expect((row.history.at(-1) as { error: string }).error).toContain('cool-off');
      // The lease is gone: the run can neither sleep again nor settle.
      expect(await store.steps.sleep(lease, { name: 'cool-off', wakeAt })).toEqual({
        kind: 'lost',
      });
      expect(await store.jobs.settle([{ kind: 'archive', lease, durationMs: 1 }])).toEqual([false]);

      // Due at the end of the first sleep (a later call's time does not move it), then done.
      await ctx.storeTimePasses(wakeAt);
      await store.jobs.promote(100);
      const next = await rerun('st-sleep');
      const later = new Date(wakeAt.getTime() + 3_600_000);
      const ended = await store.steps.sleep(next, { name: 'cool-off', wakeAt: later });
      expect(ended).toMatchObject({ kind: 'done', record: { name: 'cool-off', kind: 'sleep' } });
      expect((await hot(lease.id)).state).toBe('processing');
      expect((await store.steps.list(lease.id))[0]?.wakeAt?.getTime()).toBe(wakeAt.getTime());
    });

    it('hands an event sent before the wait to the wait at once, oldest first, each once', async () => {
      const store = ctx.store();
      const lease = await running('st-early');
      await store.steps.send(lease.id, 'approval', '{"by":"ann"}');
      await store.steps.send(lease.id, 'approval', '{"by":"bob"}');
      await store.steps.send(lease.id, 'other', '1');
      const timeoutAt = new Date(Date.now() + 60_000);
      const first = await store.steps.wait(lease, { name: 'a1', topic: 'approval', timeoutAt });
      expect(first).toMatchObject({
        kind: 'done',
        record: { kind: 'event', done: true, result: '{"received":true,"data":{"by":"ann"}}' },
      });
      const second = await store.steps.wait(lease, { name: 'a2', topic: 'approval', timeoutAt });
      expect(second).toMatchObject({ record: { result: '{"received":true,"data":{"by":"bob"}}' } });
      // A recorded wait answers with its record, without taking another event.
      const replay = await store.steps.wait(lease, { name: 'a1', topic: 'approval', timeoutAt });
      expect(replay).toMatchObject({ record: { result: '{"received":true,"data":{"by":"ann"}}' } });
      expect((await hot(lease.id)).state).toBe('processing');
    });

    it('suspends a wait until an event comes, and the send makes the job due at once', async () => {
      const store = ctx.store();
      const lease = await running('st-wait');
      const timeoutAt = new Date(Date.now() + 3_600_000);
      const outcome = await store.steps.wait(lease, { name: 'approve', topic: 'ok', timeoutAt });
      expect(outcome).toEqual({ kind: 'suspended', wakeAt: timeoutAt });
      expect((await hot(lease.id)).state).toBe('scheduled');
      // Another topic does not wake it.
      expect(await store.steps.send(lease.id, 'other', '1')).toEqual({ woke: false });
      expect((await hot(lease.id)).state).toBe('scheduled');
      expect(await store.steps.send(lease.id, 'ok', '"yes"')).toEqual({ woke: true });
      expect((await hot(lease.id)).state).toBe('pending');
      const next = await rerun('st-wait');
      const got = await store.steps.wait(next, { name: 'approve', topic: 'ok', timeoutAt });
      expect(got).toMatchObject({
        kind: 'done',
        record: { result: '{"received":true,"data":"yes"}' },
      });
    });

    it('ends a wait past its first timeout with no event', async () => {
      const store = ctx.store();
      const lease = await running('st-timeout');
      const timeoutAt = new Date(Date.now() + 60_000);
      await store.steps.wait(lease, { name: 'w', topic: 't', timeoutAt });
      await ctx.storeTimePasses(timeoutAt);
      await store.jobs.promote(100);
      const next = await rerun('st-timeout');
      const later = new Date(timeoutAt.getTime() + 3_600_000);
      const outcome = await store.steps.wait(next, { name: 'w', topic: 't', timeoutAt: later });
      expect(outcome).toMatchObject({
        kind: 'done',
        record: { done: true, result: '{"received":false}' },
      });
      // An event sent afterwards stays for a later wait on the topic.
      await store.steps.send(next.id, 't', '2');
      const after = await store.steps.wait(next, { name: 'w2', topic: 't', timeoutAt: later });
      expect(after).toMatchObject({ record: { result: '{"received":true,"data":2}' } });
    });

    it('refuses a step name recorded as another kind, writing nothing', async () => {
      const store = ctx.store();
      const lease = await running('st-kind');
      await store.steps.record(lease.id, { name: 'x', result: '1' });
      const wakeAt = new Date(Date.now() + 60_000);
      expect(await codeOf(store.steps.sleep(lease, { name: 'x', wakeAt }))).toBe(
        'CHOKAQ_STEP_CHANGED',
      );
      expect(
        await codeOf(store.steps.wait(lease, { name: 'x', topic: 't', timeoutAt: wakeAt })),
      ).toBe('CHOKAQ_STEP_CHANGED');
      expect((await hot(lease.id)).state).toBe('processing');
      expect(await store.steps.list(lease.id)).toHaveLength(1);
    });

    it('refuses a wait whose recorded topic changed, suspending nothing', async () => {
      const store = ctx.store();
      const lease = await running('st-topic');
      await store.steps.send(lease.id, 'old', '1');
      const timeoutAt = new Date(Date.now() + 60_000);
      await store.steps.wait(lease, { name: 'w', topic: 'old', timeoutAt });
      const renamed = store.steps.wait(lease, { name: 'w', topic: 'new', timeoutAt });
      expect(await codeOf(renamed)).toBe('CHOKAQ_STEP_CHANGED');
      expect((await hot(lease.id)).state).toBe('processing');
    });

    it('refuses an event for a job that is not active, keeping nothing', async () => {
      const store = ctx.store();
      const lease = await running('st-gone');
      await store.jobs.settle([{ kind: 'archive', lease, durationMs: 1 }]);
      expect(await codeOf(store.steps.send(lease.id, 't', '1'))).toBe('CHOKAQ_JOB_NOT_ACTIVE');
      expect(await codeOf(store.steps.send('no-such-job', 't', '1'))).toBe('CHOKAQ_JOB_NOT_ACTIVE');
    });

    it('deletes the steps of a run that used them when its job keeps no archive row', async () => {
      const store = ctx.store();
      const [kept, gone] = await ctx.processing('st-keep', 2);
      for (const job of [kept!, gone!]) {
        await store.steps.record(job.id, { name: 's', result: '1' });
        await store.steps.send(job.id, 'unread', '1');
      }
      await store.jobs.settle([
        { kind: 'archive', lease: leaseOf(kept!), durationMs: 1, steps: true },
        { kind: 'archive', lease: leaseOf(gone!), durationMs: 1, steps: true, keep: false },
      ]);
      expect(await store.steps.list(kept!.id)).toHaveLength(1);
      expect(await store.steps.list(gone!.id)).toEqual([]);
    });

    it('retention deletes the events of a job that is gone, never those of one still here', async () => {
      const store = ctx.store();
      const [gone, here] = await ctx.processing('st-orphan', 2);
      for (const job of [gone!, here!]) await store.steps.send(job.id, 'late', '"old"');
      // A run that used no step, of a type that keeps no succeeded rows: its events stay behind
      // (the memory store deletes them at once) until retention.
      await store.jobs.settle([
        { kind: 'archive', lease: leaseOf(gone!), durationMs: 1, keep: false },
      ]);
      await scanEvents(100);
      expect(await scanEvents(100)).toMatchObject({ deleted: 0 });
      // A new job given the gone job's id gets no event sent to the old one.
      await ctx.enqueueOne({ id: gone!.id, queue: 'st-orphan-again' });
      const again = await running('st-orphan-again');
      const timeoutAt = new Date(Date.now() + 60_000);
      expect(await store.steps.wait(again, { name: 'w', topic: 'late', timeoutAt })).toEqual({
        kind: 'suspended',
        wakeAt: timeoutAt,
      });
      // The job still here keeps its event.
      const kept = await store.steps.wait(leaseOf(here!), { name: 'w', topic: 'late', timeoutAt });
      expect(kept).toMatchObject({ record: { result: '{"received":true,"data":"old"}' } });
    });

    it('retention reads events in windows of its limit, going on where the last one stopped', async () => {
      const store = ctx.store();
      const here = await ctx.processing('st-window', 3);
      const [gone] = await ctx.processing('st-window-gone', 1);
      for (const job of here) await store.steps.send(job.id, 'kept', '1');
      for (const n of [1, 2]) await store.steps.send(gone!.id, 'lost', String(n));
      await store.jobs.settle([
        { kind: 'archive', lease: leaseOf(gone!), durationMs: 1, keep: false },
      ]);
      const { deleted, windows } = await scanEvents(2);
      // The three events of living jobs come first: a window of two cannot reach the orphans.
      // (The memory store deleted them with the settle.)
      if (ctx.provider !== 'memory') {
        expect(windows).toBeGreaterThanOrEqual(3);
        expect(deleted).toBeGreaterThanOrEqual(2);
      }
      expect(await scanEvents(2)).toMatchObject({ deleted: 0 });
      const timeoutAt = new Date(Date.now() + 60_000);
      for (const job of here) {
        const taken = await store.steps.wait(leaseOf(job), { name: 'w', topic: 'kept', timeoutAt });
        expect(taken).toMatchObject({ kind: 'done' });
      }
    });

    it('deletes the steps and events of a job purged from the DLQ', async () => {
      const store = ctx.store();
      const lease = await running('st-purge');
      await store.steps.record(lease.id, { name: 's', result: '1' });
      await store.steps.send(lease.id, 'later', '1');
      await store.jobs.settle([{ kind: 'dead', lease, reason: 'Fatal', error: 'Error: boom' }]);
      expect(await store.steps.list(lease.id)).toHaveLength(1);
      await store.operator.purgeDead([lease.id]);
      expect(await store.steps.list(lease.id)).toEqual([]);
    });
  });
}
