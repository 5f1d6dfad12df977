/**
 * Durable steps in The Deck, in a real browser: a job that recorded a step, received an event
 * and sleeps shows each step in its timeline (kind, name, state, result, the sleep's end), live.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as DeckModule from '../../src/deck/index.js';
import type * as Root from '../../src/index.js';
import { ROOT, requireDist } from '../fixtures/crash-process.js';
import { waitFor } from '../helpers/wait.js';
import { chromiumThere, launchChromium } from '../helpers/chromium.js';
import { serveDeck, type ServedDeck } from '../helpers/deck-server.js';

describe.skipIf(!chromiumThere)('durable steps in The Deck (browser)', () => {
  let chokaq: Root.ChokaQ;
  let deck: DeckModule.DeckHandler;
  let served: ServedDeck | undefined;
  let browser: Browser;
  let base = '';
  let id = '';

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/deck/index.js', 'dist/deck/ui/app.js']);
    const root = (await import(`${ROOT}dist/index.js`)) as typeof Root;
    const { createDeck } = (await import(`${ROOT}dist/deck/index.js`)) as typeof DeckModule;
    const approve = root.defineJob<{ invoice: string }>({
      type: 'invoice.approve.v1',
      async handle({ invoice }, ctx) {
        await ctx.step('notify', () => ({ invoice, to: 'ann' }));
        await ctx.waitForEvent('decision', 'approval', { timeout: '3d' });
        await ctx.sleep('cooling-off', '1h');
      },
    });
    chokaq = new root.ChokaQ({
      storage: root.memory(),
      jobs: [approve],
      pollInterval: 50,
      logger: root.silentLogger,
    });
    await chokaq.start();
    ({ id } = await chokaq.enqueue(approve, { invoice: 'INV-7' }));
    const stepsOf = async (): Promise<number> => (await chokaq.jobs.get(id))?.steps.length ?? 0;
    await waitFor(async () => (await stepsOf()) === 2, { timeoutMs: 15_000, message: 'the wait' });
    await chokaq.sendEvent(id, 'approval', { approved: true });
    await waitFor(async () => (await stepsOf()) === 3, { timeoutMs: 15_000, message: 'the sleep' });
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

  it("shows each step in the job's timeline with its state and result", async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    await page.goto(`${base}${deck.signInLink({ access: 'read', actor: 'steps-test' })}`);
    await page.waitForSelector('.shell');
    await page.goto(`${base}#/job/${id}`);
    const steps = page.locator('ol.timeline li[data-step]');
    await expect.poll(() => steps.count(), { timeout: 15_000 }).toBe(3);
    const texts = (await steps.allTextContents()).map((text) => text.replace(/\s+/g, ' '));
    expect(texts[0]).toMatch(/^Step notify · done · .*\{"invoice":"INV-7","to":"ann"\}$/);
    expect(texts[1]).toMatch(
      /^Wait decision for an event on approval · done · .*\{"received":true,"data":\{"approved":true\}\}$/,
    );
    expect(texts[2]).toMatch(/^Sleep cooling-off · sleeping until .*\(in \d+ min\)/);
    // The runs the wait and the sleep ended are in the timeline as suspended.
    const suspended = page.locator('ol.timeline li', { hasText: 'suspended' });
    expect(await suspended.count()).toBe(2);
    await page.close();
  });
});
