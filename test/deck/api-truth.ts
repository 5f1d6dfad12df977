/**
 * The Deck's repairs and controls where it runs without the job definitions (as `chokaq deck`
 * without `--module` does: no job of the user's, a worker serving only the operator queue), on
 * each store: edits and fix-and-replay of a type whose schema is unknown, stored checked as JSON
 * only by an explicit choice the audit trail records; errors that name what the operator sees.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeck } from '../../src/deck/index.js';
import {
  ChokaQ,
  silentLogger,
  type AuditEntry,
  type BulkAction,
  type BulkPreview,
  type ErrorGroup,
  type StatusReport,
  type SystemHealth,
} from '../../src/index.js';
import type { Store } from '../../src/storage/store.js';
import { newJob } from '../conformance/helpers.js';
import { waitFor } from '../helpers/wait.js';
import { DeckClient, serveDeck, statusFor, type DeckServerHandle } from './client.js';

const TOKEN = 'truth-operate-token-0123';
/** A type no process here defines. */
const STRANGER = 'billing.invoice.v3';

/** The suite on the store `makeStorage` opens. */
export function describeDeckTruth(
  name: string,
  makeStorage: () => Promise<{ storage: Store; cleanup: () => Promise<void> }>,
): void {
  describe(`The Deck without the job definitions (${name})`, () => {
    let chokaq: ChokaQ;
    let cleanup: () => Promise<void>;
    let server: DeckServerHandle;
    let api: DeckClient;
    let storage: Store;

    beforeEach(async () => {
      const made = await makeStorage();
      cleanup = made.cleanup;
      storage = made.storage;
      // What `chokaq deck` opens: no definitions, a worker for the operator queue only.
      chokaq = new ChokaQ({
        storage: made.storage,
        jobs: [],
        workerQueues: [],
        logger: silentLogger,
        pollInterval: 50,
      });
      await chokaq.start();
      const deck = createDeck({
        chokaq,
        tokens: [{ token: TOKEN, access: 'operate', actor: 'olga' }],
      });
      server = await serveDeck(deck);
      api = new DeckClient(`${server.origin}/`, { authorization: `Bearer ${TOKEN}` });
    });

    afterEach(async () => {
      await server.close();
      await chokaq.stop();
      await cleanup();
    });

    /** `n` jobs of the stranger type due in an hour, as another service enqueued them. */
    async function strangers(n: number): Promise<string[]> {
      const jobs = Array.from({ length: n }, (_, k) =>
        newJob({
          type: STRANGER,
          queue: 'billing',
          payload: JSON.stringify({ n: k }),
          delayMs: 3_600_000,
        }),
      );
      await storage.jobs.enqueue(jobs);
      return jobs.map((job) => job.id);
    }

    /** `n` DLQ jobs of the stranger type (cancelled while pending: no worker needed). */
    async function deadStrangers(n: number): Promise<string[]> {
      const ids = await strangers(n);
      await chokaq.cancel(ids, { actor: 'setup' });
      return ids;
    }

    it('edits a job of an unknown type only when told to check it as JSON only, and audits that choice', async () => {
      const [id] = await deadStrangers(1);
      const refused = await api.post(`api/dlq/${id}/edit`, { payload: { n: 7 } }, { csrf: false });
      expect(refused.status).toBe(400);
      expect(refused.error?.code).toBe('CHOKAQ_UNKNOWN_JOB_TYPE');
      // Speaks of what the operator sees and types, not of API paths.
      expect(refused.error?.message).toContain(`'${STRANGER}'`);
      expect(refused.error?.message).toContain('Store a changed payload checked as JSON only');
      expect(refused.error?.message).toContain('--module');
      expect(refused.error?.message).not.toContain('request.edit');

      const edited = await api.post<{ edited: boolean }>(
        `api/dlq/${id}/edit`,
        { payload: { n: 7 }, unchecked: true, reason: 'schema lives in billing' },
        { csrf: false },
      );
      expect(edited.body).toEqual({ edited: true });
      expect(JSON.parse((await chokaq.jobs.get(id!))!.found.job.payload)).toEqual({ n: 7 });
      expect((await chokaq.audit.list())[0]).toMatchObject({
        action: 'dlq-edit',
        actor: 'olga',
        outcome: { fields: ['payload'], unchecked: true },
      });

      // A pending job of the type, the same.
      const [later] = await strangers(1);
      const pending = await api.post<{ edited: boolean }>(
        `api/jobs/${later}/edit`,
        { payload: { n: 2 }, unchecked: true },
        { csrf: false },
      );
      expect(pending.body).toEqual({ edited: true });
      expect((await chokaq.audit.list())[0]).toMatchObject({
        action: 'edit',
        outcome: { fields: ['payload'], unchecked: true },
      });
    });

    it('fixes and resurrects a dead job in one request', async () => {
      const [id] = await deadStrangers(1);
      const fixed = await api.post<{ edited: boolean; resurrected: boolean }>(
        `api/dlq/${id}/fix`,
        { payload: { n: 8 }, unchecked: true, tags: 'fixed', reason: 'bad amount' },
        { csrf: false },
      );
      expect(fixed.body).toEqual({ edited: true, resurrected: true });
      const { found } = (await chokaq.jobs.get(id!))!;
      expect(found.where).toBe('hot');
      expect(found.job.tags).toBe('fixed');
      expect(JSON.parse(found.job.payload)).toEqual({ n: 8 });
      const [resurrect, edit] = await chokaq.audit.list({ limit: 2 });
      expect(resurrect).toMatchObject({ action: 'resurrect', reason: 'bad amount' });
      expect(edit).toMatchObject({ action: 'dlq-edit', outcome: { unchecked: true } });
      // A job no longer in the DLQ: nothing happens.
      const again = await api.post(`api/dlq/${id}/fix`, { payload: { n: 9 } }, { csrf: false });
      expect(again.body).toEqual({ edited: false, resurrected: false });
    });

    it('fixes and replays an error group of an unknown type checked as JSON only, audited', async () => {
      await deadStrangers(3);
      const [group] = (await api.get<ErrorGroup[]>('api/dlq/groups')).body;
      const request = {
        action: 'edit-resurrect',
        target: { errorGroup: group!.fingerprint },
        edit: { patch: { fixed: true } },
      };
      const refused = await api.post('api/bulk/preview', request, { csrf: false });
      expect(refused.error?.code).toBe('CHOKAQ_UNKNOWN_JOB_TYPE');
      expect(refused.error?.message).toContain('Apply the patch checked as JSON only');
      expect(refused.error?.message).not.toContain('request.edit');
      const preview = await api.post<BulkPreview>(
        'api/bulk/preview',
        { ...request, edit: { patch: { fixed: true }, unchecked: true } },
        { csrf: false },
      );
      expect(preview.body.count).toBe(3);
      await api.post(
        'api/bulk/run',
        { token: preview.body.token, reason: 'replay' },
        { csrf: false },
      );
      await waitFor(
        async () =>
          (await api.get<{ action: BulkAction }>(`api/bulk/${preview.body.id}`)).body.action
            .status === 'succeeded',
        { timeoutMs: 20_000, message: 'the replay' },
      );
      const entries = (await api.get<AuditEntry[]>('api/audit')).body;
      expect(entries.find((e) => e.action === 'bulk-edit-resurrect-start')).toMatchObject({
        outcome: { total: 3, unchecked: true },
      });
      expect((await chokaq.jobs.count({ state: 'pending' })).count).toBe(3);
    });
    it("refuses to pause or deactivate a queue of ChokaQ's own, with a coded error; changes nothing", async () => {
      for (const [path, body] of [
        ['api/queues/chokaq.operator/pause', {}],
        ['api/queues/chokaq.operator/update', { active: false }],
        ['api/queues/chokaq.anything/pause', { reason: 'tidy' }],
      ] as const) {
        const refused = await api.post(path, body, { csrf: false });
        expect(refused.status, path).toBe(400);
        expect(refused.error, path).toMatchObject({
          code: 'CHOKAQ_INTERNAL_QUEUE',
          field: 'queue',
        });
      }
      await expect(chokaq.queues.setActive('chokaq.operator', false)).rejects.toMatchObject({
        code: 'CHOKAQ_INTERNAL_QUEUE',
      });
      const operator = (await chokaq.queues.list()).find((q) => q.name === 'chokaq.operator');
      expect(operator === undefined || (!operator.paused && operator.active)).toBe(true);
      expect(await chokaq.audit.list()).toEqual([]);
      // Its limits may change, and a user's queue may be paused, with the reason kept.
      const paused = await api.post(
        'api/queues/billing/pause',
        { reason: 'invoice bug' },
        { csrf: false },
      );
      expect(paused.status).toBe(200);
      expect((await chokaq.audit.list())[0]).toMatchObject({
        reason: 'invoice bug',
        outcome: { paused: true },
      });
    });
    it("tells the system's health: every worker with its own check, lag by the thresholds, due work no live worker runs", async () => {
      const ids = Array.from({ length: 4 }, () =>
        newJob({ type: STRANGER, queue: 'billing', payload: '{}', delayMs: 0 }),
      );
      await storage.jobs.enqueue(ids);
      const health = await waitFor(
        async () => {
          const h = (await api.get<SystemHealth>('api/system')).body;
          return h.workers.length === 1 && h.stranded.length === 1 ? h : undefined;
        },
        { timeoutMs: 15_000, message: 'the worker row and the stranded jobs' },
      );
      expect(health.stranded[0]).toMatchObject({
        queue: 'billing',
        type: STRANGER,
        due: 4,
        reason: 'no-worker-serves-queue',
      });
      expect(health.status).not.toBe('ok');
      expect(health.workers[0]).toMatchObject({
        status: 'ok',
        id: chokaq.configuration().workerId,
      });
      expect(health.thresholds.lag).toEqual({ degradedMs: 30_000, unhealthyMs: 300_000 });
      expect(health.queues.find((q) => q.queue === 'billing')).toMatchObject({
        due: 4,
        degradedMs: 30_000,
        unhealthyMs: 300_000,
      });
      // The worker row says what it runs: only the operator queue, only the engine's own type.
      const [presence] = (await chokaq.status()).workers;
      expect(presence?.queues).toEqual(['chokaq.operator']);
      expect(presence?.types).toEqual(['chokaq.bulk.v1']);
      expect(presence?.health?.status).toBe('ok');
      // And the lag thresholds it runs with, by which any process judges its queues.
      expect(presence?.lag).toEqual({ degradedMs: 30_000, unhealthyMs: 300_000, queues: {} });
    });

    it('shows the lifetime totals of every queue in the status', async () => {
      await deadStrangers(2);
      const status = (await api.get<StatusReport>('api/status')).body;
      const billing = status.queues.find((q) => q.queue === 'billing');
      expect(billing).toMatchObject({ failedTotal: 2, succeededTotal: 0 });
    });
    it('answers a spent sign-in link with a page saying how to get a new one', async () => {
      const deck = createDeck({ chokaq, signInHelp: 'run ops/new-link.sh' });
      const other = await serveDeck(deck);
      try {
        const link = deck.signInLink({ actor: 'ines' });
        const browser = new DeckClient(`${other.origin}/`);
        expect((await browser.request(link)).status).toBe(303);
        const again = await new DeckClient(`${other.origin}/`).request(link);
        expect(again.status).toBe(401);
        expect(again.headers.get('content-type')).toBe('text/html; charset=utf-8');
        const html = await again.text();
        expect(html).toContain('This sign-in link no longer works');
        expect(html).toContain('run ops/new-link.sh');
        expect(html).not.toMatch(/<script|style=/);
      } finally {
        await other.close();
      }
    });

    it('gives anonymous read only for its host names (DNS rebinding), whatever the credentials', async () => {
      const deck = createDeck({
        chokaq,
        anonymous: 'read',
        hosts: ['localhost', '127.0.0.1'],
        tokens: [{ token: TOKEN, access: 'operate' }],
      });
      const other = await serveDeck(deck);
      const port = Number(new URL(other.origin).port);
      try {
        expect(await statusFor(`127.0.0.1:${port}`, port)).toEqual({ status: 200 });
        expect(await statusFor(`LOCALHOST:${port}`, port)).toEqual({ status: 200 });
        expect(await statusFor(`rebind.attacker.example:${port}`, port)).toEqual({
          status: 403,
          code: 'CHOKAQ_DECK_HOST',
        });
        // A token still works by any name (a proxy in front may rename the host).
        expect(await statusFor(`rebind.attacker.example:${port}`, port, `Bearer ${TOKEN}`)).toEqual(
          { status: 200 },
        );
      } finally {
        await other.close();
      }
      expect(() => createDeck({ chokaq, hosts: 'localhost' as never })).toThrow(
        expect.objectContaining({ code: 'CHOKAQ_INVALID_CONFIG', field: 'deck.hosts' }),
      );
    });
  });
}
