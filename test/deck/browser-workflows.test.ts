/**
 * A workflow in The Deck, in a real browser, from the built package: the Active tab counts and
 * shows an awaiting job (due after its dependencies), its page lists what it waits for with each
 * job's state and death policy, and a dependency's page links back to the job waiting for it.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as DeckModule from '../../src/deck/index.js';
import type * as Root from '../../src/index.js';
import { ROOT, requireDist } from '../fixtures/crash-process.js';
import { waitFor } from '../helpers/wait.js';
import { chromiumThere, launchChromium } from '../helpers/chromium.js';
import { serveDeck, type ServedDeck } from '../helpers/deck-server.js';

describe.skipIf(!chromiumThere)('a workflow in The Deck (browser)', () => {
  let chokaq: Root.ChokaQ;
  let deck: DeckModule.DeckHandler;
  let served: ServedDeck | undefined;
  let browser: Browser;
  let base = '';
  let done = '';
  let later = '';
  let parent = '';

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/deck/index.js', 'dist/deck/ui/app.js']);
    const root = (await import(`${ROOT}dist/index.js`)) as typeof Root;
    const { createDeck } = (await import(`${ROOT}dist/deck/index.js`)) as typeof DeckModule;
    const resize = root.defineJob({
      type: 'image.resize.v1',
      queue: 'images',
      handle: (payload: { width: number }) => ({ width: payload.width }),
    });
    const publish = root.defineJob({
      type: 'album.publish.v1',
      queue: 'albums',
      handle: () => undefined,
    });
    chokaq = new root.ChokaQ({
      storage: root.memory(),
      jobs: [resize, publish],
      pollInterval: 50,
      logger: root.silentLogger,
    });
    await chokaq.start();
    await chokaq.enqueueWorkflow((workflow) => {
      done = workflow.add(resize, { width: 320 });
      later = workflow.add(resize, { width: 640 }, { delay: '1h' });
      parent = workflow.add(
        publish,
        { album: 'cats' },
        { dependsOn: [done, { id: later, onDeath: 'skip' }] },
      );
    });
    await waitFor(async () => (await chokaq.jobs.get(done))?.state === 'succeeded', {
      timeoutMs: 15_000,
      message: 'the first dependency to succeed',
    });
    deck = createDeck({ chokaq, feedInterval: 250 });
    served = await serveDeck(deck);
    base = served.base;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await chokaq?.stop();
  });

  async function signedIn(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(`${base}${deck.signInLink({ access: 'read', actor: 'workflow-test' })}`);
    await page.waitForSelector('.shell');
    return page;
  }

  it('shows an awaiting job, what it waits for, and who waits for a job', async () => {
    const page = await signedIn();
    await page.goto(`${base}#/jobs/active`);
    const chip = page.locator('[data-state-chip="awaiting"] [data-chip-count]');
    await expect.poll(() => chip.textContent(), { timeout: 15_000 }).toBe('1');
    const row = page.locator('tr[data-job]', { hasText: 'album.publish.v1' });
    expect(await row.locator('.pill').textContent()).toBe('awaiting');
    expect(await row.locator('[data-run-at]').textContent()).toBe('after its dependencies');

    await page.goto(`${base}#/job/${parent}`);
    const waitsFor = page.getByRole('list', { name: 'Waits for' }).locator('li');
    await expect.poll(() => waitsFor.count(), { timeout: 15_000 }).toBe(2);
    expect(await waitsFor.allTextContents()).toEqual([
      `${done} · succeeded · on death: fail`,
      `${later} · scheduled · on death: skip`,
    ]);

    await waitsFor.first().locator('a').click();
    const waitedBy = page.getByRole('list', { name: 'Waited for by' });
    await expect.poll(() => waitedBy.textContent(), { timeout: 15_000 }).toBe(parent);
    expect(page.url()).toContain(`#/job/${done}`);
  });
});
