/**
 * The Deck in a real browser (Debian's Chromium through playwright-core) against PostgreSQL,
 * as a user gets it: the built package from dist/, its front end and its server. Each panel shows
 * what is in storage; actions reach storage and come back live; read-only users see no control
 * that changes anything and get 403; a cross-site page cannot change anything; a 10,000-job error
 * group is resurrected through preview, typed confirmation, progress and completion.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as DeckModule from '../../src/deck/index.js';
import type * as Root from '../../src/index.js';
import type * as Postgres from '../../src/storage/postgres/index.js';
import { ROOT, requireDist } from '../fixtures/crash-process.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';
import { CHROMIUM, chromiumThere, launchChromium } from '../helpers/chromium.js';

const pgUp = await postgresAvailable();
if (!chromiumThere) console.warn(`\n!!! SKIPPING browser tests: ${CHROMIUM} is missing\n`);

const GROUP_SIZE = 10_000;
const READ_TOKEN = 'deck-browser-read-token';

describe.skipIf(!pgUp || !chromiumThere)('The Deck in a browser (PostgreSQL)', () => {
  const schema = uniqueSchema('deckui');
  let chokaq: Root.ChokaQ;
  let deck: DeckModule.DeckHandler;
  let browser: Browser;
  let origin = '';
  /** Every API answer the server sent: `METHOD path status`. */
  const answers: string[] = [];
  const servers: http.Server[] = [];
  /** Whether the sample job fails (it does until the "fix" is deployed). */
  const broken = { now: true };

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/deck/index.js', 'dist/deck/ui/app.js']);
    const root = (await import(`${ROOT}dist/index.js`)) as typeof Root;
    const { postgres } = (await import(`${ROOT}dist/storage/postgres/index.js`)) as typeof Postgres;
    const { createDeck } = (await import(`${ROOT}dist/deck/index.js`)) as typeof DeckModule;
    const send = root.defineJob({
      type: 'mail.send.v1',
      queue: 'mail',
      handle: (payload: { to: string }) =>
        broken.now
          ? Promise.reject(new root.FatalError('smtp 550: mailbox unavailable'))
          : Promise.resolve({ sent: payload.to }),
    });
    chokaq = new root.ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, poolSize: 6 }),
      jobs: [send],
      concurrency: 64,
      pollInterval: 100,
      logger: root.silentLogger,
      clusterEvents: { interval: 100 },
    });
    await chokaq.start();
    for (let start = 0; start < GROUP_SIZE; start += 5000) {
      await chokaq.enqueueMany(
        send,
        Array.from({ length: 5000 }, (_, k) => ({
          payload: { to: `user${start + k}@example.com` },
        })),
      );
    }
    await waitFor(async () => (await chokaq.jobs.count({ state: 'dead' })).count === GROUP_SIZE, {
      timeoutMs: 120_000,
      message: 'the seeded jobs in the DLQ',
    });
    // Never due during the test (the next 1 January); only shown, paused and resumed.
    await chokaq.schedules.add({
      name: 'new-year-digest',
      job: send,
      cron: '0 0 1 1 *',
      timeZone: 'Europe/Berlin',
      payload: { to: 'digest@example.com' },
    });
    deck = createDeck({
      chokaq,
      tokens: [{ token: READ_TOKEN, access: 'read' }],
      feedInterval: 250,
      environment: 'browser-test',
    });
    const server = http.createServer((req, res) => {
      res.on('finish', () => {
        if (req.url?.startsWith('/api/'))
          answers.push(`${req.method} ${req.url.split('?')[0]} ${res.statusCode}`);
      });
      deck(req, res);
    });
    servers.push(server);
    origin = await listen(server);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    deck?.close();
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await chokaq?.stop();
    await dropSchema(schema);
  });

  /** A fresh browser context signed in with a one-time link of `access`. */
  async function signedIn(access: 'read' | 'operate', actor = 'ui-test'): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(`${origin}/${deck.signInLink({ access, actor })}`);
    await page.waitForSelector('.shell');
    return page;
  }

  it('refuses a browser that has not signed in, and shows it the sign-in form', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${origin}/`);
    await page.waitForSelector('form.sign-in');
    const status = await page.evaluate(async () => (await fetch('api/status')).status);
    expect(status).toBe(401);
    await page.context().close();
  });

  it('shows the state of storage on every panel', async () => {
    const page = await signedIn('operate');
    const dead = page.locator('.stat', { hasText: 'Dead (DLQ)' }).locator('.card-value');
    await expect.poll(() => dead.textContent(), { timeout: 15_000 }).toBe('10,000');
    await page.goto(`${origin}/#/queues`);
    await expect
      .poll(() => page.locator('tr[data-queue="mail"] td').nth(8).textContent())
      .toBe('10,000');
    await page.goto(`${origin}/#/jobs/dlq`);
    await expect.poll(() => page.locator('[data-count]').textContent()).toContain('10,000');
    expect(await page.locator('tr[data-job]').count()).toBe(50);
    const firstId = await page.locator('tr[data-job]').first().getAttribute('data-job');
    await page.locator('tr[data-job] a').first().click();
    await page.waitForSelector('ol.timeline');
    expect(page.url()).toContain(`#/job/${firstId}`);
    expect(await page.locator('[data-state]').textContent()).toBe('dead');
    expect(await page.locator('ol.timeline').textContent()).toContain('mailbox unavailable');
    await page.goto(`${origin}/#/inbox`);
    const group = page.locator('article.group');
    await expect.poll(() => group.locator('[data-group-count]').textContent()).toBe('10,000');
    // The group's trend: its 10,000 jobs all joined within the last hours.
    const trend = group.locator('[data-group-trend]');
    await expect
      .poll(async () =>
        (await trend.getAttribute('data-group-trend'))
          ?.split(',')
          .reduce((sum, n) => sum + Number(n), 0),
      )
      .toBe(GROUP_SIZE);
    expect(await trend.locator('svg.sparkline rect').count()).toBe(24);
    // Joined: the group's count is what is still in it, which a resurrect lowers.
    expect(await trend.textContent()).toContain('10,000 joined in the last 24 h');
    // Every job joined in the last hours: there is no usual rate to be rising against.
    expect(await trend.locator('.trend').textContent()).toMatch(/\(new\)$/);
    await page.goto(`${origin}/#/system`);
    await expect.poll(() => page.locator('table[aria-label="Workers"] tbody tr').count()).toBe(1);
    await page.goto(`${origin}/#/schedules`);
    const schedule = page.locator('tr[data-schedule="new-year-digest"]');
    await expect.poll(() => schedule.locator('[data-cron]').textContent()).toBe('0 0 1 1 *');
    expect(await schedule.textContent()).toContain('Europe/Berlin');
    expect(await schedule.locator('[data-next-run]').textContent()).toMatch(/^in /);
    // Never due during the test: a key in use, shown with its limit.
    const keyed = await chokaq.enqueue(
      'mail.send.v1',
      { to: 'tenant@example.com' },
      { delay: '1h', concurrencyKey: 'tenant-42', concurrencyLimit: 2 },
    );
    await page.goto(`${origin}/#/flow`);
    const key = page.locator('tr[data-key="tenant-42"]');
    await expect.poll(() => key.locator('[data-usage]').textContent()).toBe('0 / 2');
    expect(await key.textContent()).toContain('mail');
    await page.goto(`${origin}/#/job/${keyed.id}`);
    await expect
      .poll(() => page.locator('[data-concurrency-key]').textContent())
      .toBe('tenant-42 (limit 2)');
    await page.goto(`${origin}/#/settings`);
    const engine = page.locator('dl[aria-label="Engine"]');
    await expect.poll(() => engine.textContent()).toContain('postgres');
    expect(await engine.textContent()).toContain('mail.send.v1 (mail)');
    expect(await page.locator('dl[aria-label="The Deck"]').textContent()).toContain('browser-test');
    expect(await page.locator('tr[data-queue-settings="mail"]').count()).toBe(1);
    const text = (await page.locator('main').textContent()) ?? '';
    for (const secret of [READ_TOKEN, TEST_DATABASE_URL]) expect(text).not.toContain(secret);
    await page.context().close();
  });

  it('pauses and resumes a schedule from the page, audited', async () => {
    const page = await signedIn('operate', 'gina');
    await page.goto(`${origin}/#/schedules`);
    const row = page.locator('tr[data-schedule="new-year-digest"]');
    await row.getByRole('button', { name: 'Pause…' }).click();
    // Said first, with a reason for the audit trail, as queue controls are.
    const confirm = page.locator('dialog');
    expect(await confirm.textContent()).toContain('No process fires new-year-digest');
    await confirm.getByLabel('Reason').fill('holiday freeze');
    await confirm.getByRole('button', { name: 'Pause new-year-digest' }).click();
    await expect
      .poll(async () => (await chokaq.schedules.get('new-year-digest'))?.paused)
      .toBe(true);
    await expect.poll(() => row.locator('.pill').textContent()).toBe('paused');
    expect(await row.locator('[data-next-run]').textContent()).toBe('—');
    await row.getByRole('button', { name: 'Resume…' }).click();
    await confirm.getByRole('button', { name: 'Resume new-year-digest' }).click();
    await expect
      .poll(async () => (await chokaq.schedules.get('new-year-digest'))?.paused)
      .toBe(false);
    await expect.poll(() => row.locator('.pill').textContent()).toBe('active');
    await expect
      .poll(async () => (await chokaq.audit.list()).slice(0, 2).map((e) => [e.action, e.actor]))
      .toEqual([
        ['schedule-resume', 'gina'],
        ['schedule-pause', 'gina'],
      ]);
    expect((await chokaq.audit.list())[1]?.reason).toBe('holiday freeze');
    await page.context().close();
  });

  it('moves through the job matrix by keyboard: j / k, x, Esc, Enter and back', async () => {
    const page = await signedIn('operate');
    await page.goto(`${origin}/#/jobs/dlq`);
    const rows = page.locator('tr[data-job]');
    await expect.poll(() => rows.count()).toBe(50);
    const cursorId = () => page.locator('tr[data-cursor]').getAttribute('data-job');
    const idAt = (k: number) => rows.nth(k).getAttribute('data-job');
    expect(await cursorId()).toBe(await idAt(0));
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    expect(await cursorId()).toBe(await idAt(2));
    await page.keyboard.press('x');
    expect(await rows.nth(2).locator('input[type=checkbox]').isChecked()).toBe(true);
    expect(await page.locator('.bulk-bar').textContent()).toContain('1 selected');
    await page.keyboard.press('Escape');
    expect(await rows.nth(2).locator('input[type=checkbox]').isChecked()).toBe(false);
    const third = await idAt(2);
    await page.keyboard.press('Enter');
    await page.waitForSelector('ol.timeline');
    expect(page.url()).toContain(`#/job/${third}`);
    await page.keyboard.press('Escape');
    await page.waitForSelector('tr[data-job]');
    expect(page.url()).toContain('#/jobs/dlq');
    await expect.poll(cursorId).toBe(third);
    await page.context().close();
  });

  it('acts on single rows of the job matrix (resurrect, edit), and cancels and purges from the selection bar', async () => {
    const page = await signedIn('operate', 'hana');
    await page.goto(`${origin}/#/jobs/dlq`);
    const first = page.locator('tr[data-job]').first();
    const id = (await first.getAttribute('data-job'))!;
    await first.getByRole('button', { name: 'Resurrect', exact: true }).click();
    await expect
      .poll(async () => (await chokaq.audit.list())[0])
      .toMatchObject({ action: 'resurrect', actor: 'hana', target: { ids: [id] } });
    // Still broken: it fails again, back into its group.
    await waitFor(async () => (await chokaq.jobs.count({ state: 'dead' })).count === GROUP_SIZE, {
      timeoutMs: 30_000,
      message: 'the resurrected job back in the DLQ',
    });

    const later = await chokaq.enqueue(
      'mail.send.v1',
      { to: 'later@example.com' },
      { delay: '1h' },
    );
    await page.goto(`${origin}/#/jobs/active`);
    const row = page.locator(`tr[data-job="${later.id}"]`);
    await row.getByRole('button', { name: 'Edit…' }).click();
    const editor = page.locator('dialog');
    await editor.getByLabel('Tags').fill('vip');
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await chokaq.jobs.get(later.id))?.found.job.tags).toBe('vip');
    // Destructive actions are not on the rows: they go through the selection bar's preview.
    expect(await row.getByRole('button', { name: /Cancel|Purge/ }).count()).toBe(0);
    await runFromBar(page, later.id, 'Cancel');
    await expect.poll(async () => (await chokaq.jobs.get(later.id))?.found.where).toBe('dlq');

    await page.goto(
      `${origin}/#/jobs/dlq?q=${encodeURIComponent(JSON.stringify({ reason: 'Cancelled' }))}`,
    );
    await runFromBar(page, later.id, 'Purge');
    await expect.poll(async () => await chokaq.jobs.get(later.id)).toBeNull();
    // The entry is written after the purge itself (and before The Deck answers): wait for it.
    await expect
      .poll(async () => (await chokaq.audit.list()).find((e) => e.action.startsWith('bulk-purge')))
      .toMatchObject({ actor: 'hana' });

    await page.goto(`${origin}/#/jobs/archive`);
    await page.waitForSelector('main h1');
    expect(await page.getByRole('button', { name: 'Resurrect', exact: true }).count()).toBe(0);
    await page.context().close();
  });

  it('pauses a queue from the page, and shows a change made elsewhere without a reload', async () => {
    const page = await signedIn('operate', 'dana');
    await page.goto(`${origin}/#/queues`);
    const row = page.locator('tr[data-queue="mail"]');
    await row.getByRole('button', { name: 'Pause…' }).click();
    // Confirmed first, with a reason for the audit trail.
    const confirm = page.locator('dialog');
    expect(await confirm.textContent()).toContain('No process claims jobs of mail');
    await confirm.getByLabel('Reason').fill('smtp relay down');
    await confirm.getByRole('button', { name: 'Pause mail' }).click();
    await expect
      .poll(async () => (await chokaq.queues.list()).find((q) => q.name === 'mail')?.paused)
      .toBe(true);
    await expect
      .poll(async () => (await chokaq.audit.list())[0])
      .toMatchObject({ actor: 'dana', reason: 'smtp relay down', outcome: { paused: true } });
    await expect.poll(() => row.locator('.pill').textContent()).toBe('paused');
    // Resumed by another client: the page hears it over the live feed.
    await chokaq.queues.resume('mail', { actor: 'elsewhere' });
    await expect.poll(() => row.locator('.pill').textContent(), { timeout: 10_000 }).toBe('active');
    await page.context().close();
  });

  it('shows a read-only user no control that changes anything, and refuses its changes with 403', async () => {
    const page = await signedIn('read');
    for (const hash of ['#/queues', '#/jobs/dlq', '#/jobs/active', '#/inbox', '#/schedules']) {
      await page.goto(`${origin}/${hash}`);
      await page.waitForSelector('main h1');
      await page.waitForTimeout(500);
      for (const name of [
        'Pause',
        'Resume',
        'Pause…',
        'Resume…',
        'Deactivate (stop claims)…',
        'Activate…',
        'Resurrect group…',
        'Purge group…',
        'Resurrect…',
        'Purge…',
        'Limits…',
        'Resurrect',
        'Purge',
        'Cancel',
        'Edit…',
      ]) {
        expect(
          await page.getByRole('button', { name, exact: true }).count(),
          `${hash} ${name}`,
        ).toBe(0);
      }
      expect(await page.locator('input[type=checkbox]').count()).toBe(0);
    }
    const statuses = await page.evaluate(async () => {
      const session = (await (await fetch('api/session')).json()) as { csrf: string };
      const paths = ['queues/mail/pause', 'dlq/purge', 'bulk/preview', 'jobs/cancel'];
      return Promise.all(
        paths.map(
          async (p) =>
            (
              await fetch(`api/${p}`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-chokaq-csrf': session.csrf },
                body: JSON.stringify({ ids: ['x'], action: 'purge', target: { ids: ['x'] } }),
              })
            ).status,
        ),
      );
    });
    expect(statuses).toEqual([403, 403, 403, 403]);
    await page.context().close();
  });

  it('lets no page of another origin change anything, even with the session cookie', async () => {
    const page = await signedIn('operate');
    // Another origin on the same host: same site, so the browser does send the session cookie.
    const evil = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<form id=f method=post action="${origin}/api/queues/mail/pause" enctype="text/plain">
        <input name='{"reason":"x' value='"}'><button id=go>go</button></form>`);
    });
    servers.push(evil);
    const evilOrigin = await listen(evil);
    await page.goto(evilOrigin);
    const before = answers.length;
    await page.evaluate(async (target) => {
      await fetch(`${target}/api/queues/mail/pause`, {
        method: 'POST',
        mode: 'no-cors',
        credentials: 'include',
        headers: { 'content-type': 'text/plain' },
        body: '{}',
      }).catch(() => undefined);
    }, origin);
    await Promise.all([page.waitForNavigation(), page.click('#go')]);
    await waitFor(() => answers.length >= before + 2, { timeoutMs: 5000 });
    expect(answers.slice(before)).toEqual([
      'POST /api/queues/mail/pause 403',
      'POST /api/queues/mail/pause 403',
    ]);
    expect((await chokaq.queues.list()).find((q) => q.name === 'mail')?.paused).toBe(false);
    await page.context().close();
  });

  it('resurrects a 10,000-job error group: preview, typed confirmation, progress, done', async () => {
    broken.now = false; // the fix is deployed
    const page = await signedIn('operate', 'frank');
    await page.goto(`${origin}/#/inbox`);
    await page.getByRole('button', { name: 'Resurrect group…' }).click();
    const dialog = page.locator('dialog');
    await expect
      .poll(() => dialog.locator('[data-preview-count]').getAttribute('data-preview-count'), {
        timeout: 30_000,
      })
      .toBe(String(GROUP_SIZE));
    const run = dialog.getByRole('button', { name: 'Resurrect 10,000 jobs' });
    expect(await run.isDisabled()).toBe(true);
    await dialog.getByLabel('Confirmation count').fill('10000');
    await dialog.getByLabel('Reason').fill('smtp fixed');
    await run.click();
    await dialog.locator('progress').waitFor();
    await expect
      .poll(() => dialog.locator('[data-bulk-status]').getAttribute('data-bulk-status'), {
        timeout: 120_000,
      })
      .toBe('succeeded');
    expect(await dialog.textContent()).toContain('10,000 applied');
    // Queue stats count exactly (a count over 10,000 rows may be the planner's estimate).
    const archived = async () =>
      (await chokaq.queues.stats()).find((q) => q.queue === 'mail')?.archived;
    await waitFor(async () => (await archived()) === GROUP_SIZE, {
      timeoutMs: 120_000,
      message: 'the resurrected jobs to succeed',
    });
    const entry = (await chokaq.audit.list()).find((e) => e.action === 'bulk-resurrect-start');
    expect(entry).toMatchObject({ actor: 'frank', reason: 'smtp fixed' });
    await page.context().close();
  }, 300_000);
});

/** Selects job `id`'s row, then runs `verb` on it from the selection bar's preview. */
async function runFromBar(page: Page, id: string, verb: 'Cancel' | 'Purge'): Promise<void> {
  await page.locator(`tr[data-job="${id}"] input[type=checkbox]`).check();
  await page
    .locator('.bulk-bar')
    .getByRole('button', { name: `${verb}…` })
    .click();
  const dialog = page.locator('dialog');
  await dialog.getByLabel('Confirmation count').fill('1');
  await dialog.getByLabel('Reason').fill('not needed');
  await dialog.getByRole('button', { name: `${verb} 1 jobs` }).click();
  await expect
    .poll(() => dialog.locator('[data-bulk-status]').getAttribute('data-bulk-status'), {
      timeout: 30_000,
    })
    .toBe('succeeded');
  await dialog.getByRole('button', { name: 'Close' }).click();
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
