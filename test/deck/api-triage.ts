/**
 * The Deck's triage calls on each store: a succeeded job re-run from the archive (a copy under a
 * new id, audited) and a schedule triggered now (audited), with their coded errors.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeck } from '../../src/deck/index.js';
import {
  ChokaQ,
  defineJob,
  FatalError,
  silentLogger,
  type RerunResult,
  type TriggerResult,
} from '../../src/index.js';
import type { Store } from '../../src/storage/store.js';
import { DeckClient, serveDeck, type DeckServerHandle } from './client.js';
import { waitForJob } from '../../src/testing/index.js';

const READ_TOKEN = 'triage-read-token-0123';
const OPERATE_TOKEN = 'triage-operate-token-0123';

const report = defineJob({
  type: 'triage.report.v1',
  queue: 'reports',
  handle: (payload: { month: string }) => Promise.resolve({ month: payload.month }),
});
const doomed = defineJob({
  type: 'triage.doomed.v1',
  queue: 'reports',
  handle: () => Promise.reject(new FatalError('never')),
});

/** The triage API suite on the store `makeStorage` opens. */
export function describeTriageApi(
  name: string,
  makeStorage: () => Promise<{ storage: Store; cleanup: () => Promise<void> }>,
): void {
  describe(`The Deck's triage API (${name})`, () => {
    let chokaq: ChokaQ;
    let cleanup: () => Promise<void>;
    let server: DeckServerHandle;
    let api: DeckClient;
    let reader: DeckClient;

    beforeEach(async () => {
      const made = await makeStorage();
      cleanup = made.cleanup;
      chokaq = new ChokaQ({
        storage: made.storage,
        jobs: [report, doomed],
        logger: silentLogger,
        pollInterval: 50,
      });
      await chokaq.start();
      const deck = createDeck({
        chokaq,
        tokens: [
          { token: READ_TOKEN, access: 'read' },
          { token: OPERATE_TOKEN, access: 'operate', actor: 'triage-op' },
        ],
      });
      server = await serveDeck(deck);
      api = new DeckClient(`${server.origin}/`, { authorization: `Bearer ${OPERATE_TOKEN}` });
      reader = new DeckClient(`${server.origin}/`, { authorization: `Bearer ${READ_TOKEN}` });
    });

    afterEach(async () => {
      await server.close();
      await chokaq.stop();
      await cleanup();
    });

    it('re-runs a succeeded job from the archive as a copy with a new id, audited', async () => {
      const done = await chokaq.enqueue(report, { month: '2026-11' }, { tags: 'monthly' });
      await waitForJob(chokaq, done.id, 'succeeded');
      const res = await api.post<RerunResult>(
        `api/jobs/${done.id}/rerun`,
        { reason: 'the report template changed' },
        { csrf: false },
      );
      expect(res.status).toBe(200);
      expect(res.body.from).toBe(done.id);
      expect(res.body.id).not.toBe(done.id);
      await waitForJob(chokaq, res.body.id, 'succeeded');
      const copy = (await chokaq.jobs.get(res.body.id))!.found.job;
      expect(copy).toMatchObject({
        type: 'triage.report.v1',
        queue: 'reports',
        payload: JSON.stringify({ month: '2026-11' }),
        tags: 'monthly',
        createdBy: 'triage-op',
      });
      // The original stays in the archive as it was.
      expect((await chokaq.jobs.get(done.id))?.found.where).toBe('archive');
      expect((await chokaq.audit.list())[0]).toMatchObject({
        action: 'rerun',
        actor: 'triage-op',
        reason: 'the report template changed',
        target: { id: done.id },
        outcome: { from: done.id, id: res.body.id },
      });
    });

    it('re-runs only succeeded jobs, and refuses bad input, a reader and a foreign body', async () => {
      const dead = await chokaq.enqueue(doomed, {});
      await waitForJob(chokaq, dead.id, 'dead');
      const before = (await chokaq.jobs.count()).count;
      const notArchived = await api.post(`api/jobs/${dead.id}/rerun`, {}, { csrf: false });
      expect(notArchived.status).toBe(404);
      expect(notArchived.error?.code).toBe('CHOKAQ_DECK_NOT_FOUND');
      const malformed = await api.post(`api/jobs/${'x'.repeat(300)}/rerun`, {}, { csrf: false });
      expect(malformed.status).toBe(400);
      expect(malformed.error).toMatchObject({ code: 'CHOKAQ_INVALID_JOB_ID', field: 'id' });
      const extra = await api.post(`api/jobs/${dead.id}/rerun`, { payload: {} }, { csrf: false });
      expect(extra.error).toMatchObject({ code: 'CHOKAQ_UNKNOWN_OPTION', field: 'body.payload' });
      const read = await reader.post(`api/jobs/${dead.id}/rerun`, {}, { csrf: false });
      expect(read.status).toBe(403);
      expect((await chokaq.jobs.count()).count).toBe(before);
      await expect(chokaq.jobs.rerun(dead.id, { reason: '' })).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
        field: 'options.reason',
      });
      expect(await chokaq.jobs.rerun(dead.id)).toBeNull();
    });

    it('triggers a schedule now, paused or not, audited; an unknown one is 404', async () => {
      await chokaq.schedules.add({
        name: 'monthly-report',
        job: report,
        cron: '0 6 1 * *',
        payload: { month: 'current' },
      });
      await chokaq.schedules.pause('monthly-report');
      const res = await api.post<TriggerResult>(
        'api/schedules/monthly-report/trigger',
        { reason: 'the finance team asked' },
        { csrf: false },
      );
      expect(res.status).toBe(200);
      await waitForJob(chokaq, res.body.jobId, 'succeeded');
      expect((await chokaq.jobs.get(res.body.jobId))?.found.job.payload).toBe(
        JSON.stringify({ month: 'current' }),
      );
      expect((await chokaq.schedules.get('monthly-report'))?.paused).toBe(true);
      expect((await chokaq.audit.list())[0]).toMatchObject({
        action: 'schedule-trigger',
        actor: 'triage-op',
        reason: 'the finance team asked',
        target: { schedule: 'monthly-report' },
      });
      const unknown = await api.post('api/schedules/nope/trigger', {}, { csrf: false });
      expect(unknown.status).toBe(404);
      expect(unknown.error).toMatchObject({ code: 'CHOKAQ_SCHEDULE_NOT_FOUND', field: 'name' });
      const read = await reader.post('api/schedules/monthly-report/trigger', {}, { csrf: false });
      expect(read.status).toBe(403);
    });
  });
}
