/**
 * Conformance of the schedule verbs (`Store.schedules`): saving keeps the cursor and pause
 * flag, a tick fires once (also when many fire it at the same time), ticks at or before the
 * cursor or after now are refused, overlap skips while the previous job is hot, manual ticks
 * move no cursor, removal takes the ticks along, and retention prunes old ticks. Registered by
 * `describeStoreConformance` in suite.ts.
 */
import { describe, expect, it } from 'vitest';
import type { TickToFire } from '../../src/storage/schedules.js';
import { claimAndStart, leaseOf, newJob } from './helpers.js';
import type { ConformanceContext } from './context.js';

const DEFINITION = '{"cron":"* * * * *"}';

/** Registers the schedule conformance tests; call inside the provider's `describe`. */
export function describeSchedules(ctx: ConformanceContext): void {
  const { storeTimePasses } = ctx;

  /** A tick `offsetMs` after `base` with a fresh job of `queue`. */
  function tick(base: Date, offsetMs: number, queue = 'sched', manual = false): TickToFire {
    const tickAt = new Date(base.getTime() + offsetMs);
    return {
      tickAt,
      manual,
      job: newJob({ queue, createdBy: `schedule:c@${tickAt.toISOString()}` }),
    };
  }

  /** Saves schedule `name` and waits until the store clock is 100 ms past its cursor. */
  async function saved(name: string): Promise<Date> {
    const row = await ctx.store().schedules.save(name, DEFINITION);
    await storeTimePasses(row.cursorAt.getTime() + 100);
    return row.cursorAt;
  }

  describe('schedules', () => {
    it('saves a schedule, then replaces its definition keeping cursor, anchor and pause', async () => {
      const schedules = ctx.store().schedules;
      const before = await ctx.store().cluster.now();
      const first = await schedules.save('keep', DEFINITION);
      expect(first).toMatchObject({ name: 'keep', paused: false, lastTick: null });
      expect(JSON.parse(first.definition)).toEqual({ cron: '* * * * *' });
      expect(first.cursorAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
      expect(first.anchorAt).toEqual(first.cursorAt);
      await schedules.setPaused('keep', true);
      const second = await schedules.save('keep', '{"every":1000}');
      expect(JSON.parse(second.definition)).toEqual({ every: 1000 });
      expect(second).toMatchObject({
        paused: true,
        cursorAt: first.cursorAt,
        anchorAt: first.anchorAt,
      });
      await schedules.save('another', DEFINITION);
      expect((await schedules.list()).map((s) => s.name)).toEqual(['another', 'keep']);
      expect(await schedules.get('missing')).toBeNull();
    });

    it('fires a tick once: its job is enqueued with it, a second fire is refused', async () => {
      const store = ctx.store();
      const cursor = await saved('once');
      const t = tick(cursor, 10);
      const request = { name: 'once', ticks: [t], advanceTo: null, overlap: 'allow' as const };
      expect(await store.schedules.fire(request)).toEqual(['enqueued']);
      const again = { ...tick(cursor, 10), tickAt: t.tickAt };
      expect(await store.schedules.fire({ ...request, ticks: [again] })).toEqual(['taken']);
      expect((await store.operator.getJob(t.job?.id ?? ''))?.job.createdBy).toBe(t.job?.createdBy);
      expect(await store.operator.getJob(again.job?.id ?? '')).toBeNull();
      const row = await store.schedules.get('once');
      expect(row?.cursorAt).toEqual(t.tickAt);
      expect(row?.lastTick).toMatchObject({
        tickAt: t.tickAt,
        manual: false,
        outcome: 'enqueued',
        jobId: t.job?.id,
        error: null,
      });
    });

    it('fires a tick once when many fire it at the same time', async () => {
      const store = ctx.store();
      const cursor = await saved('race');
      const at = new Date(cursor.getTime() + 20);
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          store.schedules.fire({
            name: 'race',
            ticks: [{ ...tick(cursor, 0), tickAt: at }],
            advanceTo: at,
            overlap: 'allow',
          }),
        ),
      );
      expect(results.flat().filter((r) => r === 'enqueued')).toHaveLength(1);
      expect(results.flat().filter((r) => r === 'taken')).toHaveLength(7);
      expect(await store.operator.listHot({ queue: 'sched', limit: 100 })).toHaveLength(1);
    });

    it('refuses ticks at or before the cursor and after now; moves the cursor, never back or past now', async () => {
      const store = ctx.store();
      const cursor = await saved('bounds');
      const late = tick(cursor, 0);
      const future = tick(cursor, 3_600_000);
      const ok = tick(cursor, 30);
      const results = await store.schedules.fire({
        name: 'bounds',
        ticks: [late, ok, future],
        advanceTo: new Date(cursor.getTime() + 7_200_000),
        overlap: 'allow',
      });
      expect(results).toEqual(['taken', 'enqueued', 'early']);
      const row = await store.schedules.get('bounds');
      const now = await store.cluster.now();
      expect(row?.cursorAt.getTime()).toBeGreaterThanOrEqual(ok.tickAt.getTime());
      expect(row?.cursorAt.getTime()).toBeLessThanOrEqual(now.getTime());
      // An older advance leaves it.
      await store.schedules.fire({
        name: 'bounds',
        ticks: [],
        advanceTo: cursor,
        overlap: 'allow',
      });
      expect((await store.schedules.get('bounds'))?.cursorAt).toEqual(row?.cursorAt);
    });

    it("skips a tick under overlap 'skip' while the previous job is hot, fires once it is not", async () => {
      const store = ctx.store();
      const cursor = await saved('overlap');
      const first = tick(cursor, 10, 'sched-ov');
      const fire = (t: TickToFire) =>
        store.schedules.fire({ name: 'overlap', ticks: [t], advanceTo: null, overlap: 'skip' });
      expect(await fire(first)).toEqual(['enqueued']);
      expect(await fire(tick(cursor, 20, 'sched-ov'))).toEqual(['skipped']);
      expect((await store.schedules.get('overlap'))?.lastTick).toMatchObject({
        outcome: 'skipped',
        jobId: null,
        error: expect.any(String) as unknown,
      });
      const [claimed] = await claimAndStart(store, {
        workerId: 'w',
        limit: 1,
        queues: ['sched-ov'],
      });
      if (claimed === undefined) throw new Error('nothing claimed');
      await store.jobs.settle([{ kind: 'archive', lease: leaseOf(claimed), durationMs: 1 }]);
      expect(await fire(tick(cursor, 30, 'sched-ov'))).toEqual(['enqueued']);
    });

    it('stores a tick without a job as failed, with its error', async () => {
      const store = ctx.store();
      const cursor = await saved('failing');
      const at = new Date(cursor.getTime() + 10);
      expect(
        await store.schedules.fire({
          name: 'failing',
          ticks: [{ tickAt: at, manual: false, job: null, error: 'payload threw' }],
          advanceTo: at,
          overlap: 'allow',
        }),
      ).toEqual(['failed']);
      expect((await store.schedules.get('failing'))?.lastTick).toMatchObject({
        outcome: 'failed',
        jobId: null,
        error: 'payload threw',
      });
    });

    it('fires a manual tick whatever the cursor, without moving it', async () => {
      const store = ctx.store();
      const cursor = await saved('manual');
      const now = await store.cluster.now();
      const manual = { ...tick(cursor, 0, 'sched', true), tickAt: now };
      const before = await store.schedules.fire({
        name: 'manual',
        ticks: [tick(cursor, 50)],
        advanceTo: null,
        overlap: 'allow',
      });
      expect(before).toEqual(['enqueued']);
      const moved = (await store.schedules.get('manual'))?.cursorAt;
      const early = { ...tick(cursor, 5, 'sched', true) };
      expect(
        await store.schedules.fire({
          name: 'manual',
          ticks: [early, manual],
          advanceTo: null,
          overlap: 'allow',
        }),
      ).toEqual(['enqueued', 'enqueued']);
      expect((await store.schedules.get('manual'))?.cursorAt).toEqual(moved);
    });

    it('resuming moves the cursor to now; removing takes the ticks and refuses later fires', async () => {
      const store = ctx.store();
      const cursor = await saved('life');
      expect((await store.schedules.setPaused('life', true))?.paused).toBe(true);
      const now = await store.cluster.now();
      const resumed = await store.schedules.setPaused('life', false);
      expect(resumed?.paused).toBe(false);
      expect(resumed?.cursorAt.getTime()).toBeGreaterThanOrEqual(now.getTime());
      expect(await store.schedules.setPaused('nope', true)).toBeNull();
      expect(await store.schedules.remove('life')).toBe(true);
      expect(await store.schedules.remove('life')).toBe(false);
      expect(
        await store.schedules.fire({
          name: 'life',
          ticks: [tick(cursor, 10)],
          advanceTo: null,
          overlap: 'allow',
        }),
      ).toEqual(['gone']);
      // A schedule saved again under the name starts afresh.
      const again = await store.schedules.save('life', DEFINITION);
      expect(again.lastTick).toBeNull();
    });

    it('retention purges ticks by age, oldest first', async () => {
      const store = ctx.store();
      const cursor = await saved('old');
      for (const offset of [10, 20, 30]) {
        await store.schedules.fire({
          name: 'old',
          ticks: [tick(cursor, offset)],
          advanceTo: null,
          overlap: 'allow',
        });
      }
      const fired = await store.cluster.now();
      await storeTimePasses(fired.getTime() + 300);
      expect(
        await store.retention.countPurgeable({ table: 'scheduleTicks', olderThanMs: 60_000 }),
      ).toBe(0);
      expect(
        await store.retention.countPurgeable({ table: 'scheduleTicks', olderThanMs: 200 }),
      ).toBe(3);
      expect(
        await store.retention.purgeBatch({ table: 'scheduleTicks', olderThanMs: 200 }, 2),
      ).toBe(2);
      expect(
        await store.retention.purgeBatch({ table: 'scheduleTicks', olderThanMs: 200 }, 2),
      ).toBe(1);
      expect((await store.schedules.get('old'))?.lastTick).toBeNull();
      // The jobs stay: ticks and jobs are pruned apart.
      expect(await store.operator.listHot({ queue: 'sched', limit: 10 })).toHaveLength(3);
    });
  });
}
