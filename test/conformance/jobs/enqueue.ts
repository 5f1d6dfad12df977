/**
 * Conformance of `JobStore.enqueue`: one result per job in input order, every field stored as
 * given (payloads byte for byte), duplicate ids refused without a partial write, idempotency keys
 * deduplicated against active jobs (and free again once the holder left the hot table, one job
 * under concurrent enqueues of one key), and a new queue registered once under concurrency.
 * Registered by `describeJobStore` (index.ts) for every provider.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ChokaQError } from '../../../src/errors.js';
import type { Store } from '../../../src/storage/store.js';
import type { ConformanceContext } from '../context.js';
import { ids, leaseOf, newJob } from '../helpers.js';

/** Registers the enqueue conformance tests; call inside the provider's `describe`. */
export function describeEnqueue(ctx: ConformanceContext): void {
  const { hot, archived, dead, fetched } = ctx;

  /** The current test's store: the suite opens a new one before each test. */
  let store: Store;
  beforeEach(() => {
    store = ctx.store();
  });

  describe('enqueue', () => {
    it('returns one result per job, in input order', async () => {
      expect(await store.jobs.enqueue([])).toEqual([]);
      const jobs = [
        newJob({ id: 'zeta-1' }),
        newJob({ id: 'alpha-2', queue: 'other' }),
        newJob({ priority: 3 }),
        newJob({ id: 'mid-3' }),
      ];
      const results = await store.jobs.enqueue(jobs);
      expect(results.map((r) => ({ id: r.id, created: r.created }))).toEqual(
        jobs.map((job) => ({ id: job.id, created: true })),
      );
      for (const job of jobs) expect((await hot(job.id)).queue).toBe(job.queue);
    });

    it('stores a pending row with the given fields', async () => {
      const before = await store.cluster.now();
      const job = newJob({
        queue: 'reports',
        type: 'report.build',
        priority: 42,
        tags: 'monthly,finance',
        createdBy: 'tester',
        idempotencyKey: 'report-2026-01',
        payload: '{"month":"2026-01"}',
      });
      await store.jobs.enqueue([job]);
      const after = await store.cluster.now();
      const row = await hot(job.id);
      expect(row).toMatchObject({
        id: job.id,
        queue: 'reports',
        type: 'report.build',
        payload: '{"month":"2026-01"}',
        tags: 'monthly,finance',
        idempotencyKey: 'report-2026-01',
        priority: 42,
        state: 'pending',
        attempts: 0,
        workerId: null,
        leaseToken: null,
        startedAt: null,
        heartbeatAt: null,
        createdBy: 'tester',
        lastError: null,
      });
      expect(row.createdAt).toBeInstanceOf(Date);
      expect(row.createdAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
      expect(row.createdAt.getTime()).toBeLessThanOrEqual(after.getTime());
      expect(row.runAt.getTime()).toBe(row.createdAt.getTime());
      expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(row.createdAt.getTime());
    });

    it('stores every field of keyless batches, whether their jobs share fields or not', async () => {
      const shared = {
        queue: 'shared',
        type: 'report.build',
        priority: 7,
        tags: 'nightly',
        createdBy: 'cron',
        delayMs: 60_000,
      };
      const alike = [1, 2, 3].map((n) => newJob({ ...shared, payload: `{"n":${n}}` }));
      const mixed = [
        newJob({ ...shared, payload: '{"n":4}' }),
        newJob({ ...shared, queue: 'shared-2', payload: '{"n":5}' }),
        newJob({ ...shared, priority: 8, tags: null, createdBy: null, delayMs: 0 }),
      ];
      expect((await store.jobs.enqueue(alike)).every((r) => r.created)).toBe(true);
      expect((await store.jobs.enqueue(mixed)).every((r) => r.created)).toBe(true);
      for (const job of [...alike, ...mixed]) {
        const row = await hot(job.id);
        expect(row).toMatchObject({
          queue: job.queue,
          type: job.type,
          payload: job.payload,
          priority: job.priority,
          tags: job.tags,
          createdBy: job.createdBy,
          idempotencyKey: null,
          state: job.delayMs > 0 ? 'scheduled' : 'pending',
        });
        expect(row.runAt.getTime() - row.createdAt.getTime()).toBe(job.delayMs);
      }
      const queues = (await store.queues.listQueues()).map((q) => q.name);
      expect(queues).toEqual(expect.arrayContaining(['shared', 'shared-2']));
    });

    it('stores ids with the characters an array literal quotes or escapes, as given', async () => {
      // One batch of ids that need quoting only, one whose ids need escaping too.
      const quoted = ['a,b', '{x}', ' sp ', 'NULL', 'ü 日本 🚀'];
      const escaped = ['q"uote', 'back\\slash', '\\"', 'plain'];
      for (const batch of [quoted, escaped]) {
        const results = await store.jobs.enqueue(batch.map((id) => newJob({ id, queue: 'ids' })));
        expect(results).toEqual(batch.map((id) => ({ id, created: true })));
        for (const id of batch) expect((await hot(id)).id).toBe(id);
      }
    });

    it('hands the payload back byte for byte', async () => {
      const payload =
        '{"z":1,  "a":"héllo wörld — 日本語 🚀 ∑","esc":"\\u00e9\\n\\"q\\"\\\\","num":1.50,' +
        '"big":12345678901234567890,"e":1E+2,"list":[1, 2 ,3],"n":null }';
      const other = '[ "π", {"k" : true} ]';
      const [first, second] = await store.jobs.enqueue([
        newJob({ queue: 'bytes', payload }),
        newJob({ queue: 'bytes', payload: other }),
      ]);
      if (!first || !second) throw new Error('unreachable');
      expect((await hot(first.id)).payload).toBe(payload);
      expect((await hot(second.id)).payload).toBe(other);
      expect(
        (await store.operator.listHot({ queue: 'bytes', limit: 10 })).map((r) => r.payload).sort(),
      ).toEqual([payload, other].sort());

      const claimedRows = await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['bytes'] });
      expect(claimedRows.map((r) => r.payload).sort()).toEqual([payload, other].sort());
      const started = await store.jobs.start(claimedRows.map(leaseOf));
      const byId = new Map(started.map((r) => [r.id, r]));
      const one = byId.get(first.id);
      const two = byId.get(second.id);
      if (!one || !two) throw new Error('jobs did not start');
      expect(one.payload).toBe(payload);
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease: leaseOf(one), durationMs: 5 },
          { kind: 'dead', lease: leaseOf(two), reason: 'Fatal', error: 'boom' },
        ]),
      ).toEqual([true, true]);
      expect((await archived(first.id)).payload).toBe(payload);
      expect((await dead(second.id)).payload).toBe(other);
      expect(await store.operator.resurrect([second.id], { actor: 'ops' })).toEqual([second.id]);
      expect((await hot(second.id)).payload).toBe(other);
    });

    it('rejects a duplicate hot id with CHOKAQ_DUPLICATE_JOB_ID and writes nothing', async () => {
      const original = newJob({ id: 'dup-1', payload: '{"v":"original"}' });
      await store.jobs.enqueue([original]);
      const fresh = newJob({ queue: 'never-created' });
      const error: unknown = await store.jobs
        .enqueue([fresh, newJob({ id: 'dup-1', payload: '{"v":"second"}' })])
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(ChokaQError);
      expect((error as ChokaQError).code).toBe('CHOKAQ_DUPLICATE_JOB_ID');
      expect(await store.operator.getJob(fresh.id)).toBeNull();
      expect((await hot('dup-1')).payload).toBe('{"v":"original"}');
      expect((await store.queues.listQueues()).map((q) => q.name)).not.toContain('never-created');
      expect(await store.operator.listHot({ limit: 100 })).toHaveLength(1);
    });

    it('rejects an id held by a claimed job', async () => {
      const [row] = await fetched('dupq', 1);
      if (!row) throw new Error('unreachable');
      const error: unknown = await store.jobs.enqueue([newJob({ id: row.id })]).then(
        () => null,
        (e: unknown) => e,
      );
      expect((error as ChokaQError | null)?.code).toBe('CHOKAQ_DUPLICATE_JOB_ID');
      expect((await hot(row.id)).state).toBe('fetched');
    });

    it('rejects a batch that repeats one id and writes nothing', async () => {
      const other = newJob();
      const error: unknown = await store.jobs
        .enqueue([newJob({ id: 'twice' }), other, newJob({ id: 'twice' })])
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect((error as ChokaQError | null)?.code).toBe('CHOKAQ_DUPLICATE_JOB_ID');
      expect(await store.operator.getJob('twice')).toBeNull();
      expect(await store.operator.getJob(other.id)).toBeNull();
    });

    it('dedupes on an idempotency key held by an active job', async () => {
      const first = newJob({ queue: 'idem', idempotencyKey: 'k' });
      const second = newJob({ queue: 'idem', idempotencyKey: 'k' });
      expect(await store.jobs.enqueue([first])).toEqual([{ id: first.id, created: true }]);
      const [dupe] = await store.jobs.enqueue([second]);
      expect(dupe).toEqual({ id: first.id, created: false });
      expect(await store.operator.getJob(second.id)).toBeNull();

      // A claimed holder is still active.
      const claimedRows = await store.jobs.claim({ workerId: 'w', limit: 1, queues: ['idem'] });
      expect(ids(claimedRows)).toEqual([first.id]);
      const third = newJob({ queue: 'idem', idempotencyKey: 'k' });
      expect(await store.jobs.enqueue([third])).toEqual([{ id: first.id, created: false }]);

      // Within one batch, the second job with a key sees the first.
      const a = newJob({ idempotencyKey: 'k2' });
      const b = newJob({ idempotencyKey: 'k2' });
      const c = newJob();
      const results = await store.jobs.enqueue([a, b, c]);
      expect(results.map((r) => ({ id: r.id, created: r.created }))).toEqual([
        { id: a.id, created: true },
        { id: a.id, created: false },
        { id: c.id, created: true },
      ]);
      expect(await store.operator.getJob(b.id)).toBeNull();
      expect(await store.operator.listHot({ limit: 100 })).toHaveLength(3);
    });

    it('lets a key create a new job once its holder left the hot table', async () => {
      const holderA = newJob({ queue: 'ka', idempotencyKey: 'key-archived' });
      const holderD = newJob({ queue: 'kd', idempotencyKey: 'key-dead' });
      await store.jobs.enqueue([holderA, holderD]);
      const rows = await store.jobs.claim({ workerId: 'w', limit: 2, queues: null });
      const started = new Map(
        (await store.jobs.start(rows.map(leaseOf))).map((row) => [row.id, row]),
      );
      const startedA = started.get(holderA.id);
      const startedD = started.get(holderD.id);
      if (!startedA || !startedD) throw new Error('holders did not start');
      expect(
        await store.jobs.settle([
          { kind: 'archive', lease: leaseOf(startedA), durationMs: 1 },
          { kind: 'dead', lease: leaseOf(startedD), reason: 'Fatal', error: 'x' },
        ]),
      ).toEqual([true, true]);

      const nextA = newJob({ idempotencyKey: 'key-archived' });
      const nextD = newJob({ idempotencyKey: 'key-dead' });
      expect(await store.jobs.enqueue([nextA, nextD])).toEqual([
        { id: nextA.id, created: true },
        { id: nextD.id, created: true },
      ]);
      expect((await hot(nextA.id)).idempotencyKey).toBe('key-archived');
      expect((await hot(nextD.id)).idempotencyKey).toBe('key-dead');
    });

    it('creates one job for concurrent enqueues of one key', async () => {
      const jobs = Array.from({ length: 5 }, () =>
        newJob({ queue: 'race', idempotencyKey: 'same' }),
      );
      const results = (await Promise.all(jobs.map((job) => store.jobs.enqueue([job])))).flat();
      expect(results).toHaveLength(5);
      const winner = results.find((r) => r.created);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.id))).toEqual(new Set([winner?.id]));
      const rows = await store.operator.listHot({ queue: 'race', limit: 100 });
      expect(ids(rows)).toEqual([winner?.id]);
    });

    it('registers a new queue once under 100 concurrent enqueues', async () => {
      await Promise.all(
        Array.from({ length: 100 }, () => store.jobs.enqueue([newJob({ queue: 'burst' })])),
      );
      const queues = (await store.queues.listQueues()).filter((q) => q.name === 'burst');
      expect(queues).toHaveLength(1);
      expect(queues[0]).toMatchObject({
        name: 'burst',
        paused: false,
        active: true,
        maxWorkers: null,
        zombieTimeoutSeconds: null,
      });
      const stats = (await store.queues.queueStats()).filter((s) => s.queue === 'burst');
      expect(stats).toHaveLength(1);
      expect(stats[0]?.pending).toBe(100);
    });
  });
}
