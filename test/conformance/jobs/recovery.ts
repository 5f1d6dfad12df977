/**
 * Conformance of the recovery verbs of the `JobStore`: `heartbeat` (a held lease kept alive, a
 * lost one reported, cancel requests told to the owner), the settlements of lost runs (refunded on
 * retry) and of a fetched job dead-lettered only when the settlement says so, `cancel` (pending
 * and fetched jobs to the DLQ at once, a request on a running one) and `rescue` (stale
 * claims back to pending, zombies to the DLQ or retried for opted-in types, cancel requests
 * carried out, each job moved once under concurrent passes). Registered by `describeJobStore`.
 *
 * The SQL stores judge staleness with the database clock, so these tests age rows in real time
 * against tiny timeouts (1 s for a fetched row, 150 ms for a heartbeat): they wait until the
 * store's clock has passed the row's last sign of life plus the timeout (no fixed sleeps), and
 * keep the rows that must survive fresh right before rescuing.
 */
import { describe, expect, it } from 'vitest';
import type { FailureReason } from '../../../src/job/state.js';
import { timelineOf } from '../../../src/operator/timeline.js';
import type { HotJob, NewJob } from '../../../src/storage/model.js';
import type { RescueOptions, RescuedJob } from '../../../src/storage/job-store.js';
import type { ConformanceContext } from '../context.js';
import { ids, leaseOf, newJob, sorted } from '../helpers.js';

/** The type of every job made by the suite's helpers. */
const TYPE = 'conformance.job';
/** A type that opts in to zombie retries in the tests that say so. */
const FLAKY = 'conformance.flaky';

/** Long enough that no row of a test ever goes stale: only cancel requests are acted on. */
const PATIENT: RescueOptions = {
  fetchedTimeoutMs: 60_000,
  processingTimeoutMs: 60_000,
  retryZombieTypes: {},
};

/** Age of a processing row's heartbeat that counts as a zombie. */
const ZOMBIE_MS = 150;
/**
 * Age of a fetched row that counts as stale. A second: the test claims its fresh row after the
 * stale one aged, and a loaded machine took over 100 ms from that claim to the rescue.
 */
const STALE_FETCHED_MS = 1000;

/** When a processing row last showed life, as rescue judges it (ms since the epoch). */
function lastSign(job: HotJob): number {
  return (job.heartbeatAt ?? job.startedAt ?? job.updatedAt).getTime();
}

function rescued(job: { id: string; queue: string; type: string }): RescuedJob {
  return { id: job.id, queue: job.queue, type: job.type };
}

/** Registers the recovery conformance tests; call inside the provider's `describe`. */
export function describeRecovery(ctx: ConformanceContext): void {
  const { hot, archived, dead, fetched, processing, statsOf, bucketsOf, storeTimePasses } = ctx;

  /** Resolves once every one of `jobs` is older than the zombie timeout by the store's clock. */
  async function zombiesBy(jobs: readonly HotJob[], timeoutMs = ZOMBIE_MS): Promise<void> {
    await storeTimePasses(Math.max(...jobs.map(lastSign)) + timeoutMs);
  }

  /** Sum of failure-bucket counts of `queue`, by reason. */
  async function failuresOf(queue: string): Promise<Partial<Record<FailureReason, number>>> {
    const totals: Partial<Record<FailureReason, number>> = {};
    for (const bucket of await bucketsOf(queue)) {
      if (bucket.outcome !== 'failed' || bucket.reason === null) continue;
      totals[bucket.reason] = (totals[bucket.reason] ?? 0) + bucket.count;
    }
    return totals;
  }

  /** Enqueues one job, claims it from its (idle) queue and starts it. */
  async function startOne(overrides: Partial<NewJob>, workerId = 'worker-1'): Promise<HotJob> {
    const job = newJob(overrides);
    await ctx.store().jobs.enqueue([job]);
    return claimAndStart(job.queue, workerId);
  }

  /** Claims the one due job of `queue` and starts it. */
  async function claimAndStart(queue: string, workerId = 'worker-1'): Promise<HotJob> {
    const [row] = await ctx.store().jobs.claim({ workerId, limit: 1, queues: [queue] });
    if (!row) throw new Error(`nothing to claim in ${queue}`);
    const [started] = await ctx.store().jobs.start([leaseOf(row)]);
    if (!started) throw new Error(`job ${row.id} did not start`);
    return hot(started.id);
  }

  // ------------------------------------------------------------------------------ heartbeat

  describe('heartbeat', () => {
    it('keeps a held processing lease alive and refreshes heartbeatAt', async () => {
      const store = ctx.store();
      expect(await store.jobs.heartbeat([])).toEqual([]);
      const [job] = await processing('hb', 1);
      if (!job) throw new Error('unreachable');
      const startedBeat = job.heartbeatAt?.getTime() ?? Number.NaN;
      await storeTimePasses(startedBeat); // a new heartbeat gets a later time
      expect(await store.jobs.heartbeat([leaseOf(job)])).toEqual([
        { alive: true, cancelRequested: false, cancelRequestedBy: null },
      ]);
      const row = await hot(job.id);
      expect(row).toMatchObject({
        state: 'processing',
        attempts: 1,
        workerId: job.workerId,
        leaseToken: job.leaseToken,
      });
      expect(row.heartbeatAt?.getTime()).toBeGreaterThan(startedBeat);
      expect(row.startedAt?.getTime()).toBe(job.startedAt?.getTime());

      await storeTimePasses(row.heartbeatAt ?? Number.NaN);
      expect(await store.jobs.heartbeat([leaseOf(job)])).toEqual([
        { alive: true, cancelRequested: false, cancelRequestedBy: null },
      ]);
      expect((await hot(job.id)).heartbeatAt?.getTime()).toBeGreaterThan(
        row.heartbeatAt?.getTime() ?? Number.NaN,
      );
    });

    it('reports leases that are not held as not alive and changes nothing', async () => {
      const store = ctx.store();
      const [job] = await processing('hbn', 1);
      const [waiting] = await fetched('hbn-fetched', 1);
      const [done, failed] = await processing('hbn-gone', 2);
      if (!job || !waiting || !done || !failed) throw new Error('unreachable');
      const other = { ...leaseOf(waiting), leaseToken: 'not-the-token' };
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease: leaseOf(done), durationMs: 1 },
          { kind: 'dead', lease: leaseOf(failed), reason: 'Fatal', error: 'x' },
        ]),
      ).toEqual([true, true]);
      const lease = leaseOf(job);
      const before = await hot(job.id);
      const waitingBefore = await hot(waiting.id);
      await storeTimePasses(await store.cluster.now()); // a wrongful write would now change the times

      const results = await store.jobs.heartbeat([
        { ...lease, leaseToken: 'not-the-token' },
        { ...lease, workerId: 'intruder' },
        other,
        leaseOf(done),
        leaseOf(failed),
        { ...lease, id: 'missing' },
      ]);
      expect(results).toHaveLength(6);
      expect(results.map((result) => result.alive)).toEqual([
        false,
        false,
        false,
        false,
        false,
        false,
      ]);
      expect((await hot(job.id)).heartbeatAt?.getTime()).toBe(before.heartbeatAt?.getTime());
      const waitingAfter = await hot(waiting.id);
      expect(waitingAfter).toMatchObject({ state: 'fetched', leaseToken: waiting.leaseToken });
      expect(waitingAfter.heartbeatAt?.getTime()).toBe(waitingBefore.heartbeatAt?.getTime());
      await archived(done.id);
      await dead(failed.id);

      // The fetched job is still startable, and then its lease is alive.
      expect(ids(await store.jobs.start([leaseOf(waiting)]))).toEqual([waiting.id]);
      expect(await store.jobs.heartbeat([leaseOf(waiting)])).toEqual([
        { alive: true, cancelRequested: false, cancelRequestedBy: null },
      ]);
    });

    it('keeps the lease of a fetched job alive: a run whose start is not recorded yet', async () => {
      const store = ctx.store();
      const [waiting] = await fetched('hbf', 1);
      if (!waiting) throw new Error('unreachable');
      const before = await hot(waiting.id);
      await storeTimePasses(await store.cluster.now());
      expect(await store.jobs.heartbeat([leaseOf(waiting)])).toEqual([
        { alive: true, cancelRequested: false, cancelRequestedBy: null },
      ]);
      const after = await hot(waiting.id);
      expect(after).toMatchObject({ state: 'fetched', attempts: 0 });
      // Fresher than before: the rescue of stale claims leaves it alone.
      expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    });

    it('tells the owner that a cancel was requested', async () => {
      const store = ctx.store();
      const [job, other] = await processing('hbc', 2);
      if (!job || !other) throw new Error('unreachable');
      expect(await store.jobs.cancel([job.id], 'ops-erin')).toEqual({
        cancelled: [],
        requested: [job.id],
      });
      expect(await store.jobs.heartbeat([leaseOf(job), leaseOf(other)])).toEqual([
        { alive: true, cancelRequested: true, cancelRequestedBy: 'ops-erin' },
        { alive: true, cancelRequested: false, cancelRequestedBy: null },
      ]);
      // The request persists: every later heartbeat sees it.
      expect(await store.jobs.heartbeat([leaseOf(job)])).toEqual([
        { alive: true, cancelRequested: true, cancelRequestedBy: 'ops-erin' },
      ]);
    });

    it('answers a mixed batch in input order', async () => {
      const store = ctx.store();
      const [a, b, c] = await processing('hbm', 3);
      const [f] = await fetched('hbm-fetched', 1);
      if (!a || !b || !c || !f) throw new Error('unreachable');
      await store.jobs.cancel([b.id], 'ops');
      const results = await store.jobs.heartbeat([
        leaseOf(c),
        { ...leaseOf(a), leaseToken: 'stale' },
        leaseOf(b),
        leaseOf(f),
        leaseOf(a),
        { id: 'missing', workerId: 'worker-1', leaseToken: 'x' },
      ]);
      expect(results.map((result) => result.alive)).toEqual([true, false, true, true, true, false]);
      const alive = results.filter((result) => result.alive);
      expect(alive.map((result) => result.cancelRequested)).toEqual([false, true, false, false]);
      expect(alive.map((result) => result.cancelRequestedBy)).toEqual([null, 'ops', null, null]);
    });
  });

  // ------------------------------------------------------------ settle: lost runs, from fetched

  describe('settle: lost runs and dead-lettering a fetched job', () => {
    it('refunds a lost run on retry', async () => {
      const store = ctx.store();
      const [job] = await processing('lost', 1);
      if (!job) throw new Error('unreachable');
      expect(
        await store.jobs.settle([
          { kind: 'retry', lease: leaseOf(job), from: 'processing', delayMs: 0, error: 'failed' },
        ]),
      ).toEqual([true]);
      const second = await claimAndStart('lost');
      expect(second).toMatchObject({ id: job.id, attempts: 2, lostAttempts: 0 });

      expect(
        await store.jobs.settle([
          {
            kind: 'retry',
            lease: leaseOf(second),
            from: 'processing',
            delayMs: 0,
            error: 'shutdown',
            lost: true,
          },
        ]),
      ).toEqual([true]);
      expect(await hot(job.id)).toMatchObject({
        state: 'pending',
        attempts: 1,
        lostAttempts: 1,
        lastError: 'shutdown',
        workerId: null,
        leaseToken: null,
      });
      expect((await statsOf('lost')).retriedTotal).toBe(2);
      expect(await store.jobs.heartbeat([leaseOf(second)])).toMatchObject([{ alive: false }]);

      // The next run counts from the refunded value and keeps the lost count.
      const third = await claimAndStart('lost');
      expect(third).toMatchObject({ id: job.id, attempts: 2, lostAttempts: 1 });
    });

    it('dead-letters a fetched job only when the settlement says from fetched', async () => {
      const store = ctx.store();
      const [row] = await fetched('df', 1);
      if (!row) throw new Error('unreachable');
      expect(
        await store.jobs.settle([
          { kind: 'dead', lease: leaseOf(row), reason: 'Fatal', error: 'no handler' },
        ]),
      ).toEqual([false]);
      expect(
        await store.jobs.settle([
          {
            kind: 'dead',
            lease: { ...leaseOf(row), leaseToken: 'nope' },
            from: 'fetched',
            reason: 'Fatal',
            error: 'no handler',
          },
        ]),
      ).toEqual([false]);
      expect((await hot(row.id)).state).toBe('fetched');
      expect((await statsOf('df')).failedTotal).toBe(0);

      expect(
        await store.jobs.settle([
          {
            kind: 'dead',
            lease: leaseOf(row),
            from: 'fetched',
            reason: 'Fatal',
            error: 'no handler',
          },
        ]),
      ).toEqual([true]);
      expect(await dead(row.id)).toMatchObject({
        queue: 'df',
        reason: 'Fatal',
        errorDetails: 'no handler',
        attempts: 0,
        lostAttempts: 0,
      });
      expect(await statsOf('df')).toMatchObject({ fetched: 0, dead: 1, failedTotal: 1 });
      expect(await failuresOf('df')).toEqual({ Fatal: 1 });
      expect(await store.jobs.start([leaseOf(row)])).toEqual([]);

      // For a processing job, `from: 'fetched'` is a conflict; `from: 'processing'` applies.
      const [job] = await processing('df-processing', 1);
      if (!job) throw new Error('unreachable');
      expect(
        await store.jobs.settle([
          { kind: 'dead', lease: leaseOf(job), from: 'fetched', reason: 'Fatal', error: 'e' },
        ]),
      ).toEqual([false]);
      expect(await hot(job.id)).toMatchObject({ state: 'processing', attempts: 1 });
      expect((await statsOf('df-processing')).failedTotal).toBe(0);
      expect(
        await store.jobs.settle([
          { kind: 'dead', lease: leaseOf(job), from: 'processing', reason: 'Fatal', error: 'e' },
        ]),
      ).toEqual([true]);
      expect((await dead(job.id)).attempts).toBe(1);
    });
  });

  // --------------------------------------------------------------------------------- cancel

  describe('cancel', () => {
    it('moves pending and fetched jobs to the DLQ as Cancelled', async () => {
      const store = ctx.store();
      const [claimedRow] = await fetched('cx', 1);
      if (!claimedRow) throw new Error('unreachable');
      const pending = await ctx.enqueueOne({ queue: 'cx', createdBy: 'maker' });
      const bystander = await ctx.enqueueOne({ queue: 'cx' });

      const result = await store.jobs.cancel([pending, claimedRow.id], 'ops-alice');
      expect(sorted(result.cancelled)).toEqual(sorted([pending, claimedRow.id]));
      expect(result.requested).toEqual([]);
      for (const id of [pending, claimedRow.id]) {
        const row = await dead(id);
        expect(row).toMatchObject({
          id,
          queue: 'cx',
          type: TYPE,
          reason: 'Cancelled',
          attempts: 0,
          lostAttempts: 0,
        });
        expect(row.errorDetails).toContain('ops-alice');
        // It never ran: no start, and its history keeps who cancelled it.
        expect(row.startedAt).toBeNull();
        expect(row.lastModifiedBy).toBe('ops-alice');
        expect(row.history).toEqual([
          { kind: 'action', action: 'cancel', actor: 'ops-alice', at: row.failedAt },
        ]);
        expect(timelineOf({ where: 'dlq', job: row }).map((e) => e.kind)).toEqual([
          'enqueued',
          'cancel-requested',
          'dead',
        ]);
      }
      expect((await dead(pending)).createdBy).toBe('maker');
      expect(ids(await store.operator.listHot({ queue: 'cx', limit: 10 }))).toEqual([bystander]);
      expect(await statsOf('cx')).toMatchObject({
        pending: 1,
        fetched: 0,
        dead: 2,
        failedTotal: 2,
        succeededTotal: 0,
        retriedTotal: 0,
      });
      expect(await failuresOf('cx')).toEqual({ Cancelled: 2 });
      expect(ids(await store.operator.listDead({ reason: 'Cancelled', limit: 10 })).sort()).toEqual(
        sorted([pending, claimedRow.id]),
      );
    });

    it('ends the lease of a cancelled fetched job', async () => {
      const store = ctx.store();
      const [row] = await fetched('cl', 1);
      if (!row) throw new Error('unreachable');
      const lease = leaseOf(row);
      expect(await store.jobs.cancel([row.id], 'ops')).toEqual({
        cancelled: [row.id],
        requested: [],
      });
      expect(await store.jobs.start([lease])).toEqual([]);
      expect(await store.jobs.heartbeat([lease])).toMatchObject([{ alive: false }]);
      expect(await store.jobs.settle([{ kind: 'release', lease }])).toEqual([false]);
      expect((await dead(row.id)).reason).toBe('Cancelled');
      expect((await statsOf('cl')).failedTotal).toBe(1);
    });

    it('puts a cancel request on a processing job and leaves it running', async () => {
      const store = ctx.store();
      const [job] = await processing('cp', 1);
      if (!job) throw new Error('unreachable');
      const before = await store.cluster.now();
      expect(await store.jobs.cancel([job.id], 'ops-bob')).toEqual({
        cancelled: [],
        requested: [job.id],
      });
      const after = await store.cluster.now();
      const row = await hot(job.id);
      expect(row).toMatchObject({
        state: 'processing',
        attempts: 1,
        workerId: job.workerId,
        leaseToken: job.leaseToken,
        cancelRequestedBy: 'ops-bob',
      });
      expect(row.cancelRequestedAt).toBeInstanceOf(Date);
      expect(row.cancelRequestedAt?.getTime()).toBeGreaterThanOrEqual(before.getTime());
      expect(row.cancelRequestedAt?.getTime()).toBeLessThanOrEqual(after.getTime());
      expect(await statsOf('cp')).toMatchObject({ processing: 1, dead: 0, failedTotal: 0 });
      expect(await failuresOf('cp')).toEqual({});
      expect(await store.jobs.heartbeat([leaseOf(job)])).toEqual([
        { alive: true, cancelRequested: true, cancelRequestedBy: 'ops-bob' },
      ]);
    });

    it('ignores ids that are not in the hot table', async () => {
      const store = ctx.store();
      const [done, failed] = await processing('cu', 2);
      if (!done || !failed) throw new Error('unreachable');
      await store.jobs.settle([
        { kind: 'archive', lease: leaseOf(done), durationMs: 1 },
        { kind: 'dead', lease: leaseOf(failed), reason: 'Timeout', error: 'slow' },
      ]);
      const pending = await ctx.enqueueOne({ queue: 'cu' });

      expect(await store.jobs.cancel([], 'ops')).toEqual({ cancelled: [], requested: [] });
      expect(await store.jobs.cancel(['missing', done.id, failed.id], 'ops')).toEqual({
        cancelled: [],
        requested: [],
      });
      expect((await archived(done.id)).note).toBeNull();
      expect(await dead(failed.id)).toMatchObject({ reason: 'Timeout', errorDetails: 'slow' });
      expect((await statsOf('cu')).failedTotal).toBe(1);

      // Mixed with real ids, only those act.
      expect(await store.jobs.cancel(['missing', pending], 'ops')).toEqual({
        cancelled: [pending],
        requested: [],
      });
      expect((await statsOf('cu')).failedTotal).toBe(2);
    });

    it('never claims a retried job that carries a cancel request; rescue cancels it', async () => {
      const store = ctx.store();
      const [job] = await processing('cr', 1);
      if (!job) throw new Error('unreachable');
      expect((await store.jobs.cancel([job.id], 'ops-carol')).requested).toEqual([job.id]);
      expect(
        await store.jobs.settle([
          {
            kind: 'retry',
            lease: leaseOf(job),
            from: 'processing',
            delayMs: 0,
            error: 'aborted',
            lost: true,
          },
        ]),
      ).toEqual([true]);
      const row = await hot(job.id);
      expect(row).toMatchObject({
        state: 'pending',
        workerId: null,
        leaseToken: null,
        cancelRequestedBy: 'ops-carol',
      });
      expect(row.cancelRequestedAt).toBeInstanceOf(Date);

      // Due at once, yet never claimed; other jobs of the queue still are.
      const other = await ctx.enqueueOne({ queue: 'cr' });
      expect(ids(await store.jobs.claim({ workerId: 'w', limit: 10, queues: null }))).toEqual([
        other,
      ]);
      expect(await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['cr'] })).toEqual([]);
      expect((await hot(job.id)).state).toBe('pending');

      expect(await store.jobs.rescue(PATIENT)).toEqual({
        skipped: false,
        released: 0,
        idempotencyClaimsPurged: 0,
        dead: [],
        retried: [],
        cancelled: [rescued({ id: job.id, queue: 'cr', type: TYPE })],
      });
      const cancelled = await dead(job.id);
      expect(cancelled).toMatchObject({
        reason: 'Cancelled',
        errorDetails: 'Cancelled by ops-carol',
        lastModifiedBy: 'ops-carol',
        startedAt: null, // the run it had was lost and is in the history; it did not run again
      });
      expect(cancelled.history.map((e) => (e.kind === 'run' ? e.outcome : e.action))).toEqual([
        'lost',
        'cancel',
      ]);
      expect(cancelled.history[1]).toEqual({
        kind: 'action',
        action: 'cancel',
        actor: 'ops-carol',
        at: row.cancelRequestedAt,
      });
      const timeline = timelineOf({ where: 'dlq', job: cancelled });
      expect(timeline.map((e) => (e.kind === 'run' ? e.outcome : e.kind))).toEqual([
        'enqueued',
        'lost',
        'cancel-requested',
        'dead',
      ]);
      expect((await hot(other)).state).toBe('fetched');
      expect((await store.jobs.rescue(PATIENT)).cancelled).toEqual([]);
    });

    it("records the requester of a running job's cancel in its DLQ row and history", async () => {
      const store = ctx.store();
      const [job, failing] = await processing('ca', 2);
      if (!job || !failing) throw new Error('unreachable');
      await storeTimePasses(job.startedAt ?? 0); // the request comes after the start
      await store.jobs.cancel([job.id], 'ops-dan');
      const requested = await hot(job.id);
      // The owner saw the request at its heartbeat, with the requester, and settles the run.
      const [beat] = await store.jobs.heartbeat([leaseOf(job)]);
      expect(beat).toEqual({ alive: true, cancelRequested: true, cancelRequestedBy: 'ops-dan' });
      const error = `Cancelled by ${beat?.cancelRequestedBy ?? ''} while running`;
      expect(
        await store.jobs.settle([
          { kind: 'dead', lease: leaseOf(job), reason: 'Cancelled', error },
          { kind: 'dead', lease: leaseOf(failing), reason: 'Fatal', error: 'boom' },
        ]),
      ).toEqual([true, true]);
      const row = await dead(job.id);
      expect(row).toMatchObject({
        reason: 'Cancelled',
        errorDetails: 'Cancelled by ops-dan while running',
        lastModifiedBy: 'ops-dan',
        attempts: 1,
      });
      expect(row.startedAt?.getTime()).toBe(job.startedAt?.getTime());
      expect(row.history).toEqual([
        { kind: 'action', action: 'cancel', actor: 'ops-dan', at: requested.cancelRequestedAt },
      ]);
      const timeline = timelineOf({ where: 'dlq', job: row });
      expect(timeline.map((e) => (e.kind === 'run' ? e.outcome : e.kind))).toEqual([
        'enqueued',
        'dead', // the run, started before the request
        'cancel-requested',
      ]);
      expect(timeline[2]).toMatchObject({ kind: 'cancel-requested', actor: 'ops-dan' });
      // A failure with no cancel request records no cancel and keeps its start.
      const other = await dead(failing.id);
      expect(other.history).toEqual([]);
      expect(other.lastModifiedBy).toBeNull();
      expect(other.startedAt).toBeInstanceOf(Date);
    });
  });

  // --------------------------------------------------------------------------------- rescue

  describe('rescue', () => {
    it('returns stale fetched jobs to pending and leaves fresh ones', async () => {
      const store = ctx.store();
      const [stale] = await fetched('rf', 1);
      if (!stale) throw new Error('unreachable');
      await storeTimePasses(stale.updatedAt.getTime() + STALE_FETCHED_MS);
      const [fresh] = await fetched('rf-fresh', 1);
      if (!fresh) throw new Error('unreachable');

      expect(
        await store.jobs.rescue({
          fetchedTimeoutMs: STALE_FETCHED_MS,
          processingTimeoutMs: 60_000,
          retryZombieTypes: {},
        }),
      ).toEqual({
        skipped: false,
        released: 1,
        dead: [],
        retried: [],
        cancelled: [],
        idempotencyClaimsPurged: 0,
      });
      expect(await hot(stale.id)).toMatchObject({
        state: 'pending',
        attempts: 0,
        lostAttempts: 0,
        workerId: null,
        leaseToken: null,
      });
      expect(await store.jobs.start([leaseOf(stale)])).toEqual([]);
      expect(await hot(fresh.id)).toMatchObject({
        state: 'fetched',
        workerId: fresh.workerId,
        leaseToken: fresh.leaseToken,
      });
      expect(ids(await store.jobs.start([leaseOf(fresh)]))).toEqual([fresh.id]);
      expect(await statsOf('rf')).toMatchObject({ pending: 1, failedTotal: 0, dead: 0 });

      // Released at once: claimable again under a new lease.
      const [again] = await store.jobs.claim({ workerId: 'worker-2', limit: 1, queues: ['rf'] });
      expect(again).toMatchObject({ id: stale.id, attempts: 0 });
      expect(again?.leaseToken).not.toBe(stale.leaseToken);
    });

    it('moves zombies to the DLQ and leaves fresh processing jobs', async () => {
      const store = ctx.store();
      const [zombie, survivor] = await processing('rz', 2);
      if (!zombie || !survivor) throw new Error('unreachable');
      await zombiesBy([zombie]);
      expect(await store.jobs.heartbeat([leaseOf(survivor)])).toEqual([
        { alive: true, cancelRequested: false, cancelRequestedBy: null },
      ]);

      expect(
        await store.jobs.rescue({
          fetchedTimeoutMs: 60_000,
          processingTimeoutMs: ZOMBIE_MS,
          retryZombieTypes: {},
        }),
      ).toEqual({
        skipped: false,
        released: 0,
        idempotencyClaimsPurged: 0,
        dead: [rescued(zombie)],
        retried: [],
        cancelled: [],
      });
      expect(await dead(zombie.id)).toMatchObject({
        queue: 'rz',
        type: TYPE,
        reason: 'Zombie',
        attempts: 1,
        lostAttempts: 0,
      });
      expect(await statsOf('rz')).toMatchObject({ processing: 1, dead: 1, failedTotal: 1 });
      expect(await failuresOf('rz')).toEqual({ Zombie: 1 });

      // The old owner lost the job for good; the survivor's owner did not.
      expect(await store.jobs.heartbeat([leaseOf(zombie)])).toMatchObject([{ alive: false }]);
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease: leaseOf(zombie), durationMs: 1 },
          { kind: 'archive', lease: leaseOf(survivor), durationMs: 1 },
        ]),
      ).toEqual([false, true]);
      expect((await dead(zombie.id)).reason).toBe('Zombie');
      expect(await statsOf('rz')).toMatchObject({ succeededTotal: 1, failedTotal: 1 });
    });

    it("lets a queue's zombieTimeoutSeconds override the global timeout", async () => {
      const store = ctx.store();
      await store.queues.updateQueue('zq-short', { zombieTimeoutSeconds: 1 });
      await store.queues.updateQueue('zq-long', { zombieTimeoutSeconds: 3_600 });
      const [short] = await processing('zq-short', 1);
      const [plain] = await processing('zq-plain', 1);
      const [long] = await processing('zq-long', 1);
      if (!short || !plain || !long) throw new Error('unreachable');
      await zombiesBy([short], 1_000);

      // Global one hour: only the queue with a one-second timeout has zombies.
      expect(
        await store.jobs.rescue({
          fetchedTimeoutMs: 60_000,
          processingTimeoutMs: 3_600_000,
          retryZombieTypes: {},
        }),
      ).toEqual({
        skipped: false,
        released: 0,
        idempotencyClaimsPurged: 0,
        dead: [rescued(short)],
        retried: [],
        cancelled: [],
      });
      expect((await dead(short.id)).reason).toBe('Zombie');
      expect((await hot(plain.id)).state).toBe('processing');
      expect((await hot(long.id)).state).toBe('processing');

      // Global 150 ms: the queue without its own timeout follows it, the one-hour queue does not.
      const second = await store.jobs.rescue({
        fetchedTimeoutMs: 60_000,
        processingTimeoutMs: ZOMBIE_MS,
        retryZombieTypes: {},
      });
      expect(second.dead).toEqual([rescued(plain)]);
      expect((await hot(long.id)).state).toBe('processing');
      expect(await store.jobs.heartbeat([leaseOf(long)])).toEqual([
        { alive: true, cancelRequested: false, cancelRequestedBy: null },
      ]);
    });

    it('retries zombies of opted-in types until lostAttempts reaches the maximum', async () => {
      const store = ctx.store();
      const options: RescueOptions = {
        fetchedTimeoutMs: 60_000,
        processingTimeoutMs: ZOMBIE_MS,
        retryZombieTypes: { [FLAKY]: 2 },
      };
      const job = newJob({ queue: 'rzt', type: FLAKY });
      await store.jobs.enqueue([job]);
      const other = await startOne({ queue: 'rzt-other' });

      for (let round = 1; round <= 2; round += 1) {
        const run = await claimAndStart('rzt');
        expect(run).toMatchObject({ id: job.id, attempts: 1, lostAttempts: round - 1 });
        await zombiesBy(round === 1 ? [run, other] : [run]);
        const result = await store.jobs.rescue(options);
        expect(result).toEqual({
          skipped: false,
          released: 0,
          idempotencyClaimsPurged: 0,
          // A type that did not opt in dies on the first pass.
          dead: round === 1 ? [rescued(other)] : [],
          retried: [{ id: job.id, queue: 'rzt', type: FLAKY }],
          cancelled: [],
        });
        expect(await hot(job.id)).toMatchObject({
          state: 'pending',
          attempts: 0,
          lostAttempts: round,
          workerId: null,
          leaseToken: null,
        });
        expect(await store.jobs.heartbeat([leaseOf(run)])).toMatchObject([{ alive: false }]);
        expect(
          await store.jobs.settle([{ kind: 'archive', lease: leaseOf(run), durationMs: 1 }]),
        ).toEqual([false]);
        expect(await statsOf('rzt')).toMatchObject({ retriedTotal: round, failedTotal: 0 });
      }
      expect((await dead(other.id)).reason).toBe('Zombie');

      // lostAttempts is now 2, the maximum: the next zombie goes to the DLQ.
      const last = await claimAndStart('rzt');
      expect(last).toMatchObject({ attempts: 1, lostAttempts: 2 });
      await zombiesBy([last]);
      expect(await store.jobs.rescue(options)).toEqual({
        skipped: false,
        released: 0,
        idempotencyClaimsPurged: 0,
        dead: [{ id: job.id, queue: 'rzt', type: FLAKY }],
        retried: [],
        cancelled: [],
      });
      expect(await dead(job.id)).toMatchObject({
        reason: 'Zombie',
        attempts: 1,
        lostAttempts: 2,
      });
      expect(await statsOf('rzt')).toMatchObject({ retriedTotal: 2, failedTotal: 1, dead: 1 });
      expect(await failuresOf('rzt')).toEqual({ Zombie: 1 });
    });

    it('cancels a zombie that carries a cancel request, even of an opted-in type', async () => {
      const store = ctx.store();
      const zombie = await startOne({ queue: 'rzc', type: FLAKY });
      const running = await startOne({ queue: 'rzc-running', type: FLAKY });
      expect(await store.jobs.cancel([zombie.id, running.id], 'ops-dave')).toEqual({
        cancelled: [],
        requested: [zombie.id, running.id],
      });
      await zombiesBy([zombie]);
      expect(await store.jobs.heartbeat([leaseOf(running)])).toEqual([
        { alive: true, cancelRequested: true, cancelRequestedBy: 'ops-dave' },
      ]);

      expect(
        await store.jobs.rescue({
          fetchedTimeoutMs: 60_000,
          processingTimeoutMs: ZOMBIE_MS,
          retryZombieTypes: { [FLAKY]: 5 },
        }),
      ).toEqual({
        skipped: false,
        released: 0,
        idempotencyClaimsPurged: 0,
        dead: [],
        retried: [],
        cancelled: [{ id: zombie.id, queue: 'rzc', type: FLAKY }],
      });
      expect((await dead(zombie.id)).reason).toBe('Cancelled');
      expect(
        await store.jobs.settle([{ kind: 'archive', lease: leaseOf(zombie), durationMs: 1 }]),
      ).toEqual([false]);
      // A job still running with a fresh heartbeat is left to its owner.
      expect(await hot(running.id)).toMatchObject({
        state: 'processing',
        cancelRequestedBy: 'ops-dave',
      });
    });

    it('moves each zombie once under concurrent rescues', async () => {
      const store = ctx.store();
      const jobs = await processing('rc', 3);
      await zombiesBy(jobs);
      const options: RescueOptions = {
        fetchedTimeoutMs: 60_000,
        processingTimeoutMs: ZOMBIE_MS,
        retryZombieTypes: {},
      };
      const results = await Promise.all(
        Array.from({ length: 4 }, () => store.jobs.rescue(options)),
      );
      expect(results.some((result) => !result.skipped)).toBe(true);
      for (const result of results) {
        if (result.skipped) {
          expect(result).toMatchObject({ released: 0, dead: [], retried: [], cancelled: [] });
        }
      }
      const moved = results.flatMap((result) => ids(result.dead));
      expect(sorted(moved)).toEqual(sorted(ids(jobs)));
      expect(await statsOf('rc')).toMatchObject({ processing: 0, dead: 3, failedTotal: 3 });
      expect(await failuresOf('rc')).toEqual({ Zombie: 3 });
      expect(await store.jobs.rescue(options)).toEqual({
        skipped: false,
        released: 0,
        idempotencyClaimsPurged: 0,
        dead: [],
        retried: [],
        cancelled: [],
      });
    });
  });
}
