/**
 * Conformance of the `OperatorStore`, the operator's reads and edits: `getJob` and the newest-first
 * lists of the three tables, `editPending`, the DLQ's `resurrect` and `purgeDead` (once under
 * concurrency, with overrides, keeping the failure's error text), the bounded job history written
 * by the statements that move rows (handler results, progress, versions), DLQ error groups and
 * their hourly trend, and the query surface over the three tables (every filter, both sorts,
 * keyset paging with ties and rows deleted between pages, the bounded payload scan, counts).
 * Registered by `describeStoreConformance` (suite.ts) for every provider.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { errorGroupTrend } from '../../src/operator/group-trend.js';
import { countJobs, queryJobs } from '../../src/operator/jobs.js';
import { checkJobQuery, type JobQuery } from '../../src/operator/query-input.js';
import { timelineOf } from '../../src/operator/timeline.js';
import type { ClaimedJob, HotJob } from '../../src/storage/model.js';
import type { Store } from '../../src/storage/store.js';
import type { ConformanceContext } from './context.js';
import { claimAndStart, ids, leaseOf, newJob, sorted, stackOf } from './helpers.js';

/** Registers the operator-store conformance tests; call inside the provider's `describe`. */
export function describeOperatorStore(ctx: ConformanceContext): void {
  const {
    enqueueOne,
    hot,
    archived,
    dead,
    fetched,
    processing,
    toDead,
    failToDead,
    statsOf,
    storeTimePasses,
  } = ctx;

  /** The current test's store: the suite opens a new one before each test. */
  let store: Store;
  beforeEach(() => {
    store = ctx.store();
  });

  /** Runs a page of `query` through the operator layer against the current store. */
  const page = (query: JobQuery, scanLimit?: number) => {
    const checked = checkJobQuery(query);
    if (scanLimit !== undefined) checked.base.scanLimit = scanLimit;
    return queryJobs(ctx.store(), checked);
  };

  /** Every id `query` returns, following cursors `limit` at a time. */
  async function allPages(query: JobQuery, limit: number): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const result = await page({ ...query, limit, ...(cursor ? { cursor } : {}) });
      seen.push(...ids(result.jobs));
      if (result.nextCursor === null) return seen;
      cursor = result.nextCursor;
    }
    throw new Error('more than 100 pages');
  }

  /** Runs one claimed-and-started job of `queue` to a failed run that is retried. */
  async function failAndRetry(job: ClaimedJob, error: string): Promise<void> {
    const applied = await ctx
      .store()
      .jobs.settle([{ kind: 'retry', lease: leaseOf(job), from: 'processing', delayMs: 0, error }]);
    expect(applied).toEqual([true]);
  }

  describe('reads', () => {
    it('getJob finds a job in the hot table, the archive or the DLQ', async () => {
      const pending = await enqueueOne({ queue: 'g' });
      const [done] = await processing('g-done', 1);
      const [failed] = await processing('g-failed', 1);
      if (!done || !failed) throw new Error('unreachable');
      await store.jobs.settle([
        { kind: 'archive', lease: leaseOf(done), durationMs: 1 },
        { kind: 'dead', lease: leaseOf(failed), reason: 'Zombie', error: 'gone' },
      ]);
      expect(await store.operator.getJob(pending)).toMatchObject({
        where: 'hot',
        job: { id: pending },
      });
      expect(await store.operator.getJob(done.id)).toMatchObject({
        where: 'archive',
        job: { id: done.id },
      });
      expect(await store.operator.getJob(failed.id)).toMatchObject({
        where: 'dlq',
        job: { id: failed.id, reason: 'Zombie' },
      });
      expect(await store.operator.getJob('no-such-id')).toBeNull();
    });

    it('listHot lists newest first, filtered by queue and state', async () => {
      const a1 = await enqueueOne({ queue: 'lh1' });
      await storeTimePasses((await hot(a1)).createdAt); // each job is created later
      const a2 = await enqueueOne({ queue: 'lh2' });
      await storeTimePasses((await hot(a2)).createdAt);
      const a3 = await enqueueOne({ queue: 'lh1' });
      await store.jobs.claim({ workerId: 'w', limit: 1, queues: ['lh2'] });
      expect(ids(await store.operator.listHot({ limit: 10 }))).toEqual([a3, a2, a1]);
      expect(ids(await store.operator.listHot({ limit: 2 }))).toEqual([a3, a2]);
      expect(ids(await store.operator.listHot({ queue: 'lh1', limit: 10 }))).toEqual([a3, a1]);
      expect(ids(await store.operator.listHot({ state: 'fetched', limit: 10 }))).toEqual([a2]);
      expect(ids(await store.operator.listHot({ state: 'pending', limit: 1 }))).toEqual([a3]);
      expect(await store.operator.listHot({ queue: 'lh2', state: 'pending', limit: 10 })).toEqual(
        [],
      );
      expect(await store.operator.listHot({ state: 'processing', limit: 10 })).toEqual([]);
    });

    it('listArchive lists newest finished first, filtered by queue', async () => {
      const jobs = await processing('la1', 3);
      const [other] = await processing('la2', 1);
      if (!other) throw new Error('unreachable');
      const order = [jobs[1], other, jobs[0], jobs[2]];
      for (const job of order) {
        if (!job) throw new Error('unreachable');
        await store.jobs.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 1 }]);
        await storeTimePasses((await archived(job.id)).finishedAt); // each finishes later
      }
      const newestFirst = ids(order as HotJob[]).reverse();
      expect(ids(await store.operator.listArchive({ limit: 10 }))).toEqual(newestFirst);
      expect(ids(await store.operator.listArchive({ limit: 2 }))).toEqual(newestFirst.slice(0, 2));
      expect(ids(await store.operator.listArchive({ queue: 'la1', limit: 10 }))).toEqual(
        newestFirst.filter((id) => id !== other.id),
      );
      expect(await store.operator.listArchive({ queue: 'nope', limit: 10 })).toEqual([]);
    });

    it('listDead lists newest failed first, filtered by queue and reason', async () => {
      const j1 = await toDead('d1', 'Fatal');
      await storeTimePasses((await dead(j1)).failedAt); // each fails later
      const j2 = await toDead('d2', 'Timeout');
      await storeTimePasses((await dead(j2)).failedAt);
      const j3 = await toDead('d1', 'Fatal');
      expect(ids(await store.operator.listDead({ limit: 10 }))).toEqual([j3, j2, j1]);
      expect(ids(await store.operator.listDead({ limit: 1 }))).toEqual([j3]);
      expect(ids(await store.operator.listDead({ reason: 'Fatal', limit: 10 }))).toEqual([j3, j1]);
      expect(ids(await store.operator.listDead({ queue: 'd2', limit: 10 }))).toEqual([j2]);
      expect(await store.operator.listDead({ queue: 'd1', reason: 'Timeout', limit: 10 })).toEqual(
        [],
      );
    });
  });

  describe('editPending', () => {
    it('edits a pending job in place, keeping absent fields', async () => {
      const id = await enqueueOne({ queue: 'ed', tags: 'old', priority: 5, payload: '{"v":1}' });
      expect(await store.operator.editPending(id, { payload: '{"v":"ü2"}', actor: 'editor' })).toBe(
        true,
      );
      expect(await hot(id)).toMatchObject({
        payload: '{"v":"ü2"}',
        tags: 'old',
        priority: 5,
        lastModifiedBy: 'editor',
        state: 'pending',
      });
      expect(
        await store.operator.editPending(id, { tags: 'new', priority: 99, actor: 'second' }),
      ).toBe(true);
      expect(await hot(id)).toMatchObject({
        payload: '{"v":"ü2"}',
        tags: 'new',
        priority: 99,
        lastModifiedBy: 'second',
      });
      expect(await store.operator.editPending('missing', { priority: 1, actor: 'x' })).toBe(false);
    });

    it('refuses jobs that are fetched, processing or gone', async () => {
      const [row] = await fetched('ed', 1);
      if (!row) throw new Error('unreachable');
      expect(
        await store.operator.editPending(row.id, {
          payload: '{"changed":1}',
          priority: 1,
          actor: 'x',
        }),
      ).toBe(false);
      expect(await hot(row.id)).toMatchObject({
        payload: '{"n":1}',
        priority: 10,
        state: 'fetched',
        lastModifiedBy: null,
      });
      await store.jobs.start([leaseOf(row)]);
      expect(await store.operator.editPending(row.id, { tags: 'x', actor: 'x' })).toBe(false);
      expect(await hot(row.id)).toMatchObject({ tags: null, state: 'processing' });
      await store.jobs.settle([{ kind: 'archive', lease: leaseOf(row), durationMs: 1 }]);
      expect(await store.operator.editPending(row.id, { tags: 'x', actor: 'x' })).toBe(false);
      expect((await archived(row.id)).tags).toBeNull();
    });
  });

  describe('dead-letter operations', () => {
    it('resurrects a dead job as a fresh pending job', async () => {
      const job = newJob({
        queue: 'res',
        priority: 50,
        idempotencyKey: 'res-key',
        tags: 'keep',
        createdBy: 'creator',
        payload: '{"keep":"me"}',
      });
      await store.jobs.enqueue([job]);
      const [row] = await store.jobs.claim({ workerId: 'w', limit: 1, queues: null });
      if (!row) throw new Error('unreachable');
      const [started] = await store.jobs.start([leaseOf(row)]);
      if (!started) throw new Error('unreachable');
      await store.jobs.settle([
        { kind: 'dead', lease: leaseOf(started), reason: 'Fatal', error: 'x' },
      ]);
      const deadRow = await dead(job.id);

      const before = await store.cluster.now();
      expect(await store.operator.resurrect([job.id], { actor: 'ops' })).toEqual([job.id]);
      const back = await hot(job.id);
      expect(back).toMatchObject({
        id: job.id,
        queue: 'res',
        type: job.type,
        payload: '{"keep":"me"}',
        tags: 'keep',
        idempotencyKey: null,
        priority: 10,
        state: 'pending',
        attempts: 0,
        workerId: null,
        leaseToken: null,
        startedAt: null,
        heartbeatAt: null,
        createdBy: 'creator',
        lastModifiedBy: 'ops',
      });
      expect(back.createdAt.getTime()).toBe(deadRow.createdAt.getTime());
      expect(back.runAt.getTime()).toBeLessThanOrEqual((await store.cluster.now()).getTime());
      expect(back.updatedAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
      expect(await store.operator.listDead({ limit: 10 })).toEqual([]);

      // The key is cleared: a new job with it is created.
      const next = newJob({ idempotencyKey: 'res-key' });
      expect(await store.jobs.enqueue([next])).toEqual([{ id: next.id, created: true }]);

      const [reclaimed] = await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['res'] });
      expect(reclaimed?.id).toBe(job.id);
    });

    it('applies resurrect overrides', async () => {
      const id = await toDead('ovr');
      expect(
        await store.operator.resurrect([id], {
          actor: 'editor',
          payload: '{"fixed":"✓"}',
          tags: null,
          priority: 70,
        }),
      ).toEqual([id]);
      expect(await hot(id)).toMatchObject({
        payload: '{"fixed":"✓"}',
        tags: null,
        priority: 70,
        lastModifiedBy: 'editor',
        attempts: 0,
      });
    });

    it('skips ids that are not in the DLQ', async () => {
      const d1 = await toDead('skip');
      const d2 = await toDead('skip');
      const [done] = await processing('skip-archive', 1);
      if (!done) throw new Error('unreachable');
      await store.jobs.settle([{ kind: 'archive', lease: leaseOf(done), durationMs: 1 }]);
      const pending = await enqueueOne({ queue: 'skip-hot', priority: 3 });

      expect(await store.operator.resurrect([], { actor: 'ops' })).toEqual([]);
      const moved = await store.operator.resurrect([d1, 'missing', pending, done.id, d2], {
        actor: 'ops',
      });
      expect(sorted(moved)).toEqual(sorted([d1, d2]));
      expect(await hot(pending)).toMatchObject({ priority: 3, lastModifiedBy: null });
      await archived(done.id);
      expect((await hot(d1)).state).toBe('pending');
      expect((await hot(d2)).state).toBe('pending');
      expect(await store.operator.resurrect([d1], { actor: 'ops' })).toEqual([]);
    });

    it('moves a job once under concurrent resurrects', async () => {
      const id = await toDead('conc');
      const results = await Promise.all(
        Array.from({ length: 5 }, () => store.operator.resurrect([id], { actor: 'ops' })),
      );
      expect(results.flat()).toEqual([id]);
      expect(ids(await store.operator.listHot({ limit: 10 }))).toEqual([id]);
      expect(await store.operator.listDead({ limit: 10 })).toEqual([]);
    });

    it('purges DLQ rows and returns how many were deleted', async () => {
      const d1 = await toDead('purge');
      const d2 = await toDead('purge');
      const d3 = await toDead('purge');
      const pending = await enqueueOne({ queue: 'purge' });
      expect(await store.operator.purgeDead([])).toBe(0);
      expect(await store.operator.purgeDead([d1, d3, 'missing', pending])).toBe(2);
      expect(ids(await store.operator.listDead({ limit: 10 }))).toEqual([d2]);
      expect(await store.operator.getJob(d1)).toBeNull();
      expect(await store.operator.getJob(d3)).toBeNull();
      expect((await hot(pending)).state).toBe('pending');
      expect(await store.operator.purgeDead([d1])).toBe(0);
      expect((await statsOf('purge')).failedTotal).toBe(3);
    });
  });

  describe('resurrect', () => {
    it("keeps the failure's error text as the resurrected job's lastError", async () => {
      const store = ctx.store();
      const [job] = await processing('res', 1);
      if (!job) throw new Error('nothing claimed');
      await store.jobs.settle([
        { kind: 'dead', lease: leaseOf(job), reason: 'Fatal', error: 'bad VAT id' },
      ]);
      expect(await store.operator.resurrect([job.id], { actor: 'ops' })).toEqual([job.id]);
      expect(await hot(job.id)).toMatchObject({
        state: 'pending',
        attempts: 0,
        lastError: 'bad VAT id',
        lastModifiedBy: 'ops',
      });
    });
  });

  describe('job history', () => {
    it('records each retried run with attempt, times, worker and error, and keeps it into the archive with the result', async () => {
      const store = ctx.store();
      const [first] = await processing('hist', 1, 'worker-a');
      if (!first) throw new Error('nothing claimed');
      await failAndRetry(first, 'Error: boom 1');
      const [second] = await claimAndStart(store, {
        workerId: 'worker-b',
        limit: 1,
        queues: ['hist'],
      });
      if (!second) throw new Error('nothing claimed');
      const [applied] = await store.jobs.settle([
        { kind: 'archive', lease: leaseOf(second), durationMs: 3, result: '{"sent":2}' },
      ]);
      expect(applied).toBe(true);
      const row = await archived(first.id);
      expect(row.result).toBe('{"sent":2}');
      expect(row.history).toHaveLength(1);
      expect(row.history[0]).toMatchObject({
        kind: 'run',
        attempt: 1,
        workerId: 'worker-a',
        outcome: 'retried',
        error: 'Error: boom 1',
      });
      const run = row.history[0];
      if (run?.kind !== 'run') throw new Error('not a run');
      expect(run.startedAt).toBeInstanceOf(Date);
      expect(run.endedAt.getTime()).toBeGreaterThanOrEqual(run.startedAt?.getTime() ?? 0);
      const timeline = timelineOf({ where: 'archive', job: row });
      expect(timeline.map((e) => (e.kind === 'run' ? e.outcome : e.kind))).toEqual([
        'enqueued',
        'retried',
        'succeeded',
      ]);
    });

    it('a first-run success archives with an empty history and no result unless given', async () => {
      const [job] = await processing('hist-fast', 1);
      if (!job) throw new Error('nothing claimed');
      await ctx.store().jobs.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 1 }]);
      expect(await archived(job.id)).toMatchObject({ history: [], result: null });
    });

    it('keeps only the last 20 entries, errors cut to 1000 characters', async () => {
      const store = ctx.store();
      const id = await ctx.enqueueOne({ queue: 'hist-long' });
      for (let run = 1; run <= 23; run++) {
        const [job] = await claimAndStart(store, {
          workerId: 'w',
          limit: 1,
          queues: ['hist-long'],
        });
        if (!job) throw new Error(`run ${run}: nothing claimed`);
        await failAndRetry(job, `Error: run ${run} ${'x'.repeat(1200)}`);
      }
      const row = await hot(id);
      expect(row.history).toHaveLength(20);
      const attempts = row.history.map((e) => (e.kind === 'run' ? e.attempt : 0));
      expect(attempts).toEqual(Array.from({ length: 20 }, (_, i) => i + 4));
      const last = row.history.at(-1);
      expect(last?.kind === 'run' && last.error?.length).toBe(1000);
    });

    it('a refunded (lost) run is recorded as lost; a circuit reschedule of a fetched job records nothing', async () => {
      const store = ctx.store();
      const [job] = await processing('hist-lost', 1);
      if (!job) throw new Error('nothing claimed');
      await store.jobs.settle([
        {
          kind: 'retry',
          lease: leaseOf(job),
          from: 'processing',
          delayMs: 0,
          error: 'shutdown',
          lost: true,
        },
      ]);
      expect((await hot(job.id)).history).toMatchObject([{ outcome: 'lost', attempt: 1 }]);
      const [again] = await store.jobs.claim({ workerId: 'w', limit: 1, queues: ['hist-lost'] });
      if (!again) throw new Error('nothing claimed');
      await store.jobs.settle([
        { kind: 'retry', lease: leaseOf(again), from: 'fetched', delayMs: 0, error: 'circuit' },
      ]);
      expect((await hot(job.id)).history).toHaveLength(1);
    });

    it('stores heartbeat progress and carries it, the start time and the history into the DLQ; resurrect appends the dead run and the action', async () => {
      const store = ctx.store();
      const [job] = await processing('hist-dead', 1);
      if (!job) throw new Error('nothing claimed');
      expect(await store.jobs.heartbeat([{ ...leaseOf(job), progress: 40 }])).toMatchObject([
        { alive: true },
      ]);
      expect((await hot(job.id)).progress).toBe(40);
      await store.jobs.heartbeat([leaseOf(job)]); // no progress given: the stored one stays
      expect((await hot(job.id)).progress).toBe(40);
      await store.jobs.settle([
        { kind: 'dead', lease: leaseOf(job), reason: 'Fatal', error: stackOf('bad input 7') },
      ]);
      const row = await dead(job.id);
      expect(row.progress).toBe(40);
      expect(row.startedAt?.getTime()).toBe(job.startedAt?.getTime());
      expect(row.fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(await store.operator.resurrect([job.id], { actor: 'alice' })).toEqual([job.id]);
      const back = await hot(job.id);
      expect(back.progress).toBeNull();
      expect(back.history).toMatchObject([
        { kind: 'run', outcome: 'dead', reason: 'Fatal', attempt: 1 },
        { kind: 'action', action: 'resurrect', actor: 'alice' },
      ]);
    });

    it("a hot job's version changes when it is edited or claimed, not when it heartbeats", async () => {
      const store = ctx.store();
      const id = await ctx.enqueueOne({ queue: 'hot-version' });
      const versionOf = async (): Promise<number | undefined> => {
        const checked = checkJobQuery({ queue: 'hot-version' });
        const page = await store.operator.queryTable('hot', { ...checked.base, limit: 10 });
        return page.rows.find((row) => row.job.id === id)?.version;
      };
      const enqueued = await versionOf();
      expect(enqueued).toEqual(expect.any(Number));
      expect(await versionOf()).toBe(enqueued);
      await storeTimePasses((await hot(id)).createdAt);
      expect(await store.operator.editPending(id, { actor: 'bob', priority: 4 })).toBe(true);
      const edited = await versionOf();
      expect(edited).not.toBe(enqueued);
      await storeTimePasses(await store.cluster.now());
      const [claimed] = await claimAndStart(store, {
        workerId: 'w',
        limit: 1,
        queues: ['hot-version'],
      });
      if (!claimed) throw new Error('nothing claimed');
      const running = await versionOf();
      expect(running).not.toBe(edited);
      await store.jobs.heartbeat([{ ...leaseOf(claimed), progress: 10 }]);
      expect(await versionOf()).toBe(running);
    });

    it('an edit of a pending job changes its due time and is recorded with its actor', async () => {
      const store = ctx.store();
      const id = await ctx.enqueueOne({ queue: 'hist-edit' });
      const before = await hot(id);
      expect(
        await store.operator.editPending(id, { actor: 'bob', delayMs: 3_600_000, priority: 3 }),
      ).toBe(true);
      const row = await hot(id);
      expect(row.priority).toBe(3);
      expect(row.runAt.getTime()).toBeGreaterThanOrEqual(before.runAt.getTime() + 3_500_000);
      expect(row.history).toMatchObject([{ kind: 'action', action: 'edit', actor: 'bob' }]);
      expect(await store.jobs.claim({ workerId: 'w', limit: 1, queues: ['hist-edit'] })).toEqual(
        [],
      );
    });
  });

  describe('DLQ error groups', () => {
    it('groups errors that differ only in ids, numbers, uuids and quoted values; splits by class and frame', async () => {
      const store = ctx.store();
      const a = await failToDead(
        'g1',
        stackOf(
          `user 42 not found: 'alice' 0b1c2d3e4f5a req 3f2a9c1e-0b4d-4e8f-9a7b-1c2d3e4f5a6b 01ARZ3NDEKTSV4RRFFQ69G5FAV`,
        ),
      );
      await storeTimePasses((await dead(a)).failedAt);
      const b = await failToDead(
        'g2',
        stackOf(
          `user 977 not found: 'bob' 9f8e7d6c5b4a req 0d9c8b7a-6f5e-4d3c-8b2a-190817263544 01BX5ZZKBKACTAV9WEVGEMMVRZ`,
        ),
        'other.type',
      );
      await failToDead(
        'g1',
        stackOf(
          'user 5 not found: "carol" 77aa88bb99cc req AB12CD34-EF56-4A78-9B01-C2D3E4F5A6B7 k9z8x7w6v5',
        ),
      );
      await failToDead('g1', stackOf('user 42 not found', 'other (/srv/app/jobs/else.js:1:1)'));
      await failToDead(
        'g1',
        `RangeError: user 42 not found: 'x'\n    at sendMail (/x/jobs/mail.js:3:3)`,
      );
      const groups = await store.operator.errorGroups({ limit: 10 });
      expect(groups.map((g) => g.count)).toEqual([3, 1, 1]);
      const [top] = groups;
      expect(top).toMatchObject({
        errorClass: 'TypeError',
        message: 'user <n> not found: <q> <id> req <uuid> <id>',
        frame: 'sendMail (jobs/mail.js)',
        queues: ['g1', 'g2'],
        types: ['conformance.job', 'other.type'],
      });
      expect(top?.firstSeen.getTime()).toBeLessThan(top?.lastSeen.getTime() ?? 0);
      expect((await dead(b)).fingerprint).toBe(top?.fingerprint);
      expect(await store.operator.errorGroups({ queues: ['g2'], limit: 10 })).toMatchObject([
        { count: 1, sampleId: b, queues: ['g2'] },
      ]);
    });

    it('puts cancels by different actors in one group', async () => {
      const store = ctx.store();
      const first = await ctx.enqueueOne({ queue: 'g-cancel' });
      const second = await ctx.enqueueOne({ queue: 'g-cancel' });
      await store.jobs.cancel([first], 'alice');
      await store.jobs.cancel([second], 'cli:bob@host-2');
      const groups = await store.operator.errorGroups({ queues: ['g-cancel'], limit: 10 });
      expect(groups).toMatchObject([{ count: 2, message: 'Cancelled by <actor>' }]);
      expect((await dead(first)).errorDetails).toBe('Cancelled by alice');
    });

    it("counts each group's arrivals per hour for its trend, kept through resurrect and purge", async () => {
      const store = ctx.store();
      const a = await failToDead('g-trend', stackOf('timeout after 30 ms'));
      const b = await failToDead('g-trend', stackOf('timeout after 31 ms'));
      const c = await failToDead('g-trend', stackOf('disk is full'));
      const [fp, other] = [(await dead(a)).fingerprint, (await dead(c)).fingerprint];
      expect((await dead(b)).fingerprint).toBe(fp);
      const sum = (counts: number[]) => counts.reduce((x, y) => x + y, 0);
      const trend = await errorGroupTrend(store, [fp, other, 'no-such-group']);
      expect(trend.hours).toHaveLength(24);
      const now = (await store.cluster.now()).getTime();
      const last = trend.hours.at(-1)!.getTime();
      expect(last % 3_600_000).toBe(0);
      expect(now - last).toBeGreaterThanOrEqual(0);
      expect(now - last).toBeLessThan(3_600_000);
      expect(trend.groups.map((g) => [g.fingerprint, sum(g.counts)])).toEqual([
        [fp, 2],
        [other, 1],
        ['no-such-group', 0],
      ]);
      // The jobs failed a moment ago: in the hour now running (or, just past an hour, the one before).
      expect(sum(trend.groups[0]!.counts.slice(-2))).toBe(2);
      expect(await store.operator.resurrect([a], { actor: 'op' })).toEqual([a]);
      expect(await store.operator.purgeDead([b])).toBe(1);
      expect(sum((await errorGroupTrend(store, [fp])).groups[0]!.counts)).toBe(2);
      expect(await store.operator.errorGroupHours([fp], new Date(last + 3_600_000))).toEqual([]);
    });

    it('resurrect and purge take jobs out of their group; an empty group is not listed', async () => {
      const store = ctx.store();
      const a = await failToDead('g3', stackOf('timeout after 30 ms'));
      await storeTimePasses((await dead(a)).failedAt);
      const b = await failToDead('g3', stackOf('timeout after 31 ms'));
      expect(await store.operator.errorGroups({ limit: 10 })).toMatchObject([
        { count: 2, sampleId: b },
      ]);
      expect(await store.operator.resurrect([b], { actor: 'op' })).toEqual([b]);
      expect(await store.operator.errorGroups({ limit: 10 })).toMatchObject([
        { count: 1, sampleId: a },
      ]);
      expect(await store.operator.purgeDead([a])).toBe(1);
      expect(await store.operator.errorGroups({ limit: 10 })).toEqual([]);
    });
  });

  describe('query surface', () => {
    /** One job in each of the five states, in queues q-pend … q-dead, created in order. */
    async function oneOfEach(): Promise<Record<string, string>> {
      const store = ctx.store();
      const made: Record<string, string> = {};
      made.pending = await ctx.enqueueOne({ queue: 'q-pend', tags: 'red, blue' });
      await storeTimePasses((await hot(made.pending)).createdAt);
      const [fetchedJob] = await ctx.fetched('q-fetch', 1);
      made.fetched = fetchedJob?.id ?? '';
      await storeTimePasses(fetchedJob?.createdAt ?? 0);
      const [running] = await processing('q-proc', 1);
      made.processing = running?.id ?? '';
      await storeTimePasses(running?.createdAt ?? 0);
      const [win] = await processing('q-ok', 1);
      if (!win) throw new Error('nothing claimed');
      await store.jobs.settle([{ kind: 'archive', lease: leaseOf(win), durationMs: 1 }]);
      made.succeeded = win.id;
      await storeTimePasses((await archived(win.id)).finishedAt);
      made.dead = await failToDead('q-dead', stackOf('card 4242 declined'));
      return made;
    }

    it('lists every state newest first by default, and each state alone', async () => {
      const made = await oneOfEach();
      const all = await page({});
      expect(ids(all.jobs)).toEqual([
        made.dead,
        made.succeeded,
        made.processing,
        made.fetched,
        made.pending,
      ]);
      expect(all.nextCursor).toBeNull();
      expect(all.scan).toBeNull();
      for (const state of ['pending', 'fetched', 'processing', 'succeeded', 'dead'] as const) {
        const only = await page({ state });
        expect(ids(only.jobs), state).toEqual([made[state]]);
        expect(only.jobs[0]?.state).toBe(state);
      }
      expect(ids((await page({ state: ['pending', 'dead'], order: 'asc' })).jobs)).toEqual([
        made.pending,
        made.dead,
      ]);
    });

    it('filters by queue, type, tags, created range, id prefix and attempts', async () => {
      const made = await oneOfEach();
      expect(ids((await page({ queue: ['q-ok', 'q-dead'] })).jobs)).toEqual([
        made.dead,
        made.succeeded,
      ]);
      expect((await page({ type: 'no.such.type' })).jobs).toEqual([]);
      expect((await page({ type: 'conformance.job' })).jobs).toHaveLength(5);
      expect(ids((await page({ tags: 'blue' })).jobs)).toEqual([made.pending]);
      expect(ids((await page({ tags: ['red', 'blue'] })).jobs)).toEqual([made.pending]);
      expect((await page({ tags: ['red', 'green'] })).jobs).toEqual([]);
      const pending = await hot(made.pending ?? '');
      expect(
        ids((await page({ created: { to: new Date(pending.createdAt.getTime() + 1) } })).jobs),
      ).toEqual([made.pending]);
      const rest = await page({ created: { from: new Date(pending.createdAt.getTime() + 1) } });
      expect(rest.jobs).toHaveLength(4);
      expect(ids((await page({ idPrefix: (made.dead ?? '').slice(0, 30) })).jobs)).toEqual([
        made.dead,
      ]);
      expect(
        ids((await page({ attempts: { min: 1 }, state: ['processing', 'succeeded'] })).jobs),
      ).toEqual([made.succeeded, made.processing]);
      expect(ids((await page({ attempts: { max: 0 } })).jobs)).toEqual([
        made.fetched,
        made.pending,
      ]);
    });

    it('filters finished jobs by finish time, reason, error group and error words', async () => {
      const made = await oneOfEach();
      const deadRow = await dead(made.dead ?? '');
      const win = await archived(made.succeeded ?? '');
      expect(ids((await page({ finished: { from: deadRow.failedAt } })).jobs)).toEqual([made.dead]);
      expect(ids((await page({ finished: { to: deadRow.failedAt } })).jobs)).toEqual([
        made.succeeded,
      ]);
      expect(ids((await page({ sort: 'finishedAt' })).jobs)).toEqual([made.dead, made.succeeded]);
      expect(
        ids(
          (await page({ sort: 'finishedAt', order: 'asc', finished: { from: win.finishedAt } }))
            .jobs,
        ),
      ).toEqual([made.succeeded, made.dead]);
      expect(ids((await page({ reason: 'Fatal' })).jobs)).toEqual([made.dead]);
      expect((await page({ reason: ['Timeout', 'Zombie'] })).jobs).toEqual([]);
      expect(ids((await page({ errorGroup: deadRow.fingerprint })).jobs)).toEqual([made.dead]);
      expect(ids((await page({ errorText: 'CARD declined' })).jobs)).toEqual([made.dead]);
      expect((await page({ errorText: 'card accepted' })).jobs).toEqual([]);
      // Parts without a letter or digit are not words: they neither widen nor narrow.
      expect(ids((await page({ errorText: 'card !!! declined' })).jobs)).toEqual([made.dead]);
      // A text with no word at all, or an empty list, is refused before any table is read.
      expect(() => checkJobQuery({ errorText: '!!!' })).toThrow(
        expect.objectContaining({ code: 'CHOKAQ_INVALID_FILTER', field: 'query.errorText' }),
      );
      expect(() => checkJobQuery({ tags: [] })).toThrow(
        expect.objectContaining({ code: 'CHOKAQ_INVALID_FILTER', field: 'query.tags' }),
      );
      const [summary] = (await page({ state: 'dead' })).jobs;
      expect(summary).toMatchObject({
        reason: 'Fatal',
        error: 'TypeError: card 4242 declined',
        fingerprint: deadRow.fingerprint,
        finishedAt: deadRow.failedAt,
      });
    });

    it('pages with a cursor through ties on the sort time, in id order, both directions', async () => {
      const store = ctx.store();
      const batch = Array.from({ length: 7 }, (_, i) => newJob({ id: `tie-${i}`, queue: 'ties' }));
      await store.jobs.enqueue(batch); // one statement: one creation time
      const times = new Set(
        (await Promise.all(batch.map((job) => hot(job.id)))).map((row) => row.createdAt.getTime()),
      );
      expect(times.size).toBe(1);
      const names = batch.map((job) => job.id);
      expect(await allPages({ queue: 'ties', order: 'asc' }, 3)).toEqual(names);
      expect(await allPages({ queue: 'ties' }, 2)).toEqual([...names].reverse());
    });

    it('a row deleted between pages neither repeats nor hides the others', async () => {
      const store = ctx.store();
      const made: string[] = [];
      for (let i = 0; i < 6; i++) {
        const id = await failToDead('gone', stackOf(`failure ${i}`));
        made.push(id);
        await storeTimePasses((await dead(id)).createdAt);
      }
      const first = await page({ state: 'dead', limit: 2 });
      expect(ids(first.jobs)).toEqual([made[5], made[4]]);
      await store.operator.purgeDead([made[4] ?? '', made[3] ?? '']); // one seen, one not yet
      const second = await page({ state: 'dead', limit: 2, cursor: first.nextCursor ?? '' });
      expect(ids(second.jobs)).toEqual([made[2], made[1]]);
      const third = await page({ state: 'dead', limit: 2, cursor: second.nextCursor ?? '' });
      expect(ids(third.jobs)).toEqual([made[0]]);
      expect(third.nextCursor).toBeNull();
    });

    it('merges pages of several tables without losing rows at the page edges', async () => {
      const store = ctx.store();
      const order: string[] = [];
      for (let i = 0; i < 9; i++) {
        let id: string;
        if (i % 3 === 0) id = await ctx.enqueueOne({ queue: 'mix' });
        else if (i % 3 === 1) id = await failToDead('mix-dead', stackOf('mixed'));
        else {
          await store.jobs.enqueue([newJob({ queue: 'mix-ok' })]);
          const [job] = await claimAndStart(store, {
            workerId: 'w',
            limit: 1,
            queues: ['mix-ok'],
          });
          if (!job) throw new Error('nothing claimed');
          await store.jobs.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 1 }]);
          id = job.id;
        }
        order.push(id);
        const found = await store.operator.getJob(id);
        await storeTimePasses(found?.job.createdAt ?? 0);
      }
      const queue = ['mix', 'mix-ok', 'mix-dead'];
      expect(await allPages({ queue }, 2)).toEqual([...order].reverse());
      expect(await allPages({ queue, order: 'asc' }, 4)).toEqual(order);
    });

    it('a payload filter scans a bounded number of rows per page and says how far it got', async () => {
      const store = ctx.store();
      const jobs = Array.from({ length: 8 }, (_, i) =>
        newJob({
          id: `pay-${i}`,
          queue: 'pay',
          payload: JSON.stringify({
            n: i,
            tag: i % 4 === 0 ? 'hit' : 'miss',
            deep: { list: [i, 'x'] },
          }),
        }),
      );
      for (const job of jobs) {
        await store.jobs.enqueue([job]);
        await storeTimePasses((await hot(job.id)).createdAt);
      }
      const everything = await page({ queue: 'pay', payload: { tag: 'hit' }, order: 'asc' });
      expect(ids(everything.jobs)).toEqual(['pay-0', 'pay-4']);
      expect(everything.scan).toEqual({ rowsPerTable: 10_000, complete: true });
      expect(ids((await page({ queue: 'pay', payload: { deep: { list: [5] } } })).jobs)).toEqual([
        'pay-5',
      ]);
      // Three rows per page at most: the first page sees pay-0..2 and stops there.
      const seen: string[] = [];
      let cursor: string | undefined;
      const completes: boolean[] = [];
      for (let guard = 0; guard < 10; guard++) {
        const checked = checkJobQuery({
          queue: 'pay',
          payload: { tag: 'hit' },
          order: 'asc',
          ...(cursor ? { cursor } : {}),
        });
        checked.base.scanLimit = 3;
        const result = await queryJobs(store, checked);
        seen.push(...ids(result.jobs));
        completes.push(result.scan?.complete ?? true);
        if (result.nextCursor === null) break;
        cursor = result.nextCursor;
      }
      expect(seen).toEqual(['pay-0', 'pay-4']);
      expect(completes).toEqual([false, false, true]);
    });

    it('counts exactly, and within a payload scan', async () => {
      await oneOfEach();
      const count = (query: Parameters<typeof checkJobQuery>[0], scanLimit?: number) => {
        const checked = checkJobQuery(query);
        if (scanLimit !== undefined) checked.base.scanLimit = scanLimit;
        return countJobs(ctx.store(), checked);
      };
      expect(await count({})).toEqual({ count: 5, exact: true });
      expect(await count({ state: ['pending', 'dead'] })).toEqual({ count: 2, exact: true });
      expect(await count({ reason: 'Fatal' })).toEqual({ count: 1, exact: true });
      expect(await count({ payload: { n: 1 } })).toEqual({ count: 5, exact: true });
      // Two rows per table: 2 of the 3 hot jobs, the archived one and the dead one.
      expect(await count({ payload: { n: 1 } }, 2)).toEqual({ count: 4, exact: false });
    });
  });
}
