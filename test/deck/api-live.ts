/**
 * The Deck's live controls through its HTTP API, on each store (SPEC F58, F139, F140): a live
 * worker's concurrency, a job type's retry settings and the retention purge now, each audited
 * with the caller and the reason; bad input answered with the coded error naming the field, a
 * reader refused, and ChokaQ's own job type left alone. The Deck runs in the worker's process,
 * as an app mounts it (`test/engine/cluster-events.ts` covers the change of another process).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeck } from '../../src/deck/index.js';
import {
  ChokaQ,
  defineJob,
  silentLogger,
  type RetentionEntry,
  type RetentionPurge,
} from '../../src/index.js';
import type { Store } from '../../src/storage/store.js';
import { waitFor } from '../helpers/wait.js';
import { DeckClient, serveDeck, type DeckServerHandle } from './client.js';
import { waitForJob } from '../../src/testing/index.js';

const OPERATE_TOKEN = 'live-operate-token-01234';
const READ_TOKEN = 'live-read-token-0123456';

/** Fails every run with an error worth retrying: five runs in all, unless told otherwise. */
const flaky = defineJob({
  type: 'live.flaky.v1',
  queue: 'live',
  retry: { maxAttempts: 5, baseDelay: '1m', jitter: 0 },
  handle: () => Promise.reject(new Error('upstream 503')),
});

/** Succeeds at once; its queue keeps succeeded jobs one second. */
const receipt = defineJob({ type: 'live.receipt.v1', queue: 'receipts', handle: () => undefined });

/** The live-controls suite on the store `makeStorage` opens. */
export function describeLiveControlsApi(
  name: string,
  makeStorage: () => Promise<{ storage: Store; cleanup: () => Promise<void> }>,
): void {
  describe(`The Deck's live controls (${name})`, () => {
    let chokaq: ChokaQ;
    let storage: Store;
    let cleanup: () => Promise<void>;
    let server: DeckServerHandle;
    let api: DeckClient;
    let reader: DeckClient;

    beforeEach(async () => {
      const made = await makeStorage();
      ({ storage, cleanup } = made);
      chokaq = new ChokaQ({
        storage,
        jobs: [flaky, receipt],
        concurrency: 4,
        pollInterval: 50,
        // No background purge: only the purge asked for deletes; receipts age out after 1 s.
        retention: false,
        queues: { receipts: { retention: { archive: '1s' } } },
        logger: silentLogger,
      });
      await chokaq.start();
      const deck = createDeck({
        chokaq,
        tokens: [
          { token: OPERATE_TOKEN, access: 'operate', actor: 'olga' },
          { token: READ_TOKEN, access: 'read' },
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

    /** This process's worker id, once its workers row is written. */
    async function liveWorker(): Promise<string> {
      const id = chokaq.configuration().workerId;
      await waitFor(async () => (await chokaq.status()).workers.some((w) => w.id === id), {
        message: 'the workers row',
      });
      return id;
    }

    it("sets a live worker's concurrency, audited with the caller and the reason; refuses bad input by the field", async () => {
      const id = await liveWorker();
      const path = `api/workers/${encodeURIComponent(id)}/concurrency`;
      expect((await reader.post(path, { concurrency: 6 }, { csrf: false })).status).toBe(403);
      for (const [body, field] of [
        [{ concurrency: 0 }, 'concurrency'],
        [{ concurrency: 2.5 }, 'concurrency'],
        [{ concurrency: '6' }, 'concurrency'],
        [{ concurrency: 6, reason: '' }, 'options.reason'],
      ] as const) {
        const refused = await api.post(path, body, { csrf: false });
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.error, JSON.stringify(body)).toMatchObject({
          code: 'CHOKAQ_INVALID_ARGUMENT',
          field,
        });
      }
      const stranger = await api.post(
        'api/workers/nobody/concurrency',
        { concurrency: 6 },
        { csrf: false },
      );
      expect(stranger.error).toMatchObject({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'workerId' });
      expect(chokaq.configuration().concurrency).toBe(4);
      expect(await chokaq.audit.list()).toEqual([]);

      const set = await api.post(path, { concurrency: 6, reason: 'backlog' }, { csrf: false });
      expect(set).toMatchObject({ status: 200, body: { workerId: id, concurrency: 6 } });
      expect(chokaq.configuration().concurrency).toBe(6);
      expect((await chokaq.audit.list())[0]).toMatchObject({
        action: 'worker-concurrency',
        actor: 'olga',
        reason: 'backlog',
        target: { workerId: id },
        outcome: { concurrency: 6, before: 4 },
      });
    });

    it("changes a job type's retries where it runs: the next failure is its last; ChokaQ's own type is refused", async () => {
      await liveWorker();
      for (const [path, body, code, field] of [
        [
          'api/retry/live.flaky.v1',
          { maxAttempts: 0 },
          'CHOKAQ_INVALID_CONFIG',
          'retry.maxAttempts',
        ],
        ['api/retry/live.flaky.v1', { tries: 1 }, 'CHOKAQ_UNKNOWN_OPTION', 'body.tries'],
        ['api/retry/nobody.runs.v1', { maxAttempts: 1 }, 'CHOKAQ_UNKNOWN_JOB_TYPE', 'type'],
        ['api/retry/chokaq.bulk.v1', { maxAttempts: 1 }, 'CHOKAQ_INVALID_ARGUMENT', 'type'],
      ] as const) {
        const refused = await api.post(path, body, { csrf: false });
        expect(refused.status, path).toBe(400);
        expect(refused.error, path).toMatchObject({ code, field });
      }
      const own = await api.post('api/retry/chokaq.bulk.v1', { maxAttempts: 1 }, { csrf: false });
      expect(own.error?.message).toContain("ChokaQ's own");
      expect(await chokaq.audit.list()).toEqual([]);

      const changed = await api.post(
        'api/retry/live.flaky.v1',
        { maxAttempts: 1, reason: 'upstream is down for the day' },
        { csrf: false },
      );
      expect(changed).toMatchObject({
        status: 200,
        body: { type: 'live.flaky.v1', retry: { maxAttempts: 1 } },
      });
      expect((await chokaq.audit.list())[0]).toMatchObject({
        action: 'retry-update',
        actor: 'olga',
        reason: 'upstream is down for the day',
        target: { type: 'live.flaky.v1' },
        outcome: { retry: { maxAttempts: 1 } },
      });
      // Five runs before the change; one now: the first failure sends it to the DLQ.
      const { id } = await chokaq.enqueue(flaky, undefined);
      const dead = await waitForJob(chokaq, id, 'dead', { timeoutMs: 15_000 });
      expect(dead.attempts).toBe(1);
    });

    it('previews and purges now what retention says is old enough, audited; bad ages change nothing', async () => {
      await chokaq.enqueueMany(
        receipt,
        Array.from({ length: 3 }, () => ({ payload: undefined })),
      );
      await waitFor(async () => (await chokaq.jobs.count({ state: 'succeeded' })).count === 3, {
        message: 'three archived receipts',
      });
      // Older than the queue's one second by the store's clock.
      const until = (await storage.cluster.now()).getTime() + 1100;
      await waitFor(async () => (await storage.cluster.now()).getTime() > until, {
        message: '1.1 s of store time',
      });
      const receipts = (entries: RetentionEntry[]) =>
        entries.find((e) => e.table === 'archive' && e.queue === 'receipts');

      const preview = await reader.get<RetentionEntry[]>('api/retention');
      expect(receipts(preview.body)).toEqual({
        table: 'archive',
        queue: 'receipts',
        olderThanMs: 1000,
        rows: 3,
      });
      expect((await reader.post('api/retention/purge', {}, { csrf: false })).status).toBe(403);
      const bad = await api.post(
        'api/retention/purge',
        { ages: { archive: 'soon' } },
        { csrf: false },
      );
      expect(bad.status).toBe(400);
      expect(bad.error).toMatchObject({ code: 'CHOKAQ_INVALID_DURATION', field: 'ages.archive' });
      expect((await chokaq.jobs.count({ state: 'succeeded' })).count).toBe(3);

      const purged = await api.post<RetentionPurge>(
        'api/retention/purge',
        { reason: 'disk at 90 %' },
        { csrf: false },
      );
      expect(purged.status).toBe(200);
      expect(purged.body.led).toBe(true);
      expect(receipts(purged.body.entries)?.rows).toBe(3);
      expect((await chokaq.jobs.count({ state: 'succeeded' })).count).toBe(0);
      expect((await chokaq.audit.list())[0]).toMatchObject({
        action: 'retention-purge',
        actor: 'olga',
        reason: 'disk at 90 %',
      });
    });
  });
}
