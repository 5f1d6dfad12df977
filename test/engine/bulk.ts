import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChokaQ } from '../../src/index.js';
import { defineJob, FatalError, type BulkAction } from '../../src/index.js';
import { waitFor } from '../helpers/wait.js';
import { useEngines } from './engines.js';
import type { EngineStoreFactory } from './suite.js';

/**
 * Bulk actions and the audit trail end to end — preview, confirmation token, the durable run in
 * batches, skips, cancel — on every storage provider.
 */
export function describeBulk(name: string, factory: EngineStoreFactory): void {
  describe(`bulk actions on ${name}`, () => {
    const { engineOn } = useEngines(name, factory);

    /** Waits until bulk action `id` has finished, and returns it. */
    function finished(chokaq: ChokaQ, id: string): Promise<BulkAction> {
      return waitFor(
        async () => {
          const action = await chokaq.bulk.get(id);
          return action && action.status !== 'running' && action.status !== 'previewed'
            ? action
            : undefined;
        },
        { timeoutMs: 20_000, message: `bulk action ${id} to finish` },
      );
    }

    /** `n` jobs of `job` in the DLQ as Cancelled (cancelled while pending: no worker needed). */
    async function deadJobs(chokaq: ChokaQ, job: string, n: number): Promise<string[]> {
      const results = await chokaq.enqueueMany(
        job,
        Array.from({ length: n }, (_, i) => ({ payload: { n: i }, delay: '1h' })),
      );
      const ids = results.map((r) => r.id);
      for (let i = 0; i < ids.length; i += 10_000) {
        await chokaq.cancel(ids.slice(i, i + 10_000), { actor: 'setup' });
      }
      return ids;
    }

    it('previews an error group, runs it on the confirmation token and records who and why', async () => {
      let broken = true;
      const job = defineJob<{ n: number }>({
        type: 'sync.v1',
        handle(payload) {
          if (broken) throw new FatalError(`upstream 503 for record ${payload.n}`);
        },
      });
      const chokaq = engineOn(await factory.make(), { jobs: [job] });
      await chokaq.start();
      await chokaq.enqueueMany(
        job,
        [1, 2, 3].map((n) => ({ payload: { n } })),
      );
      const [group] = await waitFor(async () => {
        const groups = await chokaq.dlq.groups();
        return groups[0]?.count === 3 ? groups : undefined;
      });
      const preview = await chokaq.bulk.preview({
        action: 'resurrect',
        target: { errorGroup: group?.fingerprint ?? '' },
      });
      expect(preview).toMatchObject({ action: 'resurrect', count: 3, notFound: [] });
      expect(preview.sample.map((j) => j.state)).toEqual(['dead', 'dead', 'dead']);
      // Nothing moved yet.
      expect((await chokaq.jobs.count({ state: 'dead' })).count).toBe(3);

      const wrong = `${preview.id}.not-the-secret`;
      await expect(chokaq.bulk.run(wrong, { actor: 'ana', reason: 'x' })).rejects.toMatchObject({
        code: 'CHOKAQ_BULK_CONFIRMATION',
      });
      await expect(chokaq.bulk.run(preview.token, { actor: 'ana' } as never)).rejects.toMatchObject(
        { code: 'CHOKAQ_INVALID_ARGUMENT', field: 'options.reason' },
      );

      broken = false;
      const started = await chokaq.bulk.run(preview.token, {
        actor: 'ana',
        reason: 'upstream is back',
      });
      expect(started).toMatchObject({ status: 'running', total: 3, actor: 'ana' });
      const done = await finished(chokaq, preview.id);
      expect(done).toMatchObject({ status: 'succeeded', applied: 3, skipped: 0, done: 3 });
      await waitFor(
        async () => (await chokaq.jobs.count({ state: 'succeeded', type: 'sync.v1' })).count === 3,
      );

      // A token runs once.
      await expect(
        chokaq.bulk.run(preview.token, { actor: 'ana', reason: 'again' }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_BULK_CONFIRMATION' });

      const audit = await chokaq.audit.list();
      const bulkEntries = audit.filter((e) => e.action.startsWith('bulk-resurrect'));
      expect(bulkEntries.map((e) => e.action)).toEqual(['bulk-resurrect', 'bulk-resurrect-start']);
      expect(bulkEntries[0]).toMatchObject({
        actor: 'ana',
        reason: 'upstream is back',
        outcome: { status: 'succeeded', total: 3, applied: 3, skipped: 0 },
      });
      expect(bulkEntries[0]?.target).toMatchObject({
        bulkActionId: preview.id,
        errorGroup: group?.fingerprint,
      });
    });

    it('selects what an action would take without recording anything', async () => {
      const job = defineJob<{ n: number }>({ type: 'select.v1', handle: () => undefined });
      const chokaq = engineOn(await factory.make(), { jobs: [job], worker: false });
      await chokaq.storage.open();
      const ids = await deadJobs(chokaq, job.type, 3);
      const audited = (await chokaq.audit.list()).length;
      const selection = await chokaq.bulk.select({
        action: 'resurrect',
        target: { ids: [...ids, 'no-such-id'] },
      });
      expect(selection).toMatchObject({ action: 'resurrect', count: 3, notFound: ['no-such-id'] });
      expect(selection.sample.map((job) => job.id).sort()).toEqual([...ids].sort());
      expect(await chokaq.bulk.list()).toEqual([]);
      expect(await chokaq.audit.list()).toHaveLength(audited);
      await expect(
        chokaq.bulk.select({ action: 'resurrect', target: {} as never }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_ARGUMENT' });
    });

    it('skips and reports jobs that changed between the preview and the run', async () => {
      const chokaq = engineOn(await factory.make(), { jobs: [], pipe: () => undefined });
      const ids = await deadJobs(chokaq, 'report.v1', 5);
      const preview = await chokaq.bulk.preview({ action: 'purge', target: { ids } });
      expect(preview.count).toBe(5);
      const [resurrected, edited] = ids;
      await chokaq.dlq.resurrect([resurrected ?? ''], { actor: 'bob' });
      // Pipe mode has no definition of the type: the edit says it stores the payload unchecked.
      expect(
        await chokaq.dlq.edit(edited ?? '', { payload: { n: 99 }, actor: 'bob', unchecked: true }),
      ).toBe(true);
      await chokaq.bulk.run(preview.token, { actor: 'ana', reason: 'clean up' });
      await chokaq.start();
      const done = await finished(chokaq, preview.id);
      expect(done).toMatchObject({ status: 'succeeded', total: 5, applied: 3, skipped: 2 });
      const skipped = await chokaq.bulk.skipped(preview.id);
      expect(skipped.map((s) => s.jobId).sort()).toEqual([resurrected, edited].sort());
      expect(skipped[0]?.note).toContain('since the preview');
      // The edited job is still in the DLQ with its edit; the other one left it.
      expect((await chokaq.getJob(edited ?? ''))?.where).toBe('dlq');
      expect((await chokaq.getJob(resurrected ?? ''))?.where).not.toBe('dlq');
      expect((await chokaq.jobs.count({ state: 'dead' })).count).toBe(1);
    });

    it('edits and resurrects: patches each payload, checks it against the schema, skips what fails', async () => {
      const job = defineJob({
        type: 'invoice.v1',
        queue: 'invoices',
        payload: z
          .object({ customer: z.string(), amount: z.number(), paid: z.number() })
          .refine((invoice) => invoice.paid <= invoice.amount, 'paid more than the amount'),
        handle() {
          throw new FatalError('bad amount');
        },
      });
      // This worker serves another queue, so the resurrected jobs stay pending to be looked at;
      // every worker also serves bulk actions.
      const chokaq = engineOn(await factory.make(), { jobs: [job], workerQueues: ['other'] });
      const delay = '1h';
      const good = await chokaq.enqueue(job, { customer: 'a', amount: 5, paid: 0 }, { delay });
      const bad = await chokaq.enqueue(job, { customer: 'b', amount: 70, paid: 60 }, { delay });
      await chokaq.cancel([good.id, bad.id]);
      // The patch fits the first job; the second has paid more than the patched amount.
      const preview = await chokaq.bulk.preview({
        action: 'edit-resurrect',
        target: { query: { type: 'invoice.v1' } },
        edit: { patch: { amount: 50, note: null }, priority: 77, tags: 'fixed' },
      });
      expect(preview.count).toBe(2);
      await chokaq.bulk.run(preview.token, { actor: 'ana', reason: 'amounts corrected' });
      await chokaq.start();
      const done = await finished(chokaq, preview.id);
      expect(done).toMatchObject({ status: 'succeeded', applied: 1, skipped: 1 });
      const [skip] = await chokaq.bulk.skipped(preview.id);
      expect(skip).toMatchObject({ jobId: bad.id });
      expect(skip?.note).toContain('CHOKAQ_PAYLOAD_INVALID');
      const moved = await chokaq.getJob(good.id);
      if (moved?.where !== 'hot') throw new Error(`expected ${good.id} hot, found ${moved?.where}`);
      expect(JSON.parse(moved.job.payload)).toEqual({ customer: 'a', amount: 50, paid: 0 });
      expect(moved.job).toMatchObject({ priority: 77, tags: 'fixed', lastModifiedBy: 'ana' });
    });

    it('skips and reports a scheduled job edited between the preview and the cancel', async () => {
      const chokaq = engineOn(await factory.make(), { jobs: [], pipe: () => undefined });
      const results = await chokaq.enqueueMany(
        'later.v1',
        [0, 1, 2].map((n) => ({ payload: { n }, delay: '1h' })),
      );
      const ids = results.map((r) => r.id);
      const preview = await chokaq.bulk.preview({ action: 'cancel', target: { ids } });
      expect(preview.count).toBe(3);
      const edited = ids[1] ?? '';
      expect(await chokaq.jobs.edit(edited, { priority: 5, actor: 'bob' })).toBe(true);
      await chokaq.bulk.run(preview.token, { actor: 'ana', reason: 'not needed' });
      await chokaq.start();
      const done = await finished(chokaq, preview.id);
      expect(done).toMatchObject({ status: 'succeeded', total: 3, applied: 2, skipped: 1 });
      const skipped = await chokaq.bulk.skipped(preview.id);
      expect(skipped.map((s) => s.jobId)).toEqual([edited]);
      expect(skipped[0]?.note).toContain('since the preview');
      const kept = await chokaq.getJob(edited);
      expect(kept?.where === 'hot' && kept.job).toMatchObject({ state: 'scheduled', priority: 5 });
      expect((await chokaq.jobs.count({ state: 'dead' })).count).toBe(2);
    });

    it('checks operator payloads where the type is known; refuses or skips them where it is not', async () => {
      const invoice = defineJob({
        type: 'invoice.v2',
        queue: 'invoices',
        payload: z.object({ customer: z.string(), amount: z.number() }),
        handle: () => undefined,
      });
      const store = await factory.make();
      const owner = engineOn(store, { jobs: [invoice], workerQueues: ['other'] });
      const delay = '1h';
      const a = await owner.enqueue(invoice, { customer: 'a', amount: 1 }, { delay });
      const b = await owner.enqueue(invoice, { customer: 'b', amount: 2 }, { delay });
      await owner.cancel([a.id, b.id]);
      const bad = { customer: 'a', amount: 'lots' };
      // Where the type is registered, every single call checks the payload before writing.
      await expect(owner.dlq.edit(a.id, { payload: bad })).rejects.toMatchObject({
        code: 'CHOKAQ_PAYLOAD_INVALID',
        field: 'edit.payload',
      });
      await expect(owner.dlq.resurrect([a.id, b.id], { payload: bad })).rejects.toMatchObject({
        code: 'CHOKAQ_PAYLOAD_INVALID',
        field: 'options.payload',
      });
      expect((await owner.jobs.count({ state: 'dead' })).count).toBe(2);
      // A bulk patch previewed here is run by a worker without the definition (another process).
      const preview = await owner.bulk.preview({
        action: 'edit-resurrect',
        target: { ids: [a.id, b.id] },
        edit: { patch: { amount: 9 } },
      });
      await owner.bulk.run(preview.token, { actor: 'ana', reason: 'fix amounts' });
      await owner.stop();

      const stranger = engineOn(await factory.reopen(store), {
        jobs: [],
        pipe: () => undefined,
        workerQueues: ['other'],
      });
      await stranger.start();
      const done = await finished(stranger, preview.id);
      expect(done).toMatchObject({ status: 'succeeded', applied: 0, skipped: 2 });
      const skips = await stranger.bulk.skipped(preview.id);
      expect(skips).toHaveLength(2);
      for (const skip of skips) expect(skip.note).toMatch(/CHOKAQ_UNKNOWN_JOB_TYPE.*invoice\.v2/);
      const kept = await stranger.getJob(a.id);
      expect(kept?.where === 'dlq' && JSON.parse(kept.job.payload)).toEqual({
        customer: 'a',
        amount: 1,
      });
      // Without the definition, a payload is refused unless the caller says it is unchecked.
      const unknown = { code: 'CHOKAQ_UNKNOWN_JOB_TYPE' };
      await expect(
        stranger.bulk.preview({
          action: 'edit-resurrect',
          target: { ids: [a.id] },
          edit: { patch: { amount: 9 } },
        }),
      ).rejects.toMatchObject({ ...unknown, field: 'request.edit.patch' });
      await expect(stranger.dlq.edit(a.id, { payload: bad })).rejects.toMatchObject({
        ...unknown,
        field: 'edit.payload',
      });
      await expect(stranger.dlq.resurrect([a.id], { payload: bad })).rejects.toMatchObject({
        ...unknown,
        field: 'options.payload',
      });
      expect((await stranger.jobs.count({ state: 'dead' })).count).toBe(2);
      const uncheckedPreview = await stranger.bulk.preview({
        action: 'edit-resurrect',
        target: { ids: [a.id] },
        edit: { patch: { amount: 9 }, unchecked: true },
      });
      await stranger.bulk.run(uncheckedPreview.token, { actor: 'ana', reason: 'unchecked' });
      expect(await finished(stranger, uncheckedPreview.id)).toMatchObject({ applied: 1 });
      const moved = await stranger.getJob(a.id);
      expect(moved?.where === 'hot' && JSON.parse(moved.job.payload)).toEqual({
        customer: 'a',
        amount: 9,
      });
      expect(await stranger.dlq.resurrect([b.id], { payload: bad, unchecked: true })).toEqual([
        b.id,
      ]);
      await expect(
        stranger.dlq.edit(b.id, { payload: bad, unchecked: 'yes' as never }),
      ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'edit.unchecked' });
    });

    it('stops between batches when cancelled, leaving no job half-moved', async () => {
      const chokaq = engineOn(await factory.make(), { jobs: [], pipe: () => undefined });
      const total = 2600;
      await deadJobs(chokaq, 'bulk.test.v1', total);
      const preview = await chokaq.bulk.preview({
        action: 'purge',
        target: { query: { type: 'bulk.test.v1' } },
      });
      expect(preview.count).toBe(total);
      let cancelled = false;
      chokaq.on('job:progress', (event) => {
        if (event.type === 'chokaq.bulk.v1' && !cancelled) {
          cancelled = true;
          void chokaq.bulk.cancel(preview.id, { actor: 'carol' });
        }
      });
      await chokaq.bulk.run(preview.token, { actor: 'ana', reason: 'purge old' });
      await chokaq.start();
      const done = await finished(chokaq, preview.id);
      expect(done.status).toBe('cancelled');
      expect(done.cancelRequestedBy).toBe('carol');
      // Whole batches only: what was applied is gone, everything else is untouched.
      expect(done.applied % 500).toBe(0);
      expect(done.applied).toBeLessThan(total);
      expect((await chokaq.jobs.count({ state: 'dead' })).count).toBe(total - done.applied);
      // The audit entry is written after the run's final status: wait for it, then check it.
      const entry = await waitFor(
        async () => (await chokaq.audit.list()).find((e) => e.action === 'bulk-purge'),
        { message: 'the bulk purge audit entry' },
      );
      expect(entry).toMatchObject({ actor: 'carol', outcome: { status: 'cancelled' } });
    });

    it('refuses bad requests with coded errors before reading anything', async () => {
      const chokaq = engineOn(await factory.make(), { jobs: [], pipe: () => undefined });
      const cases: [unknown, string, string][] = [
        [
          { action: 'explode', target: { ids: ['a'] } },
          'CHOKAQ_INVALID_ARGUMENT',
          'request.action',
        ],
        [{ action: 'purge', target: {} }, 'CHOKAQ_INVALID_ARGUMENT', 'request.target'],
        [
          { action: 'purge', target: { ids: ['a'], errorGroup: 'x' } },
          'CHOKAQ_INVALID_ARGUMENT',
          'request.target',
        ],
        [
          { action: 'purge', target: { query: { state: 'pending' } } },
          'CHOKAQ_INVALID_FILTER',
          'request.target.query.state[0]',
        ],
        [
          { action: 'purge', target: { query: { limit: 5 } } },
          'CHOKAQ_INVALID_FILTER',
          'request.target.query.limit',
        ],
        [
          { action: 'cancel', target: { errorGroup: 'abc' } },
          'CHOKAQ_INVALID_ARGUMENT',
          'request.target.errorGroup',
        ],
        [
          { action: 'resurrect', target: { ids: ['a'] }, edit: { priority: 1 } },
          'CHOKAQ_INVALID_ARGUMENT',
          'request.edit',
        ],
        [
          { action: 'edit-resurrect', target: { ids: ['a'] }, edit: {} },
          'CHOKAQ_INVALID_ARGUMENT',
          'request.edit',
        ],
        [
          { action: 'edit-resurrect', target: { ids: ['a'] }, edit: { priority: 1.5 } },
          'CHOKAQ_INVALID_PRIORITY',
          'request.edit.priority',
        ],
        [
          { action: 'purge', target: { query: { reason: 'Nope' } } },
          'CHOKAQ_INVALID_FILTER',
          'request.target.query.reason[0]',
        ],
        // Values that would widen the selection (everything on one store, nothing on another).
        [
          { action: 'purge', target: { query: { errorText: '!!!' } } },
          'CHOKAQ_INVALID_FILTER',
          'request.target.query.errorText',
        ],
        [
          { action: 'purge', target: { query: { tags: [] } } },
          'CHOKAQ_INVALID_FILTER',
          'request.target.query.tags',
        ],
        [
          { action: 'cancel', target: { query: { queue: [] } } },
          'CHOKAQ_INVALID_FILTER',
          'request.target.query.queue',
        ],
      ];
      for (const [request, code, field] of cases) {
        await expect(
          chokaq.bulk.preview(request as never),
          JSON.stringify(request),
        ).rejects.toMatchObject({
          code,
          field,
        });
      }
      await expect(chokaq.bulk.run('garbage', { actor: 'a', reason: 'b' })).rejects.toMatchObject({
        code: 'CHOKAQ_BULK_CONFIRMATION',
        field: 'token',
      });
      expect(await chokaq.bulk.list()).toEqual([]);
    });

    it('records single operator actions with actor and reason, and emits operator:action', async () => {
      const chokaq = engineOn(await factory.make(), { jobs: [], pipe: () => undefined });
      const seen: string[] = [];
      chokaq.on('operator:action', (entry) => seen.push(`${entry.action}:${entry.actor}`));
      const [id] = await deadJobs(chokaq, 'audit.v1', 1);
      await chokaq.dlq.resurrect([id ?? ''], { actor: 'dan', reason: 'retry it' });
      await chokaq.queues.pause('default', { actor: 'erin', reason: 'deploy' });
      await chokaq.queues.setZombieTimeout('default', '90s', { actor: 'erin' });
      const info = (await chokaq.queues.list()).find((q) => q.name === 'default');
      expect(info).toMatchObject({ paused: true, zombieTimeoutSeconds: 90 });
      await chokaq.cancel([id ?? ''], { actor: 'dan' });
      expect(await chokaq.dlq.purge([id ?? ''], { actor: 'fay', reason: 'obsolete' })).toBe(1);
      const entries = await chokaq.audit.list();
      expect(entries.map((e) => `${e.action}:${e.actor}`)).toEqual([
        'purge:fay',
        'cancel:dan',
        'queue-update:erin',
        'queue-update:erin',
        'resurrect:dan',
        'cancel:setup',
      ]);
      expect(seen).toEqual(entries.map((e) => `${e.action}:${e.actor}`).reverse());
      expect(entries[0]).toMatchObject({ reason: 'obsolete', target: { ids: [id] } });
      const older = await chokaq.audit.list({ before: entries[1]?.id ?? '', limit: 2 });
      expect(older.map((e) => e.id)).toEqual([entries[2]?.id, entries[3]?.id]);
      await expect(
        chokaq.queues.setZombieTimeout('default', '1.5s', { actor: 'erin' }),
      ).rejects.toMatchObject({ field: 'timeout' });
    });

    it('records resume, setMaxWorkers, setActive and a pending edit with runAt, and emits each', async () => {
      const chokaq = engineOn(await factory.make(), { jobs: [], pipe: () => undefined });
      const seen: string[] = [];
      chokaq.on('operator:action', (entry) => seen.push(`${entry.action}:${entry.actor}`));
      await chokaq.queues.pause('mail', { actor: 'gus' });
      const { id } = await chokaq.enqueue('mail.v1', { to: 'a' }, { queue: 'mail' });
      await chokaq.queues.resume('mail', { actor: 'gus', reason: 'deploy done' });
      await chokaq.queues.setMaxWorkers('mail', 3, { actor: 'hana' });
      await chokaq.queues.setActive('mail', false, { actor: 'ivo', reason: 'hide it' });
      const runAt = new Date(Date.now() + 3_600_000);
      expect(await chokaq.jobs.edit(id, { runAt, actor: 'jo', reason: 'later' })).toBe(true);
      const info = (await chokaq.queues.list()).find((q) => q.name === 'mail');
      expect(info).toMatchObject({ paused: false, active: false, maxWorkers: 3 });
      const edited = await chokaq.getJob(id);
      if (edited?.where !== 'hot') throw new Error('the edited job left the hot table');
      expect(Math.abs(edited.job.runAt.getTime() - runAt.getTime())).toBeLessThan(2000);
      expect(edited.job.lastModifiedBy).toBe('jo');

      const entries = (await chokaq.audit.list()).slice(0, 4).reverse();
      expect(entries.map((e) => `${e.action}:${e.actor}`)).toEqual([
        'queue-update:gus',
        'queue-update:hana',
        'queue-update:ivo',
        'edit:jo',
      ]);
      expect(entries[0]).toMatchObject({
        reason: 'deploy done',
        target: { queue: 'mail' },
        outcome: { paused: false },
      });
      expect(entries[1]).toMatchObject({ outcome: { maxWorkers: 3 } });
      expect(entries[2]).toMatchObject({ reason: 'hide it', outcome: { active: false } });
      expect(entries[3]).toMatchObject({
        reason: 'later',
        target: { id },
        outcome: { fields: ['runAt'], runAt: runAt.toISOString() },
      });
      expect(seen.slice(-4)).toEqual(entries.map((e) => `${e.action}:${e.actor}`));
    });
  });
}
