import { beforeEach, describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import type { HotJob, Lease, NewJob, Store } from '../../src/storage/contract.js';
import { memory } from '../../src/storage/memory/index.js';
import { FakeClock } from '../../src/util/clock.js';

function newJob(id: string, overrides: Partial<NewJob> = {}): NewJob {
  return {
    id,
    queue: 'default',
    type: 'test.v1',
    payload: '{}',
    priority: 10,
    delayMs: 0,
    idempotencyKey: null,
    tags: null,
    createdBy: null,
    ...overrides,
  };
}

function leaseOf(job: HotJob): Lease {
  return { id: job.id, workerId: job.workerId ?? '', leaseToken: job.leaseToken ?? '' };
}

const START = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('memory store', () => {
  let clock: FakeClock;
  let store: Store;

  beforeEach(() => {
    clock = new FakeClock(START);
    store = memory({ clock });
  });

  async function claimOne(workerId = 'w1'): Promise<HotJob[]> {
    return store.claim({ workerId, limit: 10, queues: null });
  }

  describe('clock', () => {
    it('reports the injected clock as now', async () => {
      expect((await store.now()).getTime()).toBe(START);
      clock.advance(1234);
      expect((await store.now()).getTime()).toBe(START + 1234);
    });

    it('holds a delayed job until the fake clock reaches runAt', async () => {
      await store.enqueue([newJob('a', { delayMs: 2000 })]);
      const found = await store.getJob('a');
      expect(found?.where).toBe('hot');
      expect(found?.job.createdAt.getTime()).toBe(START);
      expect(found?.where === 'hot' && found.job.runAt.getTime()).toBe(START + 2000);

      expect(await claimOne()).toEqual([]);
      clock.advance(1999);
      expect(await claimOne()).toEqual([]);
      clock.advance(1);
      expect((await claimOne()).map((j) => j.id)).toEqual(['a']);
    });

    it('holds a retried job for its delay, keeping attempts and the error', async () => {
      await store.enqueue([newJob('a')]);
      const [claimed] = await store.start((await claimOne()).map(leaseOf));
      if (claimed === undefined) throw new Error('not started');
      const lease = leaseOf(claimed);
      expect(
        await store.settle([
          { kind: 'retry', lease, from: 'processing', delayMs: 500, error: 'boom' },
        ]),
      ).toEqual([true]);

      expect(await claimOne()).toEqual([]);
      clock.advance(500);
      const [again] = await claimOne();
      expect(again?.attempts).toBe(1);
      expect(again?.lastError).toBe('boom');
      expect(again?.runAt.getTime()).toBe(START + 500);
    });
  });

  describe('copies', () => {
    it('returns copies from enqueue-side reads, claim and start', async () => {
      await store.enqueue([newJob('a')]);
      const [claimed] = await claimOne();
      if (claimed === undefined) throw new Error('not claimed');
      claimed.state = 'pending';
      claimed.payload = 'mutated';
      claimed.runAt.setTime(0);

      const found = await store.getJob('a');
      expect(found?.where === 'hot' && found.job.state).toBe('fetched');
      expect(found?.job.payload).toBe('{}');
      expect(found?.where === 'hot' && found.job.runAt.getTime()).toBe(START);

      const [started] = await store.start([leaseOf(claimed)]);
      started?.startedAt?.setTime(0);
      const [listed] = await store.listHot({ limit: 10 });
      expect(listed?.startedAt?.getTime()).toBe(START);
    });

    it('returns copies of queues, stats, archive rows, DLQ rows and buckets', async () => {
      const queue = await store.updateQueue('q', { maxWorkers: 3 });
      queue.maxWorkers = 99;
      queue.updatedAt.setTime(0);
      const [, stored] = await store.listQueues();
      expect(stored?.maxWorkers).toBe(3);
      expect(stored?.updatedAt.getTime()).toBe(START);

      await store.enqueue([newJob('a'), newJob('b')]);
      const [a, b] = await store.start((await claimOne()).map(leaseOf));
      if (a === undefined || b === undefined) throw new Error('not started');
      await store.settle([
        { kind: 'archive', lease: leaseOf(a), durationMs: 5 },
        { kind: 'dead', lease: leaseOf(b), reason: 'Fatal', error: 'bad' },
      ]);

      const [archived] = await store.listArchive({ limit: 1 });
      archived?.finishedAt.setTime(0);
      const [dead] = await store.listDead({ limit: 1 });
      if (dead === undefined) throw new Error('no dead row');
      dead.errorDetails = 'changed';
      const [bucket] = await store.metricBuckets(new Date(0));
      bucket?.bucketStart.setTime(0);
      const [stats] = await store.queueStats();
      stats?.lastActivityAt?.setTime(0);

      expect((await store.listArchive({ limit: 1 }))[0]?.finishedAt.getTime()).toBe(START);
      expect((await store.listDead({ limit: 1 }))[0]?.errorDetails).toBe('bad');
      expect((await store.metricBuckets(new Date(0)))[0]?.bucketStart.getTime()).toBe(START);
      expect((await store.queueStats())[0]?.lastActivityAt?.getTime()).toBe(START);
    });
  });

  describe('atomic enqueue', () => {
    it('writes nothing when one job of a batch reuses a hot id', async () => {
      await store.enqueue([newJob('taken')]);
      const batch = [
        newJob('fresh-1', { queue: 'brand-new' }),
        newJob('taken'),
        newJob('fresh-2', { idempotencyKey: 'k' }),
      ];
      const error: unknown = await store.enqueue(batch).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ChokaQError);
      expect((error as ChokaQError).code).toBe('CHOKAQ_DUPLICATE_JOB_ID');
      expect(await store.getJob('fresh-1')).toBeNull();
      expect(await store.listHot({ limit: 10 })).toHaveLength(1);
      expect((await store.listQueues()).map((q) => q.name)).toEqual(['default']);
      // The key was not taken by the failed batch.
      expect(await store.enqueue([newJob('fresh-2', { idempotencyKey: 'k' })])).toEqual([
        { id: 'fresh-2', created: true },
      ]);
    });

    it('rejects an id repeated inside one batch, writing nothing', async () => {
      const error: unknown = await store
        .enqueue([newJob('x'), newJob('x')])
        .catch((e: unknown) => e);
      expect((error as ChokaQError).code).toBe('CHOKAQ_DUPLICATE_JOB_ID');
      expect(await store.listHot({ limit: 10 })).toEqual([]);
    });

    it('dedupes a key repeated inside one batch to the first job', async () => {
      const results = await store.enqueue([
        newJob('a', { idempotencyKey: 'k' }),
        newJob('b', { idempotencyKey: 'k' }),
      ]);
      expect(results).toEqual([
        { id: 'a', created: true },
        { id: 'a', created: false },
      ]);
    });
  });

  describe('metric buckets', () => {
    it('truncates outcomes to the second and aggregates within it', async () => {
      clock.advance(250);
      await store.enqueue([newJob('a'), newJob('b'), newJob('c')]);
      const [a, b, c] = await store.start((await claimOne()).map(leaseOf));
      if (a === undefined || b === undefined || c === undefined) throw new Error('not started');

      await store.settle([{ kind: 'archive', lease: leaseOf(a), durationMs: 10 }]);
      clock.advance(700); // still in the same second (.950)
      await store.settle([{ kind: 'archive', lease: leaseOf(b), durationMs: 30 }]);
      clock.advance(100); // next second (+1.050)
      await store.settle([{ kind: 'dead', lease: leaseOf(c), reason: 'Timeout', error: 't' }]);

      const buckets = await store.metricBuckets(new Date(START));
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
      expect(await store.metricBuckets(new Date(START + 1))).toHaveLength(1);
    });
  });

  describe('wake-ups', () => {
    it('wakes subscribers after enqueue and resurrect, not after unsubscribe or close', async () => {
      const heard: string[] = [];
      const unsubscribe = await store.listen?.((queue) => heard.push(queue));
      await store.enqueue([newJob('a', { queue: 'q1' }), newJob('b', { queue: 'q1' })]);
      await store.enqueue([newJob('c', { queue: 'q2', idempotencyKey: 'k' })]);
      await store.enqueue([newJob('d', { queue: 'q3', idempotencyKey: 'k' })]); // deduped
      await Promise.resolve();
      expect(heard).toEqual(['q1', 'q2']);

      const [claimed] = await store.start(
        (await store.claim({ workerId: 'w', limit: 1, queues: ['q2'] })).map(leaseOf),
      );
      if (claimed === undefined) throw new Error('not started');
      await store.settle([{ kind: 'dead', lease: leaseOf(claimed), reason: 'Fatal', error: 'x' }]);
      expect(await store.resurrect(['c', 'missing'], { actor: 'ops' })).toEqual(['c']);
      await Promise.resolve();
      expect(heard).toEqual(['q1', 'q2', 'q2']);

      await unsubscribe?.();
      await store.enqueue([newJob('e', { queue: 'q1' })]);
      await Promise.resolve();
      expect(heard).toEqual(['q1', 'q2', 'q2']);

      await store.listen?.((queue) => heard.push(`again:${queue}`));
      await store.close();
      await store.close();
      await store.enqueue([newJob('f')]);
      await Promise.resolve();
      expect(heard).toEqual(['q1', 'q2', 'q2']);
    });
  });
});
