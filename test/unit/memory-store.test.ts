import { beforeEach, describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import type { ClaimedJob, HotJob } from '../../src/storage/model.js';
import type { RescueOptions } from '../../src/storage/job-store.js';
import type { Store } from '../../src/storage/store.js';
import type { NewJob } from '../../src/storage/model.js';
import { memory } from '../../src/storage/memory/index.js';
import { FakeClock } from '../../src/util/clock.js';
import { newJob as conformanceJob, leaseOf } from '../conformance/helpers.js';

/** A job with id `id` and an empty object as payload. */
function newJob(id: string, overrides: Partial<NewJob> = {}): NewJob {
  return conformanceJob({ id, payload: '{}', ...overrides });
}

const START = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('memory store', () => {
  let clock: FakeClock;
  let store: Store;

  beforeEach(() => {
    clock = new FakeClock(START);
    store = memory({ clock });
  });

  async function claimOne(workerId = 'w1'): Promise<ClaimedJob[]> {
    return store.jobs.claim({ workerId, limit: 10, queues: null });
  }

  describe('clock', () => {
    it('reports the injected clock as now', async () => {
      expect((await store.cluster.now()).getTime()).toBe(START);
      clock.advance(1234);
      expect((await store.cluster.now()).getTime()).toBe(START + 1234);
    });

    it('holds a delayed job until the fake clock reaches runAt', async () => {
      await store.jobs.enqueue([newJob('a', { delayMs: 2000 })]);
      const found = await store.operator.getJob('a');
      expect(found?.where).toBe('hot');
      expect(found?.job.createdAt.getTime()).toBe(START);
      expect(found?.where === 'hot' && found.job.runAt.getTime()).toBe(START + 2000);

      expect(await claimOne()).toEqual([]);
      clock.advance(1999);
      expect(await store.jobs.promote(10)).toEqual({ promoted: [], nextDueInMs: 1 });
      expect(await claimOne()).toEqual([]);
      clock.advance(1);
      expect(await claimOne()).toEqual([]); // due, but scheduled until promoted
      expect(await store.jobs.promote(10)).toEqual({
        promoted: [{ queue: 'default', count: 1 }],
        nextDueInMs: null,
      });
      expect((await claimOne()).map((j) => j.id)).toEqual(['a']);
    });

    it('holds a retried job for its delay, keeping attempts and the error', async () => {
      await store.jobs.enqueue([newJob('a')]);
      const [claimed] = await store.jobs.start((await claimOne()).map(leaseOf));
      if (claimed === undefined) throw new Error('not started');
      const lease = leaseOf(claimed);
      expect(
        await store.jobs.settle([
          { kind: 'retry', lease, from: 'processing', delayMs: 500, error: 'boom' },
        ]),
      ).toEqual([true]);

      expect(await claimOne()).toEqual([]);
      clock.advance(500);
      await store.jobs.promote(10);
      const [again] = await claimOne();
      expect(again?.attempts).toBe(1);
      const found = await store.operator.getJob('a');
      expect(found?.where === 'hot' && found.job.lastError).toBe('boom');
      expect(again?.runAt.getTime()).toBe(START + 500);
    });
  });

  describe('copies', () => {
    it('returns copies from enqueue-side reads, claim and start', async () => {
      await store.jobs.enqueue([newJob('a')]);
      const [claimed] = await claimOne();
      if (claimed === undefined) throw new Error('not claimed');
      claimed.state = 'pending';
      claimed.payload = 'mutated';
      claimed.runAt.setTime(0);

      const found = await store.operator.getJob('a');
      expect(found?.where === 'hot' && found.job.state).toBe('fetched');
      expect(found?.job.payload).toBe('{}');
      expect(found?.where === 'hot' && found.job.runAt.getTime()).toBe(START);

      const [started] = await store.jobs.start([leaseOf(claimed)]);
      started?.createdAt.setTime(0);
      const [listed] = await store.operator.listHot({ limit: 10 });
      expect(listed?.createdAt.getTime()).toBe(START);
    });

    it('returns copies of queues, stats, archive rows, DLQ rows and buckets', async () => {
      const queue = await store.queues.updateQueue('q', { maxWorkers: 3 });
      queue.maxWorkers = 99;
      queue.updatedAt.setTime(0);
      const [, stored] = await store.queues.listQueues();
      expect(stored?.maxWorkers).toBe(3);
      expect(stored?.updatedAt.getTime()).toBe(START);

      await store.jobs.enqueue([newJob('a'), newJob('b')]);
      const [a, b] = await store.jobs.start((await claimOne()).map(leaseOf));
      if (a === undefined || b === undefined) throw new Error('not started');
      await store.jobs.settle([
        { kind: 'archive', lease: leaseOf(a), durationMs: 5 },
        { kind: 'dead', lease: leaseOf(b), reason: 'Fatal', error: 'bad' },
      ]);

      const [archived] = await store.operator.listArchive({ limit: 1 });
      archived?.finishedAt.setTime(0);
      const [dead] = await store.operator.listDead({ limit: 1 });
      if (dead === undefined) throw new Error('no dead row');
      dead.errorDetails = 'changed';
      const [bucket] = await store.queues.metricBuckets(new Date(0));
      bucket?.bucketStart.setTime(0);
      const [stats] = await store.queues.queueStats();
      stats?.lastActivityAt?.setTime(0);

      expect((await store.operator.listArchive({ limit: 1 }))[0]?.finishedAt.getTime()).toBe(START);
      expect((await store.operator.listDead({ limit: 1 }))[0]?.errorDetails).toBe('bad');
      expect((await store.queues.metricBuckets(new Date(0)))[0]?.bucketStart.getTime()).toBe(START);
      expect((await store.queues.queueStats())[0]?.lastActivityAt?.getTime()).toBe(START);
    });
  });

  describe('atomic enqueue', () => {
    it('writes nothing when one job of a batch reuses a hot id', async () => {
      await store.jobs.enqueue([newJob('taken')]);
      const batch = [
        newJob('fresh-1', { queue: 'brand-new' }),
        newJob('taken'),
        newJob('fresh-2', { idempotencyKey: 'k' }),
      ];
      const error: unknown = await store.jobs.enqueue(batch).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ChokaQError);
      expect((error as ChokaQError).code).toBe('CHOKAQ_DUPLICATE_JOB_ID');
      expect(await store.operator.getJob('fresh-1')).toBeNull();
      expect(await store.operator.listHot({ limit: 10 })).toHaveLength(1);
      expect((await store.queues.listQueues()).map((q) => q.name)).toEqual(['default']);
      // The key was not taken by the failed batch.
      expect(await store.jobs.enqueue([newJob('fresh-2', { idempotencyKey: 'k' })])).toEqual([
        { id: 'fresh-2', created: true },
      ]);
    });

    it('rejects an id repeated inside one batch, writing nothing', async () => {
      const error: unknown = await store.jobs
        .enqueue([newJob('x'), newJob('x')])
        .catch((e: unknown) => e);
      expect((error as ChokaQError).code).toBe('CHOKAQ_DUPLICATE_JOB_ID');
      expect(await store.operator.listHot({ limit: 10 })).toEqual([]);
    });

    it('dedupes a key repeated inside one batch to the first job', async () => {
      const results = await store.jobs.enqueue([
        newJob('a', { idempotencyKey: 'k' }),
        newJob('b', { idempotencyKey: 'k' }),
      ]);
      expect(results).toEqual([
        { id: 'a', created: true },
        { id: 'a', created: false },
      ]);
    });
  });

  describe('error-group retention', () => {
    it('drops trend hours past two days in a DLQ batch, also of groups that stopped failing', async () => {
      await store.jobs.enqueue([newJob('a'), newJob('b')]);
      const [a, b] = await store.jobs.start((await claimOne()).map(leaseOf));
      if (a === undefined || b === undefined) throw new Error('not started');
      await store.jobs.settle([
        { kind: 'dead', lease: leaseOf(a), reason: 'Fatal', error: 'E: x' },
      ]);
      const [group] = await store.operator.errorGroups({ limit: 10 });
      if (group === undefined) throw new Error('no group');
      const hours = () => store.operator.errorGroupHours([group.fingerprint], new Date(0));
      clock.advance(47 * 3_600_000);
      await store.jobs.settle([
        { kind: 'dead', lease: leaseOf(b), reason: 'Fatal', error: 'E: x' },
      ]);
      expect(await hours()).toHaveLength(2);
      // A week's rule purges no DLQ row, but the first hour is past two days now.
      clock.advance(3 * 3_600_000);
      expect(
        await store.retention.purgeBatch({ table: 'dlq', olderThanMs: 7 * 86_400_000 }, 10),
      ).toBe(0);
      expect(await hours()).toEqual([
        expect.objectContaining({ hourStart: new Date(START + 47 * 3_600_000) }),
      ]);
      clock.advance(49 * 3_600_000);
      await store.retention.purgeBatch({ table: 'dlq', olderThanMs: 7 * 86_400_000 }, 10);
      expect(await hours()).toEqual([]);
    });
  });

  describe('metric buckets', () => {
    it('truncates outcomes to the second and aggregates within it', async () => {
      clock.advance(250);
      await store.jobs.enqueue([newJob('a'), newJob('b'), newJob('c')]);
      const [a, b, c] = await store.jobs.start((await claimOne()).map(leaseOf));
      if (a === undefined || b === undefined || c === undefined) throw new Error('not started');

      await store.jobs.settle([{ kind: 'archive', lease: leaseOf(a), durationMs: 10 }]);
      clock.advance(700); // still in the same second (.950)
      await store.jobs.settle([{ kind: 'archive', lease: leaseOf(b), durationMs: 30 }]);
      clock.advance(100); // next second (+1.050)
      await store.jobs.settle([{ kind: 'dead', lease: leaseOf(c), reason: 'Timeout', error: 't' }]);

      const buckets = await store.queues.metricBuckets(new Date(START));
      expect(buckets).toEqual([
        {
          bucketStart: new Date(START + 1000),
          queue: 'default',
          outcome: 'failed',
          reason: 'Timeout',
          count: 1,
          durationCount: 0,
          totalDurationMs: 0,
          maxDurationMs: null,
        },
        {
          bucketStart: new Date(START),
          queue: 'default',
          outcome: 'succeeded',
          reason: null,
          count: 2,
          durationCount: 2,
          totalDurationMs: 40,
          maxDurationMs: 30,
        },
      ]);
      expect(await store.queues.metricBuckets(new Date(START + 1))).toHaveLength(1);
    });
  });

  describe('reliability', () => {
    const FETCHED_TIMEOUT = 30_000;
    const PROCESSING_TIMEOUT = 60_000;

    function rescueOptions(overrides: Partial<RescueOptions> = {}): RescueOptions {
      return {
        fetchedTimeoutMs: FETCHED_TIMEOUT,
        processingTimeoutMs: PROCESSING_TIMEOUT,
        retryZombieTypes: {},
        ...overrides,
      };
    }

    /** Enqueues `jobs`, claims and starts them all; returns the started rows in claim order. */
    async function running(...jobs: NewJob[]): Promise<ClaimedJob[]> {
      await store.jobs.enqueue(jobs);
      const claimed = await store.jobs.claim({ workerId: 'w1', limit: 100, queues: null });
      return store.jobs.start(claimed.map(leaseOf));
    }

    async function hotRow(id: string): Promise<HotJob> {
      const found = await store.operator.getJob(id);
      if (found?.where !== 'hot') throw new Error(`${id} is not hot`);
      return found.job;
    }

    async function deadRow(id: string) {
      const found = await store.operator.getJob(id);
      if (found?.where !== 'dlq') throw new Error(`${id} is not in the DLQ`);
      return found.job;
    }

    async function statsOf(queue: string) {
      const stats = (await store.queues.queueStats()).find((s) => s.queue === queue);
      if (stats === undefined) throw new Error(`no stats for ${queue}`);
      return stats;
    }

    it('starts enqueued rows with no lost runs and no cancel request', async () => {
      await store.jobs.enqueue([newJob('a')]);
      expect(await hotRow('a')).toMatchObject({
        lostAttempts: 0,
        cancelRequestedAt: null,
        cancelRequestedBy: null,
      });
    });

    describe('rescue of stale fetched rows', () => {
      it('returns fetched rows older than the timeout to pending, attempts unchanged', async () => {
        await store.jobs.enqueue([newJob('old'), newJob('young')]);
        const [old] = await store.jobs.claim({ workerId: 'w1', limit: 1, queues: null });
        if (old === undefined) throw new Error('not claimed');
        clock.advance(10_000);
        await claimOne('w2');

        clock.advance(FETCHED_TIMEOUT - 10_000); // `old` is exactly at the limit: not older
        expect(await store.jobs.rescue(rescueOptions())).toEqual({
          skipped: false,
          released: 0,
          idempotencyClaimsPurged: 0,
          dead: [],
          retried: [],
          cancelled: [],
        });

        clock.advance(1);
        expect((await store.jobs.rescue(rescueOptions())).released).toBe(1);
        expect(await hotRow(old.id)).toMatchObject({
          state: 'pending',
          workerId: null,
          leaseToken: null,
          attempts: 0,
          lostAttempts: 0,
        });
        expect((await hotRow(old.id)).updatedAt.getTime()).toBe(START + FETCHED_TIMEOUT + 1);
        expect((await hotRow('young')).state).toBe('fetched');
        // The lost lease cannot start the job any more; no counter moved.
        expect(await store.jobs.start([leaseOf(old)])).toEqual([]);
        expect((await statsOf('default')).retriedTotal).toBe(0);

        clock.advance(10_000);
        expect((await store.jobs.rescue(rescueOptions())).released).toBe(1);
        expect((await hotRow('young')).state).toBe('pending');
      });

      it('moves at most `limit` rows per step, oldest first', async () => {
        for (const id of ['c', 'a', 'b']) {
          await store.jobs.enqueue([newJob(id)]);
          await claimOne();
          clock.advance(1);
        }
        clock.advance(FETCHED_TIMEOUT);
        expect((await store.jobs.rescue(rescueOptions({ limit: 2 }))).released).toBe(2);
        expect((await hotRow('c')).state).toBe('pending');
        expect((await hotRow('a')).state).toBe('pending');
        expect((await hotRow('b')).state).toBe('fetched');
        expect((await store.jobs.rescue(rescueOptions({ limit: 2 }))).released).toBe(1);
      });
    });

    describe('zombies', () => {
      it('moves a processing row with an expired heartbeat to the DLQ as Zombie', async () => {
        const [job] = await running(newJob('z', { queue: 'q', type: 'Mail.Send' }));
        if (job === undefined) throw new Error('not started');

        clock.advance(PROCESSING_TIMEOUT);
        expect((await store.jobs.rescue(rescueOptions())).dead).toEqual([]);
        // A heartbeat keeps it alive past the original deadline.
        expect(await store.jobs.heartbeat([leaseOf(job)])).toEqual([
          { alive: true, cancelRequested: false, cancelRequestedBy: null },
        ]);
        clock.advance(PROCESSING_TIMEOUT);
        expect((await store.jobs.rescue(rescueOptions())).dead).toEqual([]);

        clock.advance(1);
        expect(await store.jobs.rescue(rescueOptions())).toEqual({
          skipped: false,
          released: 0,
          idempotencyClaimsPurged: 0,
          dead: [{ id: 'z', queue: 'q', type: 'Mail.Send' }],
          retried: [],
          cancelled: [],
        });
        expect(await deadRow('z')).toMatchObject({
          reason: 'Zombie',
          errorDetails: 'Zombie: worker heartbeat expired during execution',
          attempts: 1,
          lostAttempts: 0,
          workerId: 'w1',
        });
        const stats = await statsOf('q');
        expect(stats.failedTotal).toBe(1);
        expect(stats.retriedTotal).toBe(0);
        const [bucket] = await store.queues.metricBuckets(new Date(0));
        expect(bucket).toMatchObject({ queue: 'q', outcome: 'failed', reason: 'Zombie', count: 1 });
        // The owner's late settlement is a conflict.
        expect(
          await store.jobs.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 1 }]),
        ).toEqual([false]);
      });

      it('runs a zombie of an opted-in type again, refunding the run, until the maximum', async () => {
        const options = rescueOptions({ retryZombieTypes: { 'report.build': 2 } });
        await running(newJob('r', { type: 'Report.Build' }), newJob('other'));

        for (const lost of [1, 2]) {
          clock.advance(PROCESSING_TIMEOUT + 1);
          const result = await store.jobs.rescue(options);
          expect(result.retried).toEqual([{ id: 'r', queue: 'default', type: 'Report.Build' }]);
          expect(result.dead.map((j) => j.id)).toEqual(lost === 1 ? ['other'] : []);
          const row = await hotRow('r');
          expect(row).toMatchObject({
            state: 'pending',
            attempts: 0,
            lostAttempts: lost,
            workerId: null,
            leaseToken: null,
            heartbeatAt: null,
            lastError: 'Zombie: heartbeat expired; run again',
          });
          expect(row.runAt.getTime()).toBe(clock.now());
          expect((await statsOf('default')).retriedTotal).toBe(lost);
          const [again] = await store.jobs.start((await claimOne()).map(leaseOf));
          expect(again?.attempts).toBe(1);
        }

        clock.advance(PROCESSING_TIMEOUT + 1);
        const last = await store.jobs.rescue(options);
        expect(last.retried).toEqual([]);
        expect(last.dead).toEqual([{ id: 'r', queue: 'default', type: 'Report.Build' }]);
        expect(await deadRow('r')).toMatchObject({
          reason: 'Zombie',
          attempts: 1,
          lostAttempts: 2,
        });
        expect((await statsOf('default')).failedTotal).toBe(2);
      });

      it('ignores opt-ins of other types, zero maxima and inherited object keys', async () => {
        await running(newJob('a', { type: 'constructor' }), newJob('b', { type: 'x' }));
        clock.advance(PROCESSING_TIMEOUT + 1);
        const result = await store.jobs.rescue(rescueOptions({ retryZombieTypes: { y: 5, x: 0 } }));
        expect(result.retried).toEqual([]);
        expect(result.dead.map((j) => j.id).sort()).toEqual(['a', 'b']);
      });

      it('folds opted-in keys to lower case, the larger maximum winning', async () => {
        await running(newJob('a', { type: 'Sync.Run' }));
        clock.advance(PROCESSING_TIMEOUT + 1);
        const options = rescueOptions({ retryZombieTypes: { 'SYNC.RUN': 1, 'sync.run': 0 } });
        expect((await store.jobs.rescue(options)).retried.map((j) => j.id)).toEqual(['a']);
      });

      it("uses the queue's zombieTimeoutSeconds over the global timeout", async () => {
        await store.queues.updateQueue('slow', { zombieTimeoutSeconds: 120 });
        await store.queues.updateQueue('fast', { zombieTimeoutSeconds: 5 });
        await running(
          newJob('s', { queue: 'slow' }),
          newJob('f', { queue: 'fast' }),
          newJob('d', { queue: 'default' }),
        );
        const deadIds = async (): Promise<string[]> =>
          (await store.jobs.rescue(rescueOptions())).dead.map((j) => j.id);

        clock.advance(5_001);
        expect(await deadIds()).toEqual(['f']);
        clock.advance(PROCESSING_TIMEOUT - 5_000);
        expect(await deadIds()).toEqual(['d']);
        clock.advance(59_999); // `s` is exactly 120 s old: not older
        expect(await deadIds()).toEqual([]);
        clock.advance(1);
        expect(await deadIds()).toEqual(['s']);
      });
    });

    describe('cancel', () => {
      it('buries pending and fetched jobs and flags processing ones, in input order', async () => {
        await store.jobs.enqueue([newJob('run', { queue: 'q' })]);
        const [run] = await store.jobs.start(
          (await store.jobs.claim({ workerId: 'w1', limit: 1, queues: ['q'] })).map(leaseOf),
        );
        if (run === undefined) throw new Error('not started');
        await store.jobs.enqueue([newJob('fetch', { queue: 'q', idempotencyKey: 'k' })]);
        const [fetched] = await store.jobs.claim({ workerId: 'w2', limit: 1, queues: ['q'] });
        if (fetched === undefined) throw new Error('not claimed');
        await store.jobs.enqueue([newJob('wait', { queue: 'q' })]);

        clock.advance(1000);
        const result = await store.jobs.cancel(
          ['run', 'missing', 'wait', 'fetch', 'wait', 'run'],
          'ops',
        );
        expect(result).toEqual({ cancelled: ['wait', 'fetch'], requested: ['run'] });

        for (const id of ['wait', 'fetch']) {
          const row = await deadRow(id);
          expect(row).toMatchObject({
            reason: 'Cancelled',
            errorDetails: 'Cancelled by ops',
            lastModifiedBy: 'ops',
            attempts: 0,
            lostAttempts: 0,
          });
          expect(row.failedAt.getTime()).toBe(START + 1000);
        }
        expect((await statsOf('q')).failedTotal).toBe(2);
        const [bucket] = await store.queues.metricBuckets(new Date(0));
        expect(bucket).toMatchObject({ outcome: 'failed', reason: 'Cancelled', count: 2 });
        // The fetched job's lease is gone; its idempotency key is free again.
        expect(await store.jobs.start([leaseOf(fetched)])).toEqual([]);
        expect(await store.jobs.enqueue([newJob('next', { idempotencyKey: 'k' })])).toEqual([
          { id: 'next', created: true },
        ]);

        const flagged = await hotRow('run');
        expect(flagged).toMatchObject({ state: 'processing', cancelRequestedBy: 'ops' });
        expect(flagged.cancelRequestedAt?.getTime()).toBe(START + 1000);
        expect(flagged.updatedAt.getTime()).toBe(START + 1000);

        // A second request keeps the first one's time and actor.
        clock.advance(1000);
        expect(await store.jobs.cancel(['run'], 'boss')).toEqual({
          cancelled: [],
          requested: ['run'],
        });
        expect(await hotRow('run')).toMatchObject({ cancelRequestedBy: 'ops' });
        expect((await hotRow('run')).cancelRequestedAt?.getTime()).toBe(START + 1000);
        expect(await store.jobs.cancel([], 'ops')).toEqual({ cancelled: [], requested: [] });
      });

      it('never claims a retried job with a cancel request; rescue buries it', async () => {
        const [job] = await running(newJob('a', { type: 'T' }));
        if (job === undefined) throw new Error('not started');
        await store.jobs.cancel(['a'], 'ops');
        expect(
          await store.jobs.settle([
            { kind: 'retry', lease: leaseOf(job), from: 'processing', delayMs: 0, error: 'e' },
          ]),
        ).toEqual([true]);
        expect(await claimOne()).toEqual([]);

        const result = await store.jobs.rescue(rescueOptions());
        expect(result.cancelled).toEqual([{ id: 'a', queue: 'default', type: 'T' }]);
        expect(await deadRow('a')).toMatchObject({
          reason: 'Cancelled',
          errorDetails: 'Cancelled by ops',
          attempts: 1,
        });
      });

      it('buries a zombie with a cancel request as Cancelled, even for opted-in types', async () => {
        await running(newJob('a', { type: 'T' }));
        await store.jobs.cancel(['a'], 'ops');
        clock.advance(PROCESSING_TIMEOUT + 1);
        const result = await store.jobs.rescue(rescueOptions({ retryZombieTypes: { t: 5 } }));
        expect(result).toMatchObject({ dead: [], retried: [] });
        expect(result.cancelled).toEqual([{ id: 'a', queue: 'default', type: 'T' }]);
        expect(await deadRow('a')).toMatchObject({
          reason: 'Cancelled',
          errorDetails: 'Cancelled by ops: the run was lost',
        });
        expect((await statsOf('default')).failedTotal).toBe(1);
      });
    });

    describe('heartbeat', () => {
      it('reports alive, cancel requests and lost leases, refreshing only held leases', async () => {
        const [a, b] = await running(newJob('a'), newJob('b'));
        if (a === undefined || b === undefined) throw new Error('not started');
        await store.jobs.enqueue([newJob('c')]);
        const [c] = await claimOne();
        if (c === undefined) throw new Error('not claimed');

        clock.advance(5000);
        await store.jobs.cancel(['b'], 'ops');
        const results = await store.jobs.heartbeat([
          leaseOf(a),
          leaseOf(b),
          { ...leaseOf(a), leaseToken: 'stolen' },
          { ...leaseOf(a), workerId: 'w9' },
          leaseOf(c), // fetched: a run whose start is not recorded yet
          { ...leaseOf(c), leaseToken: 'stolen' },
          { id: 'missing', workerId: 'w1', leaseToken: 't' },
        ]);
        expect(results).toEqual([
          { alive: true, cancelRequested: false, cancelRequestedBy: null },
          { alive: true, cancelRequested: true, cancelRequestedBy: 'ops' },
          { alive: false, cancelRequested: false, cancelRequestedBy: null },
          { alive: false, cancelRequested: false, cancelRequestedBy: null },
          { alive: true, cancelRequested: false, cancelRequestedBy: null },
          { alive: false, cancelRequested: false, cancelRequestedBy: null },
          { alive: false, cancelRequested: false, cancelRequestedBy: null },
        ]);
        const row = await hotRow('a');
        expect(row.heartbeatAt?.getTime()).toBe(START + 5000);
        expect(row.updatedAt.getTime()).toBe(START + 5000);
        expect(await hotRow('c')).toMatchObject({ state: 'fetched', attempts: 0 });
        expect((await hotRow('c')).updatedAt.getTime()).toBe(START + 5000);

        clock.advance(PROCESSING_TIMEOUT + 1);
        await store.jobs.rescue(rescueOptions());
        expect(await store.jobs.heartbeat([leaseOf(a), leaseOf(b)])).toEqual([
          { alive: false, cancelRequested: false, cancelRequestedBy: null },
          { alive: false, cancelRequested: false, cancelRequestedBy: null },
        ]);
      });
    });

    describe('settlements', () => {
      it('refunds a lost run on retry, never below zero attempts', async () => {
        const [job] = await running(newJob('a'));
        if (job === undefined) throw new Error('not started');
        expect(
          await store.jobs.settle([
            {
              kind: 'retry',
              lease: leaseOf(job),
              from: 'processing',
              delayMs: 100,
              error: 'shutdown',
              lost: true,
            },
          ]),
        ).toEqual([true]);
        expect(await hotRow('a')).toMatchObject({
          state: 'scheduled',
          attempts: 0,
          lostAttempts: 1,
          lastError: 'shutdown',
        });
        expect((await statsOf('default')).retriedTotal).toBe(1);

        // From fetched (nothing ran), the refund still never goes below zero.
        clock.advance(100);
        await store.jobs.promote(10);
        const [fetched] = await claimOne();
        if (fetched === undefined) throw new Error('not claimed');
        const lease = leaseOf(fetched);
        await store.jobs.settle([
          { kind: 'retry', lease, from: 'fetched', delayMs: 0, error: 'x', lost: true },
        ]);
        expect(await hotRow('a')).toMatchObject({ attempts: 0, lostAttempts: 2 });

        // Without `lost`, nothing is refunded.
        const [again] = await store.jobs.start((await claimOne()).map(leaseOf));
        if (again === undefined) throw new Error('not started');
        await store.jobs.settle([
          { kind: 'retry', lease: leaseOf(again), from: 'processing', delayMs: 0, error: 'y' },
        ]);
        expect(await hotRow('a')).toMatchObject({ attempts: 1, lostAttempts: 2 });
      });

      it('carries lostAttempts and the note into the archive, note null by default', async () => {
        const [a, b] = await running(newJob('a'), newJob('b'));
        if (a === undefined || b === undefined) throw new Error('not started');
        await store.jobs.settle([
          {
            kind: 'retry',
            lease: leaseOf(a),
            from: 'processing',
            delayMs: 0,
            error: 'x',
            lost: true,
          },
        ]);
        const [a2] = await store.jobs.start((await claimOne()).map(leaseOf));
        if (a2 === undefined) throw new Error('not started');
        await store.jobs.settle([
          { kind: 'archive', lease: leaseOf(a2), durationMs: 3, note: 'duplicate of x' },
          { kind: 'archive', lease: leaseOf(b), durationMs: 4 },
        ]);
        const archived = await store.operator.listArchive({ limit: 10 });
        expect(archived.find((r) => r.id === 'a')).toMatchObject({
          attempts: 1,
          lostAttempts: 1,
          note: 'duplicate of x',
        });
        expect(archived.find((r) => r.id === 'b')).toMatchObject({ lostAttempts: 0, note: null });
      });

      it('buries a fetched job only when `from` says fetched', async () => {
        await store.jobs.enqueue([newJob('a')]);
        const [fetched] = await claimOne();
        if (fetched === undefined) throw new Error('not claimed');
        const lease = leaseOf(fetched);
        expect(
          await store.jobs.settle([{ kind: 'dead', lease, reason: 'Throttled', error: 'circuit' }]),
        ).toEqual([false]);
        expect(
          await store.jobs.settle([
            { kind: 'dead', lease, from: 'fetched', reason: 'Throttled', error: 'circuit' },
          ]),
        ).toEqual([true]);
        expect(await deadRow('a')).toMatchObject({
          reason: 'Throttled',
          attempts: 0,
          lostAttempts: 0,
        });
      });

      it('resurrects with no lost runs and no cancel request', async () => {
        const [job] = await running(newJob('a'));
        if (job === undefined) throw new Error('not started');
        await store.jobs.settle([
          {
            kind: 'retry',
            lease: leaseOf(job),
            from: 'processing',
            delayMs: 0,
            error: 'x',
            lost: true,
          },
        ]);
        const [again] = await store.jobs.start((await claimOne()).map(leaseOf));
        if (again === undefined) throw new Error('not started');
        await store.jobs.cancel(['a'], 'ops');
        clock.advance(PROCESSING_TIMEOUT + 1);
        await store.jobs.rescue(rescueOptions());
        expect(await deadRow('a')).toMatchObject({ reason: 'Cancelled', lostAttempts: 1 });

        expect(await store.operator.resurrect(['a'], { actor: 'ops' })).toEqual(['a']);
        expect(await hotRow('a')).toMatchObject({
          attempts: 0,
          lostAttempts: 0,
          cancelRequestedAt: null,
          cancelRequestedBy: null,
        });
        expect((await claimOne()).map((j) => j.id)).toEqual(['a']);
      });
    });
  });

  describe('wake-ups', () => {
    it('wakes subscribers after enqueue and resurrect, not after unsubscribe or close', async () => {
      const heard: string[] = [];
      const unsubscribe = await store.cluster.listen?.((queue) => heard.push(queue));
      await store.jobs.enqueue([newJob('a', { queue: 'q1' }), newJob('b', { queue: 'q1' })]);
      await store.jobs.enqueue([newJob('c', { queue: 'q2', idempotencyKey: 'k' })]);
      await store.jobs.enqueue([newJob('d', { queue: 'q3', idempotencyKey: 'k' })]); // deduped
      await Promise.resolve();
      expect(heard).toEqual(['q1', 'q2']);

      const [claimed] = await store.jobs.start(
        (await store.jobs.claim({ workerId: 'w', limit: 1, queues: ['q2'] })).map(leaseOf),
      );
      if (claimed === undefined) throw new Error('not started');
      await store.jobs.settle([
        { kind: 'dead', lease: leaseOf(claimed), reason: 'Fatal', error: 'x' },
      ]);
      expect(await store.operator.resurrect(['c', 'missing'], { actor: 'ops' })).toEqual(['c']);
      await Promise.resolve();
      expect(heard).toEqual(['q1', 'q2', 'q2']);

      await unsubscribe?.();
      await store.jobs.enqueue([newJob('e', { queue: 'q1' })]);
      await Promise.resolve();
      expect(heard).toEqual(['q1', 'q2', 'q2']);

      await store.cluster.listen?.((queue) => heard.push(`again:${queue}`));
      await store.close();
      await store.close();
      await store.jobs.enqueue([newJob('f')]);
      await Promise.resolve();
      expect(heard).toEqual(['q1', 'q2', 'q2']);
    });
  });
});
