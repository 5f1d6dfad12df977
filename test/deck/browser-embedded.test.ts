/**
 * The Deck on the embedded store, in a real browser: mounted under a prefix inside the process
 * that holds the PGlite folder (as docs/deck.md says it must be), from the built package in
 * dist/. The overview and the job matrix show the jobs that ran, failed and wait there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as DeckModule from '../../src/deck/index.js';
import type * as Root from '../../src/index.js';
import type * as Embedded from '../../src/storage/embedded/index.js';
import { ROOT, requireDist } from '../fixtures/crash-process.js';
import { waitFor } from '../helpers/wait.js';
import { chromiumThere, launchChromium } from '../helpers/chromium.js';

const SUCCEEDED = 12;
const FAILED = 7;
const WAITING = 3;

describe.skipIf(!chromiumThere)('The Deck in a browser (embedded store)', () => {
  let dataDir = '';
  let chokaq: Root.ChokaQ;
  let deck: DeckModule.DeckHandler;
  let server: http.Server;
  let browser: Browser;
  let base = '';

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/storage/embedded/index.js', 'dist/deck/ui/app.js']);
    const root = (await import(`${ROOT}dist/index.js`)) as typeof Root;
    const { embedded } = (await import(`${ROOT}dist/storage/embedded/index.js`)) as typeof Embedded;
    const { createDeck } = (await import(`${ROOT}dist/deck/index.js`)) as typeof DeckModule;
    dataDir = await mkdtemp(join(tmpdir(), 'chokaq-deck-embedded-'));
    const invoice = root.defineJob({
      type: 'invoice.render.v1',
      queue: 'billing',
      handle: (payload: { n: number }) =>
        payload.n < 0
          ? Promise.reject(new root.FatalError('template missing for customer'))
          : Promise.resolve({ pages: payload.n }),
    });
    chokaq = new root.ChokaQ({
      storage: embedded({ dataDir }),
      jobs: [invoice],
      pollInterval: 50,
      logger: root.silentLogger,
      clusterEvents: { interval: 100 },
    });
    await chokaq.start();
    await chokaq.enqueueMany(invoice, [
      ...Array.from({ length: SUCCEEDED }, (_, k) => ({ payload: { n: k + 1 } })),
      ...Array.from({ length: FAILED }, (_, k) => ({ payload: { n: -(k + 1) } })),
    ]);
    await chokaq.enqueueMany(
      invoice,
      Array.from({ length: WAITING }, (_, k) => ({ payload: { n: 100 + k }, delay: '1h' })),
    );
    await waitFor(
      async () => {
        const [billing] = (await chokaq.queues.stats()).filter((q) => q.queue === 'billing');
        return billing?.archived === SUCCEEDED && billing.dead === FAILED;
      },
      { timeoutMs: 30_000, message: 'the embedded jobs to finish' },
    );
    // The app that holds the store serves The Deck under its own prefix.
    deck = createDeck({ chokaq, basePath: '/admin/jobs', feedInterval: 250 });
    server = http.createServer((req, res) => {
      if (req.url?.startsWith('/admin/jobs')) return deck(req, res);
      res.end('the app');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin/jobs/`;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    deck?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await chokaq?.stop();
    if (dataDir !== '') await rm(dataDir, { recursive: true, force: true });
  });

  async function signedIn(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(`${base}${deck.signInLink({ access: 'operate', actor: 'embedded-test' })}`);
    await page.waitForSelector('.shell');
    return page;
  }

  it('shows the overview and the job matrix with the jobs of the embedded store', async () => {
    const page = await signedIn();
    const card = (label: string) =>
      page.locator('.stat', { hasText: label }).locator('.card-value');
    await expect.poll(() => card('Dead (DLQ)').textContent(), { timeout: 15_000 }).toBe('7');
    await expect.poll(() => card('Scheduled').textContent()).toBe('3');

    await page.goto(`${base}#/jobs/archive`);
    await expect.poll(() => page.locator('[data-count]').textContent()).toBe('12 jobs');
    expect(await page.locator('tr[data-job]').count()).toBe(SUCCEEDED);
    await page.goto(`${base}#/jobs/dlq`);
    await expect.poll(() => page.locator('tr[data-job]').count()).toBe(FAILED);
    expect(await page.locator('tr[data-job]').first().textContent()).toContain(
      'template missing for customer',
    );
    await page.goto(`${base}#/jobs/active`);
    await expect.poll(() => page.locator('tr[data-job]').count()).toBe(WAITING);
    expect(await page.locator('tr[data-job] .pill').allTextContents()).toEqual([
      'scheduled',
      'scheduled',
      'scheduled',
    ]);

    // Counts by state that filter.
    const chip = (state: string) => page.locator(`[data-state-chip="${state}"] [data-chip-count]`);
    await expect.poll(() => chip('dead').textContent()).toBe(String(FAILED));
    expect(await chip('succeeded').textContent()).toBe(String(SUCCEEDED));
    expect(await chip('scheduled').textContent()).toBe(String(WAITING));
    expect(await chip('pending').textContent()).toBe('0');

    // A change from the page reaches the store and comes back: a cancel from the selection bar.
    await page.locator('tr[data-job] input[type=checkbox]').first().check();
    await page.locator('.bulk-bar').getByRole('button', { name: 'Cancel…' }).click();
    const dialog = page.locator('dialog');
    await dialog.getByLabel('Confirmation count').fill('1');
    await dialog.getByLabel('Reason').fill('not needed');
    await dialog.getByRole('button', { name: 'Cancel 1 jobs' }).click();
    await expect
      .poll(() => dialog.locator('[data-bulk-status]').getAttribute('data-bulk-status'), {
        timeout: 30_000,
      })
      .toBe('succeeded');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => page.locator('tr[data-job]').count(), { timeout: 10_000 }).toBe(2);
    expect((await chokaq.jobs.count({ state: 'dead' })).count).toBe(FAILED + 1);
    await page.context().close();
  });
});
