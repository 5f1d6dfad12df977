/**
 * The Deck's HTTP API on a real server, against each store: access (nothing by default, read
 * versus operate, tokens, sign-in links, `authorize`), the guards of a change (same origin, JSON,
 * CSRF, body size), coded errors, and each route reaching storage and coming back in the feed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeck, type DeckHandler, type DeckOptions } from '../../src/deck/index.js';
import {
  ChokaQ,
  defineJob,
  FatalError,
  silentLogger,
  type AuditEntry,
  type BulkAction,
  type BulkPreview,
  type ErrorGroup,
  type ErrorGroupTrend,
  type JobDetail,
  type JobFlow,
  type JobPage,
  type QueueInfo,
  type QueueStatus,
  type ScheduleInfo,
  type StatusReport,
} from '../../src/index.js';
import type { FlowView } from '../../src/deck/api/flow.js';
import type { SettingsView } from '../../src/deck/api/settings.js';
import type { Store } from '../../src/storage/store.js';
import { waitFor } from '../helpers/wait.js';
import {
  DeckClient,
  readEvents,
  serveDeck,
  serveStripped,
  type DeckServerHandle,
} from './client.js';

const READ_TOKEN = 'read-token-0123456789';
const OPERATE_TOKEN = 'operate-token-0123456789';

const ok = defineJob({
  type: 'deck.ok.v1',
  queue: 'mail',
  handle: () => Promise.resolve({ sent: true }),
});
const broken = defineJob({
  type: 'deck.broken.v1',
  queue: 'mail',
  handle: (payload: { n: number }) =>
    Promise.reject(new FatalError(`smtp refused message ${payload.n}`)),
});

/** The API suite on the store `makeStorage` opens. */
export function describeDeckApi(
  name: string,
  makeStorage: () => Promise<{ storage: Store; cleanup: () => Promise<void> }>,
): void {
  describe(`The Deck API (${name})`, () => {
    let chokaq: ChokaQ;
    let cleanup: () => Promise<void>;
    let storage: Store;
    const servers: DeckServerHandle[] = [];

    beforeEach(async () => {
      const made = await makeStorage();
      cleanup = made.cleanup;
      storage = made.storage;
      chokaq = new ChokaQ({
        storage: made.storage,
        jobs: [ok, broken],
        logger: silentLogger,
        pollInterval: 50,
        clusterEvents: { interval: 50 },
        queues: { mail: { timeout: '2m', zombieTimeout: '5m', retention: { dlq: '3d' } } },
      });
      await chokaq.start();
    });

    afterEach(async () => {
      for (const server of servers.splice(0)) await server.close();
      await chokaq.stop();
      await cleanup();
    });

    async function serve(
      options: Omit<DeckOptions, 'chokaq'> = {},
      prefix = '',
    ): Promise<{ deck: DeckHandler; base: string }> {
      const deck = createDeck({ chokaq, feedInterval: 250, ...options });
      const server = await serveDeck(deck, prefix);
      servers.push(server);
      return { deck, base: `${server.origin}${prefix}/` };
    }

    it('grants nothing by default: every API route answers 401, the session says none', async () => {
      const { base } = await serve();
      const client = new DeckClient(base);
      for (const path of [
        'api/status',
        'api/jobs',
        'api/queues',
        'api/dlq/groups',
        'api/events',
        'api/audit',
        'api/flow',
      ]) {
        const res = await client.get(path);
        expect(res.status, path).toBe(401);
        expect(res.error?.code).toBe('CHOKAQ_DECK_UNAUTHORIZED');
      }
      expect((await client.get<{ access: string }>('api/session')).body).toMatchObject({
        access: 'none',
        actor: null,
      });
      const pause = await client.post('api/queues/mail/pause', {});
      expect(pause.status).toBe(401);
      expect((await chokaq.queues.list()).find((q) => q.name === 'mail')?.paused ?? false).toBe(
        false,
      );
    });

    it('lets a read token read and refuses it every change with 403', async () => {
      const { base } = await serve({ tokens: [{ token: READ_TOKEN, access: 'read' }] });
      // Delayed, so the running worker cannot finish it (and take it off the page) before the read.
      await chokaq.enqueue(ok, {}, { delay: '1h' });
      const client = new DeckClient(base, { authorization: `Bearer ${READ_TOKEN}` });
      const page = await client.get<JobPage>('api/jobs');
      expect(page.status).toBe(200);
      expect(page.body.jobs.length).toBeGreaterThan(0);
      const changes: [string, unknown][] = [
        ['api/queues/mail/pause', {}],
        ['api/queues/mail/resume', {}],
        ['api/queues/mail/update', { maxWorkers: 2 }],
        ['api/jobs/x/edit', { priority: 1 }],
        ['api/jobs/cancel', { ids: ['x'] }],
        ['api/dlq/x/edit', { tags: 'a' }],
        ['api/dlq/resurrect', { ids: ['x'] }],
        ['api/dlq/purge', { ids: ['x'] }],
        ['api/bulk/preview', { action: 'purge', target: { ids: ['x'] } }],
        ['api/bulk/run', { token: 'x', reason: 'r' }],
        ['api/bulk/x/cancel', {}],
        ['api/schedules/x/pause', {}],
        ['api/schedules/x/resume', {}],
      ];
      for (const [path, body] of changes) {
        const res = await client.post(path, body, { csrf: false });
        expect(res.status, path).toBe(403);
        expect(res.error?.code, path).toBe('CHOKAQ_DECK_FORBIDDEN');
      }
      expect(await chokaq.audit.list()).toEqual([]);
    });

    it('signs a browser in with a one-time link; its changes need the CSRF token and record its actor', async () => {
      const { deck, base } = await serve();
      const link = deck.signInLink({ actor: 'alice' });
      const browser = new DeckClient(base);
      const signIn = await browser.request(link);
      expect(signIn.status).toBe(303);
      expect(browser.cookies.has('chokaq_deck_session')).toBe(true);
      // The link is spent.
      expect((await new DeckClient(base).request(link)).status).toBe(401);
      const session = await browser.get('api/session');
      expect(session.body).toMatchObject({ access: 'operate', actor: 'alice' });

      const noCsrf = await browser.post('api/queues/mail/pause', {}, { csrf: false });
      expect(noCsrf.status).toBe(403);
      expect(noCsrf.error?.code).toBe('CHOKAQ_DECK_CSRF');
      const wrong = await browser.post(
        'api/queues/mail/pause',
        {},
        { csrf: false, headers: { 'x-chokaq-csrf': 'guess' } },
      );
      expect(wrong.error?.code).toBe('CHOKAQ_DECK_CSRF');

      const paused = await browser.post<QueueInfo>('api/queues/mail/pause', {
        reason: 'smtp down',
      });
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({ name: 'mail', paused: true });
      const [entry] = await chokaq.audit.list();
      expect(entry).toMatchObject({ actor: 'alice', action: 'queue-update', reason: 'smtp down' });

      await browser.post('api/sign-out', {});
      expect((await browser.get('api/status')).status).toBe(401);
    });

    it('refuses a change from another site, one not sent as JSON, and one too large', async () => {
      const { base } = await serve({ tokens: [{ token: OPERATE_TOKEN, access: 'operate' }] });
      const browser = new DeckClient(base);
      // A lasting token never signs in through a URL (it would stay in histories and logs).
      expect((await browser.request(`login?token=${OPERATE_TOKEN}`)).status).toBe(401);
      // Signing in starts a session with its own CSRF token, read after it.
      await browser.post('api/sign-in', { token: OPERATE_TOKEN }, { csrf: false });
      expect((await browser.get<{ access: string }>('api/session')).body.access).toBe('operate');
      const crossOrigin = await browser.post(
        'api/queues/mail/pause',
        {},
        { headers: { origin: 'http://evil.example' } },
      );
      expect(crossOrigin.status).toBe(403);
      expect(crossOrigin.error?.code).toBe('CHOKAQ_DECK_CROSS_ORIGIN');
      const crossSite = await browser.post(
        'api/queues/mail/pause',
        {},
        { headers: { 'sec-fetch-site': 'cross-site' } },
      );
      expect(crossSite.error?.code).toBe('CHOKAQ_DECK_CROSS_ORIGIN');
      const form = await browser.request('api/queues/mail/pause', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-chokaq-csrf': browser.csrf!,
        },
        body: 'a=1',
      });
      expect(form.status).toBe(415);
      const huge = await browser.post('api/dlq/purge', {
        ids: ['x'],
        reason: 'x'.repeat(1_100_000),
      });
      expect(huge.status).toBe(413);
      expect((await chokaq.queues.list()).find((q) => q.name === 'mail')?.paused ?? false).toBe(
        false,
      );
      // The same change from the same origin goes through.
      const sameOrigin = await browser.post(
        'api/queues/mail/pause',
        {},
        { headers: { origin: new URL(base).origin } },
      );
      expect(sameOrigin.status).toBe(200);
    });

    it('answers bad input with the coded error naming the field, and changes nothing', async () => {
      const { base } = await serve({ tokens: [{ token: OPERATE_TOKEN, access: 'operate' }] });
      const api = new DeckClient(base, { authorization: `Bearer ${OPERATE_TOKEN}` });
      const badState = await api.get(
        `api/jobs?q=${encodeURIComponent(JSON.stringify({ state: 'bogus' }))}`,
      );
      expect(badState.status).toBe(400);
      expect(badState.error).toMatchObject({
        code: 'CHOKAQ_INVALID_FILTER',
        field: 'query.state[0]',
      });
      const badJson = await api.get('api/jobs?q={nope');
      expect(badJson.error?.code).toBe('CHOKAQ_DECK_BAD_JSON');
      const unknownKey = await api.post(
        'api/queues/mail/update',
        { maxWorker: 2 },
        { csrf: false },
      );
      expect(unknownKey.error).toMatchObject({
        code: 'CHOKAQ_UNKNOWN_OPTION',
        field: 'body.maxWorker',
      });
      const two = await api.post(
        'api/queues/mail/update',
        { maxWorkers: 2, active: false },
        { csrf: false },
      );
      expect(two.error?.code).toBe('CHOKAQ_INVALID_ARGUMENT');
      const bulk = await api.post(
        'api/bulk/run',
        { token: 'forged', reason: 'r' },
        { csrf: false },
      );
      expect(bulk.status).toBe(409);
      expect(bulk.error?.code).toBe('CHOKAQ_BULK_CONFIRMATION');
      expect((await api.get('api/jobs/no-such-job')).status).toBe(404);
      expect((await api.get('api/nope')).status).toBe(404);
      expect((await api.request('api/jobs', { method: 'DELETE' })).status).toBe(405);
      const info = (await chokaq.queues.list()).find((q) => q.name === 'mail');
      expect(info?.maxWorkers ?? null).toBeNull();
      expect(info?.active ?? true).toBe(true);
    });

    it('sends the security headers on every answer', async () => {
      const { base } = await serve();
      for (const path of ['api/status', 'api/session', 'nope']) {
        const res = await new DeckClient(base).request(path);
        expect(res.headers.get('content-security-policy'), path).toContain(
          "frame-ancestors 'none'",
        );
        expect(res.headers.get('content-security-policy'), path).toContain("script-src 'self'");
        expect(res.headers.get('x-frame-options'), path).toBe('DENY');
        expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      }
    });

    it('lets anonymous read when enabled, and authorize() widen a request with its own actor', async () => {
      const { base } = await serve({
        anonymous: 'read',
        authorize: (req) =>
          req.headers['x-user'] === 'bob' ? { access: 'operate', actor: 'bob' } : 'none',
      });
      const anonymous = new DeckClient(base);
      expect((await anonymous.get('api/status')).status).toBe(200);
      expect((await anonymous.post('api/queues/mail/pause', {})).status).toBe(403);
      const bob = new DeckClient(base, { 'x-user': 'bob' });
      const paused = await bob.post('api/queues/mail/pause', {});
      expect(paused.status).toBe(200);
      expect((await chokaq.audit.list())[0]?.actor).toBe('bob');
    });

    it('serves under a base path and sends a bare prefix to the slashed one', async () => {
      const { base } = await serve({ basePath: '/ops/chokaq', anonymous: 'read' }, '/ops/chokaq');
      const client = new DeckClient(base);
      const bare = await client.request('../chokaq');
      expect(bare.status).toBe(308);
      // Relative, so no path a client sends can point it at another host.
      expect(bare.headers.get('location')).toBe('./chokaq/');
      expect(new URL(bare.headers.get('location')!, bare.url).pathname).toBe('/ops/chokaq/');
      expect((await client.get('api/status')).status).toBe(200);
    });

    it('shows the running configuration to read access, without a secret', async () => {
      const { base } = await serve({
        tokens: [
          { token: READ_TOKEN, access: 'read' },
          { token: OPERATE_TOKEN, access: 'operate' },
        ],
        environment: 'staging',
        sessionTtl: '2h',
      });
      await chokaq.enqueue(ok, {});
      const api = new DeckClient(base, { authorization: `Bearer ${READ_TOKEN}` });
      const answer = await api.get<SettingsView>('api/settings');
      expect(answer.status).toBe(200);
      const { engine, queues, deck } = answer.body;
      expect(engine).toMatchObject({
        storage: name,
        worker: true,
        concurrency: 10,
        pollIntervalMs: 50,
        clusterEventsIntervalMs: 50,
        jobTypes: [
          { type: 'deck.ok.v1', queue: 'mail' },
          { type: 'deck.broken.v1', queue: 'mail' },
        ],
        timing: { zombieTimeoutMs: 600_000, heartbeatIntervalMs: 10_000 },
        retention: { enabled: true },
        telemetry: { metrics: true },
      });
      expect(engine.queues).toEqual([
        expect.objectContaining({
          name: 'mail',
          timeoutMs: 120_000,
          zombieTimeoutMs: 300_000,
          retention: { archiveMs: engine.queueDefaults.retention.archiveMs, dlqMs: 259_200_000 },
        }),
      ]);
      expect(queues.find((q) => q.name === 'mail')).toMatchObject({
        paused: false,
        zombieTimeoutSeconds: 300,
        timeoutMs: 120_000,
      });
      // A queue the options do not name runs with the defaults.
      expect(queues.find((q) => q.name === 'default')).toMatchObject({
        timeoutMs: engine.timing.timeoutMs,
        retention: engine.queueDefaults.retention,
      });
      expect(deck).toEqual({
        basePath: '',
        environment: 'staging',
        feedIntervalMs: 250,
        sessionTtlMs: 7_200_000,
        anonymous: 'none',
        authorize: false,
        tokens: { read: 1, operate: 1 },
      });
      // Live: a concurrency change shows at once.
      chokaq.setConcurrency(3);
      expect((await api.get<SettingsView>('api/settings')).body.engine.concurrency).toBe(3);
      const text = JSON.stringify(answer.body);
      for (const secret of [READ_TOKEN, OPERATE_TOKEN, 'postgres://', 'password']) {
        expect(text).not.toContain(secret);
      }
      expect((await new DeckClient(base).get('api/settings')).status).toBe(401);
    });

    it('lists the schedules with their next and last runs, and pauses and resumes one, audited', async () => {
      const { base } = await serve({
        tokens: [
          { token: READ_TOKEN, access: 'read' },
          { token: OPERATE_TOKEN, access: 'operate', actor: 'sched-op' },
        ],
      });
      await chokaq.schedules.add({
        name: 'nightly',
        job: ok,
        cron: '0 3 * * *',
        timeZone: 'Europe/Berlin',
      });
      const { jobId } = await chokaq.schedules.trigger('nightly');
      const reader = new DeckClient(base, { authorization: `Bearer ${READ_TOKEN}` });
      const list = await reader.get<ScheduleInfo[]>('api/schedules');
      expect(list.status).toBe(200);
      expect(list.body).toEqual([
        expect.objectContaining({
          name: 'nightly',
          type: 'deck.ok.v1',
          queue: 'mail',
          cron: '0 3 * * *',
          timeZone: 'Europe/Berlin',
          paused: false,
          lastRun: expect.objectContaining({ jobId }) as unknown,
        }),
      ]);
      expect(list.body[0]!.nextRuns).toHaveLength(5);

      const api = new DeckClient(base, { authorization: `Bearer ${OPERATE_TOKEN}` });
      const paused = await api.post<ScheduleInfo>(
        'api/schedules/nightly/pause',
        { reason: 'maintenance' },
        { csrf: false },
      );
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({ name: 'nightly', paused: true, nextRuns: [] });
      expect((await chokaq.schedules.get('nightly'))?.paused).toBe(true);
      expect((await chokaq.audit.list())[0]).toMatchObject({
        actor: 'sched-op',
        action: 'schedule-pause',
        reason: 'maintenance',
        target: { schedule: 'nightly' },
      });
      const resumed = await api.post<ScheduleInfo>(
        'api/schedules/nightly/resume',
        {},
        {
          csrf: false,
        },
      );
      expect(resumed.body.paused).toBe(false);
      expect(resumed.body.nextRuns).toHaveLength(5);
      expect((await chokaq.audit.list())[0]).toMatchObject({
        actor: 'sched-op',
        action: 'schedule-resume',
      });

      const unknown = await api.post('api/schedules/nope/pause', {}, { csrf: false });
      expect(unknown.status).toBe(404);
      expect(unknown.error).toMatchObject({ code: 'CHOKAQ_SCHEDULE_NOT_FOUND', field: 'name' });
      const badName = await api.post('api/schedules/bad%20name/pause', {}, { csrf: false });
      expect(badName.status).toBe(400);
      expect(badName.error).toMatchObject({ code: 'CHOKAQ_INVALID_SCHEDULE', field: 'name' });
      const extra = await api.post(
        'api/schedules/nightly/pause',
        { paused: true },
        { csrf: false },
      );
      expect(extra.error).toMatchObject({ code: 'CHOKAQ_UNKNOWN_OPTION', field: 'body.paused' });
      expect((await chokaq.schedules.get('nightly'))?.paused).toBe(false);
    });

    it('shows the concurrency keys in use and the rate buckets, and checks its filter', async () => {
      const { base } = await serve({ tokens: [{ token: READ_TOKEN, access: 'read' }] });
      await chokaq.enqueue(
        ok,
        {},
        { concurrencyKey: 'tenant-9', concurrencyLimit: 3, delay: '1h' },
      );
      expect(
        await storage.rateLimits.take({ name: 'partner.api', limit: 5, perMs: 1000, count: 7 }),
      ).toMatchObject({ granted: 5 });
      const reader = new DeckClient(base, { authorization: `Bearer ${READ_TOKEN}` });
      const flow = await reader.get<FlowView>('api/flow');
      expect(flow.status).toBe(200);
      expect(flow.body?.keys).toEqual([
        { queue: 'mail', key: 'tenant-9', limit: 3, running: 0, pending: 1 },
      ]);
      expect(flow.body?.buckets).toEqual([
        expect.objectContaining({
          name: 'partner.api',
          limit: 5,
          perMs: 1000,
          grantedTotal: 5,
          throttledTotal: 1,
        }),
      ]);
      const q = (value: object) => `api/flow?q=${encodeURIComponent(JSON.stringify(value))}`;
      expect((await reader.get<FlowView>(q({ queue: 'other' }))).body?.keys).toEqual([]);
      expect((await reader.get(q({ limit: 0 }))).error).toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
        field: 'options.limit',
      });
      expect((await reader.get(q({ queues: 'mail' }))).error).toMatchObject({
        code: 'CHOKAQ_UNKNOWN_OPTION',
        field: 'q.queues',
      });
    });

    it('redirects a bare prefix with a malformed escape as sent, and answers 404 below it; never 500', async () => {
      const deck = createDeck({ chokaq, anonymous: 'read' });
      const server = await serveStripped(deck, /^\/t\/[^/?]+/);
      servers.push(server);
      for (const segment of ['%E0%A4%A', '%zz', '%', 'caf%C3%A9']) {
        const res = await new DeckClient(`${server.origin}/t/`).request(segment);
        expect(res.status, segment).toBe(308);
        expect(res.headers.get('location'), segment).toBe(`./${segment}/`);
      }
      const { base } = await serve({ basePath: '/ops/chokaq', anonymous: 'read' }, '/ops/chokaq');
      for (const path of ['%zz', '%E0%A4%A', 'api/%E0%A4%A', 'api/jobs/%zz', 'assets/%']) {
        expect((await new DeckClient(base).request(path)).status, path).toBe(404);
      }
    });

    it('scopes its cookies to the mount prefix, whether the URL keeps it or the framework took it off', async () => {
      const kept = await serve({ basePath: '/ops/chokaq' }, '/ops/chokaq');
      const strippedDeck = createDeck({ chokaq });
      const stripped = await serveStripped(strippedDeck, /^\/ops\/chokaq/);
      servers.push(stripped);
      const root = await serve();
      const mounts: [DeckHandler, string, string][] = [
        [kept.deck, kept.base, '/ops/chokaq'],
        [strippedDeck, `${stripped.origin}/ops/chokaq/`, '/ops/chokaq'],
        [root.deck, root.base, '/'],
      ];
      for (const [deck, base, path] of mounts) {
        const scoped = new RegExp(`^chokaq_deck_(session|csrf)=[^;]*; Path=${path}; HttpOnly;`);
        const browser = new DeckClient(base);
        const signIn = await browser.request(deck.signInLink());
        expect(signIn.status).toBe(303);
        expect(signIn.headers.getSetCookie(), base).toEqual([expect.stringMatching(scoped)]);
        const signOut = await browser.post('api/sign-out', {});
        expect(signOut.headers.getSetCookie(), base).toEqual([expect.stringMatching(scoped)]);
        const csrf = await new DeckClient(base).request('api/session');
        expect(csrf.headers.getSetCookie(), base).toEqual([expect.stringMatching(scoped)]);
      }
    });

    it('shows jobs, their detail, error groups and the queues, and repairs a group by a bulk action', async () => {
      const { base } = await serve({
        tokens: [{ token: OPERATE_TOKEN, access: 'operate', actor: 'carol' }],
      });
      const api = new DeckClient(base, { authorization: `Bearer ${OPERATE_TOKEN}` });
      await chokaq.enqueueMany(
        broken,
        [1, 2, 3].map((n) => ({ payload: { n } })),
      );
      await chokaq.enqueue(ok, {});
      await waitFor(async () => (await chokaq.jobs.count({ state: 'dead' })).count === 3, {
        timeoutMs: 15_000,
      });

      const dead = await api.get<JobPage>(
        `api/jobs?q=${encodeURIComponent(JSON.stringify({ state: 'dead' }))}`,
      );
      expect(dead.body.jobs).toHaveLength(3);
      const detail = await api.get<JobDetail>(`api/jobs/${dead.body.jobs[0]!.id}`);
      expect(detail.body.state).toBe('dead');
      const groups = await api.get<ErrorGroup[]>('api/dlq/groups');
      const group = groups.body[0]!;
      expect(groups.body).toHaveLength(1);
      expect(group).toMatchObject({ count: 3, errorClass: 'FatalError' });
      const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));
      const trend = await api.get<ErrorGroupTrend>(
        `api/dlq/trend?q=${q({ groups: [group.fingerprint, 'unknown'] })}`,
      );
      expect(trend.body.hours).toHaveLength(24);
      expect(
        trend.body.groups.map((g) => [g.fingerprint, g.counts.reduce((a, b) => a + b, 0)]),
      ).toEqual([
        [group.fingerprint, 3],
        ['unknown', 0],
      ]);
      for (const [query, error] of [
        [{ groups: 'x' }, { code: 'CHOKAQ_INVALID_ARGUMENT', field: 'fingerprints' }],
        [{ groups: [''] }, { code: 'CHOKAQ_INVALID_ARGUMENT', field: 'fingerprints[0]' }],
        [{ group: [] }, { code: 'CHOKAQ_UNKNOWN_OPTION', field: 'q.group' }],
      ] as const) {
        const bad = await api.get(`api/dlq/trend?q=${q(query)}`);
        expect(bad.status).toBe(400);
        expect(bad.error).toMatchObject(error);
      }
      const queues = await api.get<(QueueInfo & { status: QueueStatus | null })[]>('api/queues');
      expect(queues.body.find((q) => q.name === 'mail')?.status?.dead).toBe(3);

      const preview = await api.post<BulkPreview>(
        'api/bulk/preview',
        { action: 'purge', target: { errorGroup: group.fingerprint } },
        { csrf: false },
      );
      expect(preview.body).toMatchObject({ count: 3 });
      const run = await api.post<BulkAction>(
        'api/bulk/run',
        { token: preview.body.token, reason: 'known bad' },
        { csrf: false },
      );
      expect(run.status).toBe(200);
      await waitFor(
        async () =>
          (await api.get<{ action: BulkAction }>(`api/bulk/${preview.body.id}`)).body.action
            .status === 'succeeded',
        {
          timeoutMs: 15_000,
        },
      );
      expect(
        (await api.get<{ action: BulkAction }>(`api/bulk/${preview.body.id}`)).body.action,
      ).toMatchObject({
        applied: 3,
        actor: 'carol',
      });
      expect((await chokaq.jobs.count({ state: 'dead' })).count).toBe(0);
    });

    it("reads a job's flow to read access: the whole workflow, 404 when the job is nowhere", async () => {
      const { base } = await serve({ tokens: [{ token: READ_TOKEN, access: 'read' }] });
      const api = new DeckClient(base, { authorization: `Bearer ${READ_TOKEN}` });
      let child = '';
      let parent = '';
      await chokaq.enqueueWorkflow((workflow) => {
        child = workflow.add(ok, {}, { delay: '1h' });
        parent = workflow.add(ok, {}, { dependsOn: [child] });
      });
      const flow = await api.get<JobFlow>(`api/jobs/${child}/flow`);
      expect(flow.status).toBe(200);
      expect(flow.body).toMatchObject({ id: child, truncated: false, limit: 200 });
      expect(flow.body.nodes.map((n) => [n.id, n.state, n.depth])).toEqual([
        [child, 'scheduled', 0],
        [parent, 'awaiting', 1],
      ]);
      expect(flow.body.edges).toEqual([{ dependency: child, dependent: parent, onDeath: 'fail' }]);
      const nowhere = await api.get('api/jobs/no-such-job/flow');
      expect([nowhere.status, nowhere.error?.code]).toEqual([404, 'CHOKAQ_DECK_NOT_FOUND']);
    });

    it('shares live re-reads of a view among tabs for a feed interval, never a read asked for', async () => {
      // An interval no test outlasts, so the sharing cannot lapse between two reads.
      const { base } = await serve({
        tokens: [{ token: OPERATE_TOKEN, access: 'operate' }],
        feedInterval: '60s',
      });
      const auth = { authorization: `Bearer ${OPERATE_TOKEN}` };
      const tabA = new DeckClient(base, { ...auth, 'x-chokaq-live': '1' });
      const tabB = new DeckClient(base, { ...auth, 'x-chokaq-live': '1' });
      const asked = new DeckClient(base, auth);
      const names = async (client: DeckClient) =>
        (await client.get<QueueInfo[]>('api/queues')).body.map((q) => q.name).sort();

      const before = await names(tabA);
      expect(before).not.toContain('shared');
      await chokaq.enqueue(ok, {}, { queue: 'shared' }); // a change made elsewhere
      expect(await names(tabB)).toEqual(before); // the answer tab A's read got
      expect(await names(asked)).toContain('shared'); // a read asked for goes to storage
      // A different view is read on its own.
      expect((await tabB.get<QueueInfo[]>('api/queues?x=1')).body.map((q) => q.name)).toContain(
        'shared',
      );
      // A change through The Deck forgets the shared answers: its effect shows at once.
      expect((await asked.post('api/queues/shared/pause', {}, { csrf: false })).status).toBe(200);
      const queues = (await tabB.get<QueueInfo[]>('api/queues')).body;
      expect(queues.find((q) => q.name === 'shared')?.paused).toBe(true);
    });

    it('opens no stream for a client that left while its access was being resolved', async () => {
      let resolved = 0;
      const { deck, base } = await serve({
        authorize: async () => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          resolved += 1;
          return 'read' as const;
        },
      });
      const gone = new AbortController();
      const request = new DeckClient(base).request('api/events', { signal: gone.signal });
      setTimeout(() => gone.abort(), 50);
      await expect(request).rejects.toThrow();
      await waitFor(() => resolved === 1, { timeoutMs: 5000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(deck.streams).toBe(0);
    });

    it('pushes state and changes over one live feed, resumable with Last-Event-ID', async () => {
      const { deck, base } = await serve({ tokens: [{ token: OPERATE_TOKEN, access: 'operate' }] });
      const api = new DeckClient(base, { authorization: `Bearer ${OPERATE_TOKEN}` });
      // A second tab keeps the feed listening while the first one drops and resumes.
      const keeper = new AbortController();
      const kept = await api.request('api/events', { signal: keeper.signal });
      const first = await api.request('api/events');
      expect(first.headers.get('content-type')).toContain('text/event-stream');
      const pausing = (async () => {
        await waitFor(() => deck.streams === 2, { timeoutMs: 5000 });
        await api.post('api/queues/mail/pause', { reason: 'feed test' }, { csrf: false });
        await chokaq.enqueue(ok, {});
      })();
      const seen = await readEvents(
        first,
        (events) =>
          events.some((e) => e.event === 'actions') &&
          events.some((e) => e.event === 'status') &&
          events.some((e) => e.event === 'activity'),
      );
      await pausing;
      const action = seen.find((e) => e.event === 'actions')!;
      expect((action.data as AuditEntry[])[0]).toMatchObject({
        action: 'queue-update',
        reason: 'feed test',
      });
      const status = seen.find((e) => e.event === 'status')!;
      expect((status.data as StatusReport).queues.length).toBeGreaterThan(0);
      // The state carries no id: it is not kept, so it must not move Last-Event-ID.
      expect(status.id).toBe('');
      await waitFor(() => deck.streams === 1, { timeoutMs: 5000 });

      // Resuming from before the action replays it; an id from another server run resets.
      const resumed = await api.request('api/events', {
        headers: { 'last-event-id': String(Number(action.id) - 1) },
      });
      const replayed = await readEvents(resumed, (events) =>
        events.some((e) => e.event === 'actions'),
      );
      expect(replayed.find((e) => e.event === 'actions')!.id).toBe(action.id);
      const stale = await api.request('api/events', { headers: { 'last-event-id': '999999' } });
      expect((await readEvents(stale, (events) => events.length > 0))[0]!.event).toBe('reset');

      // Once every tab is gone nothing is heard: coming back from before then starts over.
      keeper.abort();
      await kept.body?.cancel().catch(() => undefined);
      await waitFor(() => deck.streams === 0, { timeoutMs: 5000 });
      const late = await api.request('api/events', { headers: { 'last-event-id': action.id } });
      expect((await readEvents(late, (events) => events.length > 0))[0]!.event).toBe('reset');
    });
  });
}
