import { describe, expect, it } from 'vitest';
import type { ChokaQ } from '../../src/index.js';
import { defineJob } from '../../src/index.js';
import { RETENTION_LEASE } from '../../src/runtime/retention.js';
import { JumpingClock } from '../helpers/jumping-clock.js';
import { waitFor } from '../helpers/wait.js';
import { useEngines } from './engines.js';
import type { EngineStoreFactory } from './suite.js';

const job = defineJob({ type: 'retention.job.v1', queue: 'retention', handle: () => undefined });

/** The retention purge of a running engine, on every provider. */
export function describeRetentionPurge(name: string, factory: EngineStoreFactory): void {
  describe(`retention on ${name}`, () => {
    const { started } = useEngines(name, factory);

    /** A started engine on a fresh store, both on one clock the test moves. */
    async function engineOnClock(
      options: Parameters<typeof started>[1],
    ): Promise<{ chokaq: ChokaQ; clock: JumpingClock }> {
      const clock = new JumpingClock();
      const chokaq = await started(await factory.make({ clock }), { ...options, clock });
      return { chokaq, clock };
    }

    /** Runs `n` jobs to the archive. */
    async function archived(chokaq: ChokaQ, n: number): Promise<void> {
      await chokaq.enqueueMany(
        job,
        Array.from({ length: n }, () => ({ payload: undefined })),
      );
      await waitFor(async () => (await chokaq.jobs.count({ state: 'succeeded' })).count >= n, {
        message: `${n} archived jobs`,
      });
    }

    it('previews and purges on demand with ages given to the call, counters untouched', async () => {
      const { chokaq, clock } = await engineOnClock({ jobs: [job], retention: false });
      await archived(chokaq, 3);
      const archive = async () =>
        (await chokaq.retention.preview({ archive: '1m' })).find((e) => e.table === 'archive');
      expect((await archive())?.rows).toBe(0); // younger than the age
      clock.jump(61_000);
      expect(await archive()).toEqual({
        table: 'archive',
        queue: null,
        olderThanMs: 60_000,
        rows: 3,
      });
      // Nothing moves with the configured ages (7 days).
      expect((await chokaq.retention.purge()).entries.every((e) => e.rows === 0)).toBe(true);
      const purged = await chokaq.retention.purge({ archive: '1m', dlq: null });
      expect(purged.led).toBe(true);
      expect(purged.entries.find((e) => e.table === 'archive')?.rows).toBe(3);
      expect(purged.entries.some((e) => e.table === 'dlq')).toBe(false);
      expect((await chokaq.jobs.count({ state: 'succeeded' })).count).toBe(0);
      const [stats] = (await chokaq.queues.stats()).filter((s) => s.queue === 'retention');
      expect(stats?.succeededTotal).toBe(3);
      // Each purge on demand is in the audit trail, with what it deleted.
      await chokaq.retention.purge({ archive: '1m' }, { actor: 'ops', reason: 'disk' });
      expect((await chokaq.audit.list())[0]).toMatchObject({
        action: 'retention-purge',
        actor: 'ops',
        reason: 'disk',
        target: { ages: { archive: '1m' } },
        outcome: { led: true },
      });
      await expect(chokaq.retention.purge(undefined, { actor: '' })).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
      });
    });

    it('runs in the background, by queue, and reports what it purged', async () => {
      const { chokaq, clock } = await engineOnClock({
        jobs: [job],
        retention: { archive: null, interval: '1m' },
        queues: { retention: { retention: { archive: '1m' } } },
      });
      const purged: number[] = [];
      chokaq.on('retention:purged', (e) => {
        if (e.table === 'archive' && e.queue === 'retention') purged.push(e.rows);
      });
      await archived(chokaq, 4);
      // Two minutes pass: the loop's next pass (at most one interval away) finds them a minute old.
      clock.jump(120_000);
      // The event follows the purge's commit: wait for what it reports, then look at the table.
      await waitFor(() => purged.reduce((a, b) => a + b, 0) >= 4, {
        timeoutMs: 15_000,
        message: 'the background purge',
      });
      expect(purged.reduce((a, b) => a + b, 0)).toBe(4);
      expect((await chokaq.jobs.count({ state: 'succeeded' })).count).toBe(0);
    });

    it('does nothing while another process holds the lease', async () => {
      const { chokaq, clock } = await engineOnClock({ jobs: [job], retention: false });
      const storage = chokaq.storage;
      await archived(chokaq, 2);
      clock.jump(61_000);
      expect(await storage.cluster.takeLease(RETENTION_LEASE, 'another-process', 60_000)).toBe(
        true,
      );
      expect(await chokaq.retention.purge({ archive: '1m' })).toEqual({ led: false, entries: [] });
      expect((await chokaq.jobs.count({ state: 'succeeded' })).count).toBe(2);
    });

    it('purges ended bulk actions with their items', async () => {
      const { chokaq, clock } = await engineOnClock({ jobs: [job], retention: false });
      const [enqueued] = await chokaq.enqueueMany(job, [{ payload: undefined, delay: '1h' }]);
      const preview = await chokaq.bulk.preview({
        action: 'cancel',
        target: { ids: [enqueued!.id] },
      });
      await chokaq.bulk.run(preview.token, { actor: 'op', reason: 'test' });
      await waitFor(async () => (await chokaq.bulk.get(preview.id))?.status === 'succeeded', {
        message: 'the bulk action to end',
      });
      const bulkActions = async () =>
        (await chokaq.retention.preview({ bulkActions: '1m' })).find(
          (e) => e.table === 'bulkActions',
        )?.rows;
      expect(await bulkActions()).toBe(0); // ended less than the age ago
      clock.jump(61_000);
      expect(await bulkActions()).toBeGreaterThan(0);
      const purged = await chokaq.retention.purge({ bulkActions: '1m' });
      expect(purged.entries.find((e) => e.table === 'bulkActions')?.rows).toBeGreaterThan(0);
      expect(await chokaq.bulk.get(preview.id)).toBeNull();
    });

    it('scans for events left behind in bounded windows that go on from pass to pass', async () => {
      let release!: () => void;
      const finished = new Promise<void>((resolve) => (release = resolve));
      // Succeeds without a step and keeps no row: an event sent to it is left behind.
      const gone = defineJob({
        type: 'retention.gone.v1',
        queue: 'retention-gone',
        keepSucceeded: false,
        handle: () => finished,
      });
      // The background loop's first pass is a day away: only the two passes below run.
      const { chokaq } = await engineOnClock({
        jobs: [job, gone],
        retention: { batchSize: 1, interval: '1d' },
      });
      const windows: { deleted: number; after: number | null }[][] = [];
      const storage = chokaq.storage;
      const purgeEvents = storage.steps.purgeEvents.bind(storage.steps);
      storage.steps.purgeEvents = async (limit, after) => {
        const window = await purgeEvents(limit, after);
        windows.at(-1)?.push(window);
        return window;
      };
      // Events of 25 living jobs first (due in an hour), then the one left behind.
      const living = await chokaq.enqueueMany(
        job,
        Array.from({ length: 25 }, () => ({ payload: undefined, delay: '1h' })),
      );
      for (const { id } of living) await chokaq.sendEvent(id, 'kept');
      const { id } = await chokaq.enqueue(gone, undefined);
      await waitFor(async () => (await chokaq.jobs.count({ state: 'processing' })).count === 1, {
        message: 'the run started',
      });
      await chokaq.sendEvent(id, 'lost');
      const succeeded = new Promise<void>((resolve) =>
        chokaq.on('job:succeeded', (e) => e.id === id && resolve()),
      );
      release();
      await succeeded;
      for (let pass = 0; pass < 2; pass++) {
        windows.push([]);
        await chokaq.retention.purge();
      }
      const [first = [], second = []] = windows;
      if (name === 'memory') {
        // It deleted the event with the settle, and reads every event in one window.
        expect(windows).toEqual([[{ deleted: 0, after: null }], [{ deleted: 0, after: null }]]);
        return;
      }
      // The first pass read 20 windows of one event, all living; the second went on from there
      // and reached the event left behind before the scan ended.
      expect(first).toHaveLength(20);
      expect(first.every((w) => w.deleted === 0 && w.after !== null)).toBe(true);
      expect(second.length).toBeGreaterThanOrEqual(6);
      expect(second.reduce((sum, w) => sum + w.deleted, 0)).toBe(1);
      expect(second.at(-1)?.after).toBeNull();
      expect(second[0]?.after).toBeGreaterThan(first.at(-1)?.after ?? Infinity);
    });
  });
}
