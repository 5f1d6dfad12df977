/**
 * The Deck's repairs in a real browser (Debian's Chromium through playwright-core) against
 * PostgreSQL, in each way it runs without being the app itself: mounted in a process that does
 * not define the job type (what `chokaq deck` opens), and the `chokaq deck` command of the built
 * package, without and with `--module`. The jobs are written and failed by an app that then
 * stops, so no live worker knows their type.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as DeckModule from '../../src/deck/index.js';
import type * as Root from '../../src/index.js';
import type * as Postgres from '../../src/storage/postgres/index.js';
import { ROOT, killAll, requireDist, spawnNode, type Child } from '../fixtures/crash-process.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';
import { chromiumThere, launchChromium } from '../helpers/chromium.js';
import { statusFor } from './client.js';

const pgUp = await postgresAvailable();

const TYPE = 'invoice.render.v2';
const DEAD = 8;

/** The app's definition as a `--module` for `chokaq deck`: a schema that wants a positive amount. */
const MODULE_SOURCE = `
const schema = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) =>
      typeof value?.amount === 'number' && value.amount > 0
        ? { value }
        : { issues: [{ message: 'must be a positive number', path: ['amount'] }] },
  },
};
export default { jobs: [{ type: '${TYPE}', queue: 'billing', schema, handle: async () => undefined }] };
`;

/**
 * A worker of another team: it serves billing but runs only its own type, and judges lag
 * strictly (degraded past 1 s, unhealthy past 2 s), so billing is judged by those thresholds.
 */
const WORKER_SOURCE = (root: string, schema: string) => `
import { ChokaQ, defineJob, silentLogger } from '${root}dist/index.js';
import { postgres } from '${root}dist/storage/postgres/index.js';
const chokaq = new ChokaQ({
  storage: postgres({ connectionString: process.env.DATABASE_URL, schema: '${schema}', poolSize: 2 }),
  jobs: [defineJob({ type: 'ledger.post.v1', queue: 'billing', handle: async () => undefined })],
  workerQueues: ['billing'],
  health: { lagDegraded: '1s', lagUnhealthy: '2s' },
  logger: silentLogger,
});
await chokaq.start();
console.log('ready');
`;

describe.skipIf(!pgUp || !chromiumThere)(
  'The Deck repairs where the type is unknown (PostgreSQL)',
  () => {
    const schema = uniqueSchema('deckfix');
    let root: typeof Root;
    let postgres: typeof Postgres.postgres;
    /** The Deck's process: no job definitions, a worker for the operator queue only. */
    let chokaq: Root.ChokaQ;
    let deck: DeckModule.DeckHandler;
    let browser: Browser;
    let origin = '';
    let dir = '';
    const servers: http.Server[] = [];
    const children: Child[] = [];

    beforeAll(async () => {
      requireDist([
        'dist/index.js',
        'dist/deck/index.js',
        'dist/deck/ui/app.js',
        'dist/cli/main.js',
      ]);
      root = (await import(`${ROOT}dist/index.js`)) as typeof Root;
      ({ postgres } = (await import(`${ROOT}dist/storage/postgres/index.js`)) as typeof Postgres);
      const { createDeck } = (await import(`${ROOT}dist/deck/index.js`)) as typeof DeckModule;
      dir = await mkdtemp(join(tmpdir(), 'chokaq-deck-fix-'));
      await writeFile(join(dir, 'jobs.mjs'), MODULE_SOURCE);

      // The app: its worker fails every invoice for good, then it stops.
      const invoice = root.defineJob({
        type: TYPE,
        queue: 'billing',
        handle: (payload: { amount: number }) =>
          Promise.reject(new root.FatalError(`amount ${payload.amount} is not positive`)),
      });
      const app = new root.ChokaQ({
        storage: postgres({ connectionString: TEST_DATABASE_URL, schema, poolSize: 2 }),
        jobs: [invoice],
        pollInterval: 50,
        logger: root.silentLogger,
      });
      await app.start();
      await app.enqueueMany(
        invoice,
        Array.from({ length: DEAD }, (_, k) => ({ payload: { amount: -(k + 1) } })),
      );
      await waitFor(async () => (await app.jobs.count({ state: 'dead' })).count === DEAD, {
        timeoutMs: 30_000,
        message: 'the invoices in the DLQ',
      });
      await app.stop();

      chokaq = new root.ChokaQ({
        storage: postgres({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 }),
        jobs: [],
        workerQueues: [],
        concurrency: 1,
        pollInterval: 100,
        // No background purge: the page's purge now is the only one; receipts age out in 1 s.
        retention: false,
        queues: { receipts: { retention: { archive: '1s' } } },
        logger: root.silentLogger,
      });
      await chokaq.start();
      deck = createDeck({ chokaq, feedInterval: 250 });
      const server = http.createServer(deck);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      browser = await launchChromium();
    }, 120_000);

    afterAll(async () => {
      await killAll(children, 5000);
      await browser?.close();
      deck?.close();
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      await chokaq?.stop();
      await dropSchema(schema);
      if (dir !== '') await rm(dir, { recursive: true, force: true });
    });

    /** A fresh browser context at a sign-in `link` (absolute). */
    async function signedIn(link: string): Promise<Page> {
      const page = await (
        await browser.newContext({ viewport: { width: 1280, height: 720 } })
      ).newPage();
      page.on('pageerror', (error) => {
        throw error;
      });
      await page.goto(link);
      await page.waitForSelector('.shell');
      return page;
    }

    /** The id of a DLQ job not used yet. */
    const used = new Set<string>();
    async function deadJob(): Promise<string> {
      const page = await chokaq.jobs.query({ state: 'dead', limit: 100 });
      const id = page.jobs.find((job) => !used.has(job.id))!.id;
      used.add(id);
      return id;
    }

    /** `chokaq deck` of the built package on this schema; resolves to its sign-in URL. */
    async function cliDeck(extra: string[] = []): Promise<string> {
      const child = spawnNode(
        'chokaq deck',
        [
          'dist/cli/main.js',
          'deck',
          '--database-url',
          TEST_DATABASE_URL,
          '--schema',
          schema,
          '--port',
          '0',
          ...extra,
        ],
        {},
      );
      children.push(child);
      const line = await child.waitForLine('Sign in', 30_000);
      return line.slice(line.indexOf('http'));
    }

    /** Opens the editor of DLQ job `id` from its inspector. */
    async function openEditor(page: Page, base: string, id: string) {
      await page.goto(`${base}#/job/${id}`);
      await page.getByRole('button', { name: 'Edit…' }).click();
      return page.locator('dialog');
    }

    it('mounted without the definition: says the schema is unknown first, saves and resurrects in one step only by the JSON-only choice, audited', async () => {
      const page = await signedIn(`${origin}/${deck.signInLink({ actor: 'ines' })}`);
      const id = await deadJob();
      const editor = await openEditor(page, `${origin}/`, id);
      const notice = editor.locator('.json-only');
      await expect.poll(() => notice.textContent()).toContain(`'${TYPE}'`);
      expect(await notice.textContent()).toContain('checked as JSON only');
      await editor.getByLabel('Payload', { exact: true }).fill('{ "amount": 12 }');
      const saveAndResurrect = editor.getByRole('button', { name: 'Save and resurrect' });
      expect(await saveAndResurrect.isDisabled()).toBe(true);
      await editor.getByLabel(/checked as JSON only/).check();
      await editor.getByLabel('Reason').fill('amount fixed by hand');
      await saveAndResurrect.click();
      await expect.poll(async () => (await chokaq.jobs.get(id))?.found.where).toBe('hot');
      expect(JSON.parse((await chokaq.jobs.get(id))!.found.job.payload)).toEqual({ amount: 12 });
      await expect
        .poll(async () => (await chokaq.audit.list({ limit: 2 })).map((e) => e.action))
        .toEqual(['resurrect', 'dlq-edit']);
      expect((await chokaq.audit.list({ limit: 2 }))[1]).toMatchObject({
        actor: 'ines',
        reason: 'amount fixed by hand',
        outcome: { fields: ['payload'], unchecked: true },
      });
      await page.context().close();
    });

    it('`chokaq deck` without --module: the same editor saves a payload checked as JSON only', async () => {
      const page = await signedIn(await cliDeck());
      const base = page.url().replace(/#.*$/, '');
      const id = await deadJob();
      const editor = await openEditor(page, base, id);
      await expect.poll(() => editor.locator('.json-only').count()).toBe(1);
      await editor.getByLabel('Payload', { exact: true }).fill('{ "amount": 5 }');
      await editor.getByLabel(/checked as JSON only/).check();
      await editor.getByRole('button', { name: 'Save', exact: true }).click();
      await expect
        .poll(async () => JSON.parse((await chokaq.jobs.get(id))!.found.job.payload) as unknown)
        .toEqual({ amount: 5 });
      // The change is visible before its audit entry is written: wait for the entry.
      await expect
        .poll(async () => (await chokaq.audit.list())[0])
        .toMatchObject({
          action: 'dlq-edit',
          actor: 'deck-operator',
          outcome: { unchecked: true },
        });
      await page.context().close();
    });

    it('`chokaq deck --module`: the type is known, no JSON-only choice, the schema checks the payload', async () => {
      const page = await signedIn(await cliDeck(['--module', join(dir, 'jobs.mjs')]));
      const base = page.url().replace(/#.*$/, '');
      const id = await deadJob();
      const editor = await openEditor(page, base, id);
      await editor.getByLabel('Payload', { exact: true }).fill('{ "amount": -1 }');
      expect(await editor.locator('.json-only').count()).toBe(0);
      await editor.getByRole('button', { name: 'Save and resurrect' }).click();
      await expect
        .poll(() => editor.locator('p.error').textContent())
        .toContain('must be a positive number');
      await editor.getByLabel('Payload', { exact: true }).fill('{ "amount": 30 }');
      await editor.getByRole('button', { name: 'Save and resurrect' }).click();
      await expect.poll(async () => (await chokaq.jobs.get(id))?.found.where).toBe('hot');
      await expect
        .poll(async () => (await chokaq.audit.list({ limit: 2 })).map((e) => e.action))
        .toEqual(['resurrect', 'dlq-edit']);
      expect((await chokaq.audit.list({ limit: 2 }))[1]?.outcome).toEqual({ fields: ['payload'] });
      await page.context().close();
    });

    it('fixes and replays the error group checked as JSON only, by an explicit choice the audit records', async () => {
      const page = await signedIn(`${origin}/${deck.signInLink({ actor: 'ines' })}`);
      await page.goto(`${origin}/#/inbox`);
      const group = page.locator('article.group');
      await group.getByRole('button', { name: 'Fix and replay…' }).click();
      const dialog = page.locator('dialog');
      await expect.poll(() => dialog.locator('.json-only').textContent()).toContain(`'${TYPE}'`);
      await dialog.getByLabel('Patch', { exact: true }).fill('{ "amount": 99 }');
      const previewButton = dialog.getByRole('button', { name: 'Preview' });
      expect(await previewButton.isDisabled()).toBe(true);
      await dialog.getByLabel(/checked as JSON only/).check();
      await previewButton.click();
      const left = (await chokaq.jobs.count({ state: 'dead' })).count;
      await expect
        .poll(() => dialog.locator('[data-preview-count]').getAttribute('data-preview-count'))
        .toBe(String(left));
      await dialog.getByLabel('Confirmation count').fill(String(left));
      await dialog.getByLabel('Reason').fill('replay with the right amount');
      await dialog.getByRole('button', { name: `Edit and resurrect ${left} jobs` }).click();
      await expect
        .poll(() => dialog.locator('[data-bulk-status]').getAttribute('data-bulk-status'), {
          timeout: 20_000,
        })
        .toBe('succeeded');
      expect((await chokaq.jobs.count({ state: 'dead' })).count).toBe(0);
      const start = (await chokaq.audit.list()).find(
        (e) => e.action === 'bulk-edit-resurrect-start',
      );
      expect(start).toMatchObject({ actor: 'ines', outcome: { total: left, unchecked: true } });
      // The Bulk actions panel says what the action acted on, and how many jobs.
      await page.goto(`${origin}/#/bulk`);
      await expect
        .poll(() => page.locator('[data-bulk-summary]').first().textContent())
        .toContain(`edit-resurrect · ${left} jobs: error group`);
      await page.context().close();
    });

    it("offers no pause or deactivate for ChokaQ's own queue; confirms each queue change with a reason, audited", async () => {
      // ChokaQ's own queue is listed once it has a row (a bulk action makes one): so it has one
      // when this test runs alone too. Resuming it is allowed; it changes nothing.
      await chokaq.queues.resume('chokaq.operator', { actor: 'setup' });
      const page = await signedIn(`${origin}/${deck.signInLink({ actor: 'ines' })}`);
      await page.goto(`${origin}/#/queues`);
      const operator = page.locator('tr[data-queue="chokaq.operator"]');
      await expect.poll(() => operator.count()).toBe(1);
      expect(await operator.textContent()).toContain("ChokaQ's own");
      expect(await operator.getByRole('button').allTextContents()).toEqual(['Limits…']);

      const billing = page.locator('tr[data-queue="billing"]');
      await billing.getByRole('button', { name: 'Deactivate (stop claims)…' }).click();
      const dialog = page.locator('dialog');
      expect(await dialog.textContent()).toContain('No process claims jobs of billing');
      // Kept as is: nothing sent.
      await dialog.getByRole('button', { name: 'Keep as is' }).click();
      expect((await chokaq.queues.list()).find((q) => q.name === 'billing')?.active).toBe(true);
      await billing.getByRole('button', { name: 'Deactivate (stop claims)…' }).click();
      await dialog.getByLabel('Reason').fill('invoices on hold');
      await dialog.getByRole('button', { name: 'Deactivate (stop claims) billing' }).click();
      await expect.poll(() => billing.locator('.pill').textContent()).toBe('inactive');
      await expect
        .poll(async () => (await chokaq.audit.list())[0])
        .toMatchObject({
          action: 'queue-update',
          actor: 'ines',
          reason: 'invoices on hold',
          outcome: { active: false },
        });
      await billing.getByRole('button', { name: 'Activate…' }).click();
      await dialog.getByRole('button', { name: 'Activate billing' }).click();
      await expect.poll(() => billing.locator('.pill').textContent()).toBe('active');

      // A word is no cap (it would have travelled as null: no cap at all), and a refusal names
      // the field by the label typed into, not by the API's name (`timeout`).
      await billing.getByRole('button', { name: 'Limits…' }).click();
      await dialog.getByLabel(/Max workers/).fill('three');
      await dialog.getByRole('button', { name: 'Review…' }).click();
      expect(await dialog.locator('p.error').textContent()).toBe(
        'Max workers must be a whole number from 1 to 1,000,000, or empty for no cap.',
      );
      await dialog.getByLabel(/Max workers/).fill('');
      await dialog.getByLabel(/Zombie timeout/).fill('1ms');
      await dialog.getByRole('button', { name: 'Review…' }).click();
      await dialog.getByRole('button', { name: 'Change the limits of billing' }).click();
      await expect
        .poll(() => dialog.locator('p.error').textContent())
        .toMatch(
          /^Zombie timeout must be a duration from .*, got "1ms" \(string\) \[CHOKAQ_INVALID_DURATION\]$/,
        );
      await dialog.getByRole('button', { name: 'Keep as is' }).click();
      expect((await chokaq.queues.list()).find((q) => q.name === 'billing')).toMatchObject({
        maxWorkers: null,
        zombieTimeoutSeconds: null,
      });

      await billing.getByRole('button', { name: 'Limits…' }).click();
      await dialog.getByLabel(/Max workers/).fill('3');
      await dialog.getByRole('button', { name: 'Review…' }).click();
      expect(await dialog.textContent()).toContain('no cap → 3');
      await dialog.getByLabel('Reason').fill('protect the renderer');
      await dialog.getByRole('button', { name: 'Change the limits of billing' }).click();
      await expect
        .poll(
          async () => (await chokaq.queues.list()).find((q) => q.name === 'billing')?.maxWorkers,
        )
        .toBe(3);
      await expect
        .poll(async () => (await chokaq.audit.list())[0])
        .toMatchObject({
          reason: 'protect the renderer',
          outcome: { maxWorkers: 3 },
        });
      await page.context().close();
    });
    it('flags due jobs no live worker runs where they wait, with type and queue; colours lag by the thresholds its live workers run with; a stalled worker in the system health', async () => {
      // The repaired jobs wait, due, in billing: the app that ran their type stopped.
      const dead = (await chokaq.jobs.query({ state: 'dead', limit: 100 })).jobs.map((j) => j.id);
      if (dead.length > 0) await chokaq.dlq.resurrect(dead, { actor: 'setup' });
      expect((await chokaq.jobs.count({ state: 'pending', queue: 'billing' })).count).toBe(DEAD);
      const page = await signedIn(`${origin}/${deck.signInLink({ actor: 'ines' })}`);
      await page.goto(`${origin}/#/system`);
      const stranded = page.locator(`tr[data-stranded="billing ${TYPE}"]`);
      await expect
        .poll(() => stranded.textContent(), { timeout: 15_000 })
        .toContain('no live worker serves this queue');
      expect(
        await page.locator('[data-system-health]').getAttribute('data-system-health'),
      ).not.toBe('ok');
      await page.goto(`${origin}/#/queues`);
      await expect
        .poll(() =>
          page.locator(`tr[data-queue="billing"] [data-stranded="${TYPE}"]`).textContent(),
        )
        .toContain('no live worker serves this queue');
      // No worker recorded thresholds for billing: The Deck's process's own (the defaults) judge it.
      const billingLag = page.locator('tr[data-queue="billing"] td[data-lag-status]');
      expect(await billingLag.getAttribute('title')).toBe(
        'degraded past 30.0 s, unhealthy past 5 min',
      );
      // And in the job matrix, above the rows and on each due row of the type.
      await page.goto(`${origin}/#/jobs/active`);
      await expect
        .poll(() => page.locator('[data-stranded-note]').textContent())
        .toContain(`${DEAD} due of ${TYPE} in billing: no live worker serves this queue`);
      await expect.poll(() => page.locator('tr[data-job] [data-stranded-row]').count()).toBe(DEAD);
      await page.goto(`${origin}/#/`);
      await expect
        .poll(() => page.locator('.stat', { hasText: 'Due, no worker runs them' }).count())
        .toBe(1);
      expect(
        await page
          .locator('.stat', { hasText: 'Failed (all time)' })
          .locator('.card-value')
          .textContent(),
      ).toBe(String(DEAD));

      // Another team's worker serves billing, with other types: the reason changes.
      await writeFile(join(dir, 'worker.mjs'), WORKER_SOURCE(ROOT, schema));
      const other = spawnNode('ledger worker', [join(dir, 'worker.mjs')], {
        DATABASE_URL: TEST_DATABASE_URL,
      });
      children.push(other);
      await other.waitForLine('ready', 30_000);
      await page.goto(`${origin}/#/system`);
      await expect
        .poll(() => stranded.textContent(), { timeout: 15_000 })
        .toContain('no live worker serving this queue runs this type');
      const workerId = await waitFor(
        async () => (await chokaq.status()).workers.find((w) => w.pid === other.pid)?.id,
        { timeoutMs: 15_000, message: 'the ledger worker row' },
      );
      const check = page.locator(`tr[data-check="worker ${workerId}"]`);
      await expect.poll(() => check.locator('.pill').textContent()).toBe('ok');
      // Its strict thresholds judge billing now, and The Deck's colours follow them everywhere.
      const billingHealth = page.locator('tr[data-check="queue billing"]');
      await expect
        .poll(() => billingHealth.textContent(), { timeout: 15_000 })
        .toContain('(degraded past 1.0 s, unhealthy past 2.0 s)');
      await expect.poll(() => billingHealth.locator('.pill').textContent()).toBe('unhealthy');
      await page.goto(`${origin}/#/queues`);
      await expect
        .poll(() => billingLag.getAttribute('title'))
        .toBe('degraded past 1.0 s, unhealthy past 2.0 s');
      await expect.poll(() => billingLag.getAttribute('data-lag-status')).toBe('unhealthy');
      expect(await billingLag.getAttribute('class')).toContain('bad');
      await page.goto(`${origin}/#/`);
      await expect
        .poll(() => page.locator('.stat', { hasText: 'Worst lag' }).getAttribute('class'))
        .toContain('bad');
      await page.goto(`${origin}/#/system`);
      // Stalled: it stops writing its row; past two heartbeats the system says so.
      other.process.kill('SIGSTOP');
      try {
        await expect
          .poll(() => check.textContent(), { timeout: 40_000, interval: 500 })
          .toContain('not heard from');
        expect(await check.locator('.pill').textContent()).toBe('unhealthy');
        expect(await page.locator(`tr[data-worker="${workerId}"] .pill`).textContent()).toBe(
          'unhealthy',
        );
      } finally {
        other.process.kill('SIGCONT');
      }
      await page.context().close();
    }, 90_000);
    it('`chokaq deck --host 0.0.0.0 --anonymous read`: an address a browser opens, a page for a spent link, a new link on Enter, the Host checked', async () => {
      const child = spawnNode(
        'chokaq deck anonymous',
        [
          'dist/cli/main.js',
          'deck',
          '--database-url',
          TEST_DATABASE_URL,
          '--schema',
          schema,
          '--port',
          '0',
          '--host',
          '0.0.0.0',
          '--anonymous',
          'read',
        ],
        {},
      );
      children.push(child);
      const first = await child.waitForLine('Sign in', 30_000);
      const url = (await child.waitForLine('The Deck: ', 1000)).slice('The Deck: '.length);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(await child.waitForLine('From other machines: ', 1000)).toContain(
        `http://${hostname()}:`,
      );
      const link = first.slice(first.indexOf('http'));

      // Used once: a second browser gets a page saying how to get a new link.
      await (await signedIn(link)).context().close();
      const spent = await (await browser.newContext()).newPage();
      const answer = await spent.goto(link);
      expect(answer?.status()).toBe(401);
      const page = spent.locator('[data-link-spent]');
      expect(await page.textContent()).toContain(
        'press Enter in the terminal that runs chokaq deck',
      );
      expect(await page.textContent()).toContain(`kill -USR2 ${child.pid}`);
      await spent.context().close();

      // Enter prints a fresh link, which signs in.
      child.process.stdin!.write('\n');
      const links = () => child.stdout.split('\n').filter((l) => l.startsWith('Sign in'));
      await waitFor(() => links().length === 2, { timeoutMs: 10_000, message: 'a second link' });
      const fresh = links()[1]!;
      const operator = await signedIn(fresh.slice(fresh.indexOf('http')));
      expect(await operator.locator('header').textContent()).toContain('operate');
      await operator.context().close();

      // Anonymous read by this machine's address; not by a name rebound to it.
      const port = new URL(url).port;
      expect(await statusFor(`127.0.0.1:${port}`, Number(port))).toEqual({ status: 200 });
      expect(await statusFor(`rebind.attacker.example:${port}`, Number(port))).toEqual({
        status: 403,
        code: 'CHOKAQ_DECK_HOST',
      });

      child.process.kill('SIGINT');
      expect((await child.exited).code).toBe(0);
    });
    it("changes a running worker's concurrency and a type's retries from the page, shows every circuit with its countdown, purges now", async () => {
      const breaking = root.defineJob({
        type: 'payments.capture.v1',
        queue: 'payments',
        circuit: { failureThreshold: 1, breakDuration: '5m' },
        handle: () => Promise.reject(new Error('gateway 503')),
      });
      const receipt = root.defineJob({
        type: 'payments.receipt.v1',
        queue: 'receipts',
        handle: () => undefined,
      });
      const payments = new root.ChokaQ({
        storage: postgres({ connectionString: TEST_DATABASE_URL, schema, poolSize: 2 }),
        jobs: [breaking, receipt],
        workerQueues: ['payments', 'receipts'],
        workerId: 'payments-worker',
        concurrency: 2,
        pollInterval: 50,
        logger: root.silentLogger,
      });
      await payments.start();
      try {
        await payments.enqueue(breaking, undefined);
        const page = await signedIn(`${origin}/${deck.signInLink({ actor: 'ines' })}`);
        await page.goto(`${origin}/#/system`);
        const circuit = page.locator('tr[data-circuit="payments.capture.v1"]');
        await expect
          .poll(() => circuit.getAttribute('data-circuit-state'), { timeout: 20_000 })
          .toBe('open');
        expect(await circuit.locator('[data-circuit-reset]').textContent()).toMatch(/^probe in \d/);
        // The whole type, as the job matrix and the failures name it.
        expect(await circuit.locator('td').first().textContent()).toBe('payments.capture.v1');

        const row = page.locator('tr[data-worker="payments-worker"]');
        await row.getByRole('button', { name: 'Concurrency…' }).click();
        const dialog = page.locator('dialog');
        await dialog.getByLabel('Concurrency').fill('7');
        await dialog.getByRole('button', { name: 'Review…' }).click();
        expect(await dialog.textContent()).toContain('at most 7 jobs at once instead of 2');
        await dialog.getByLabel('Reason').fill('drain the backlog');
        await dialog
          .getByRole('button', { name: 'Set the concurrency of payments-worker' })
          .click();
        await expect.poll(() => payments.configuration().concurrency).toBe(7);
        await expect
          .poll(() => row.locator('td.num').first().textContent(), { timeout: 15_000 })
          .toContain('/ 7');

        const retry = page.locator('[aria-label="Retry settings"]');
        // The types live workers run (the other tests' processes too), but ChokaQ's own
        // (chokaq.bulk.v1, which every worker runs) is not offered.
        const offered = await retry.getByLabel('Job type').locator('option').allTextContents();
        expect(offered).toEqual(
          expect.arrayContaining(['payments.capture.v1', 'payments.receipt.v1']),
        );
        expect(offered.filter((t) => t.startsWith('chokaq.'))).toEqual([]);
        await retry.getByLabel('Job type').selectOption('payments.capture.v1');
        await retry.getByLabel('Max attempts').fill('one');
        expect(await retry.locator('p.error').textContent()).toBe(
          'Max attempts must be a whole number from 1 to 1,000,000.',
        );
        expect(await retry.getByRole('button', { name: 'Apply…' }).isDisabled()).toBe(true);
        await retry.getByLabel('Max attempts').fill('1');
        await retry.getByRole('button', { name: 'Apply…' }).click();
        expect(await dialog.textContent()).toContain('at most 1 runs in all');
        await dialog
          .getByRole('button', { name: 'Change the retries of payments.capture.v1' })
          .click();
        await expect
          .poll(async () => (await chokaq.audit.list())[0])
          .toMatchObject({
            action: 'retry-update',
            actor: 'ines',
            outcome: { retry: { maxAttempts: 1 } },
          });

        // Three receipts past their queue's one second: previewed, confirmed with a reason, gone.
        await payments.enqueueMany(
          receipt,
          Array.from({ length: 3 }, () => ({ payload: undefined })),
        );
        await waitFor(
          async () =>
            (await chokaq.jobs.count({ state: 'succeeded', queue: 'receipts' })).count === 3,
          { timeoutMs: 15_000, message: 'three archived receipts' },
        );
        const retention = page.locator('[aria-label="Retention"]');
        const preview = retention.locator('[data-purge-preview]');
        await expect
          .poll(
            async () => {
              if (
                (await preview.count()) === 0 ||
                (await preview.getAttribute('data-purge-preview')) === '0'
              ) {
                await page.reload();
                await retention.getByRole('button', { name: 'Preview the purge…' }).click();
              }
              return preview.getAttribute('data-purge-preview');
            },
            { timeout: 15_000 },
          )
          .toBe('3');
        expect(await preview.textContent()).toContain(
          '3 rows of archive (queue receipts) older than 1.0 s',
        );
        await retention.getByRole('button', { name: 'Purge 3 rows now…' }).click();
        expect(await dialog.textContent()).toContain('deleted now, for good');
        await dialog.getByLabel('Reason').fill('disk at 90 %');
        await dialog.getByRole('button', { name: 'Purge 3 rows now' }).click();
        await expect
          .poll(() => retention.locator('[data-purged]').getAttribute('data-purged'))
          .toBe('3');
        expect((await chokaq.jobs.count({ state: 'succeeded', queue: 'receipts' })).count).toBe(0);
        expect((await chokaq.audit.list())[0]).toMatchObject({
          action: 'retention-purge',
          actor: 'ines',
          reason: 'disk at 90 %',
        });
        await page.context().close();
      } finally {
        await payments.stop();
      }
    });
  },
);

describe.skipIf(!chromiumThere)('The Deck of `chokaq demo`: the type is known there', () => {
  const children: Child[] = [];
  let dir = '';
  let browser: Browser;

  beforeAll(async () => {
    requireDist(['dist/cli/main.js', 'dist/deck/ui/app.js']);
    dir = await mkdtemp(join(tmpdir(), 'chokaq-deck-demo-'));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await killAll(children, 10_000);
    await browser?.close();
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  it('edits a dead sample job with its schema known, and saves and resurrects it in one step', async () => {
    const demo = spawnNode(
      'chokaq demo',
      ['dist/cli/main.js', 'demo', '--data-dir', join(dir, 'store'), '--port', '0'],
      {},
    );
    children.push(demo);
    const line = await demo.waitForLine('Sign in', 60_000);
    const page = await (
      await browser.newContext({ viewport: { width: 1280, height: 720 } })
    ).newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(line.slice(line.indexOf('http')));
    await page.waitForSelector('.shell');
    const base = page.url().replace(/#.*$/, '');
    // The demo's poison jobs reach the DLQ within seconds.
    await page.goto(`${base}#/jobs/dlq`);
    const first = page.locator('tr[data-job]').first();
    await expect.poll(() => first.count(), { timeout: 30_000 }).toBe(1);
    const id = (await first.getAttribute('data-job'))!;
    await page.goto(`${base}#/job/${id}`);
    await page.getByRole('button', { name: 'Edit…' }).click();
    const editor = page.locator('dialog');
    await editor.getByLabel('Tags', { exact: true }).fill('replayed');
    expect(await editor.locator('.json-only').count()).toBe(0);
    await editor.getByRole('button', { name: 'Save and resurrect' }).click();
    await expect
      .poll(() => page.locator('.toast').allTextContents())
      .toContain('Saved and resurrected');
    const state = await page.evaluate(
      async (jobId) =>
        (
          (await (await fetch(`api/jobs/${jobId}`)).json()) as {
            found: { where: string; job: { tags: string } };
          }
        ).found,
      id,
    );
    // Back in the hot table (or already run and dead again: the sample is poison by design).
    expect(state.job.tags).toBe('replayed');
    const audit = await page.evaluate(
      async () => (await (await fetch('api/audit')).json()) as { action: string }[],
    );
    expect(audit.slice(0, 2).map((e) => e.action)).toEqual(['resurrect', 'dlq-edit']);
    await page.context().close();
    demo.process.kill('SIGINT');
    expect((await demo.exited).code).toBe(0);
  }, 120_000);
});
