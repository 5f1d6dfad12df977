/**
 * The flow graph on a job's page, in a real browser, from the built package: a fan-out and
 * fan-in with a dead child and an awaiting parent is drawn with each job's state as text and
 * class, the page's job marked, an arrow per dependency (dashed under `skip`), its text
 * alternative lists the dependencies, a job's box is a link reached by Tab and Enter, the graph
 * follows the live feed, and a flow past The Deck's bound says so.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as DeckModule from '../../src/deck/index.js';
import type * as Root from '../../src/index.js';
import { ROOT, requireDist } from '../fixtures/crash-process.js';
import { waitFor } from '../helpers/wait.js';
import { chromiumThere, launchChromium } from '../helpers/chromium.js';
import { serveDeck, type ServedDeck } from '../helpers/deck-server.js';

describe.skipIf(!chromiumThere)('the flow graph in The Deck (browser)', () => {
  let chokaq: Root.ChokaQ;
  let deck: DeckModule.DeckHandler;
  let served: ServedDeck | undefined;
  let browser: Browser;
  let base = '';
  const ids = {
    fetch: '',
    small: '',
    broken: '',
    later: '',
    merge: '',
    publish: '',
    notify: '',
    big: '',
  };

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/deck/index.js', 'dist/deck/ui/app.js']);
    const root = (await import(`${ROOT}dist/index.js`)) as typeof Root;
    const { createDeck } = (await import(`${ROOT}dist/deck/index.js`)) as typeof DeckModule;
    const fetch = root.defineJob({ type: 'catalog.fetch.v1', queue: 'catalog', handle: () => 1 });
    const resize = root.defineJob({
      type: 'image.resize.v1',
      queue: 'images',
      handle: (payload: { width: number }) => {
        if (payload.width === 640) throw new root.FatalError('source image is corrupt');
        return payload.width;
      },
    });
    const merge = root.defineJob({ type: 'album.merge.v1', queue: 'albums', handle: () => 1 });
    chokaq = new root.ChokaQ({
      storage: root.memory(),
      jobs: [fetch, resize, merge],
      pollInterval: 50,
      logger: root.silentLogger,
    });
    await chokaq.start();
    await chokaq.enqueueWorkflow((workflow) => {
      ids.fetch = workflow.add(fetch, undefined);
      ids.small = workflow.add(resize, { width: 320 }, { dependsOn: [ids.fetch] });
      ids.broken = workflow.add(resize, { width: 640 }, { dependsOn: [ids.fetch] });
      ids.later = workflow.add(resize, { width: 1280 }, { dependsOn: [ids.fetch], delay: '1h' });
      ids.merge = workflow.add(merge, undefined, {
        dependsOn: [ids.small, { id: ids.broken, onDeath: 'skip' }, ids.later],
      });
      ids.publish = workflow.add(merge, undefined, { dependsOn: [ids.merge] });
      ids.notify = workflow.add(merge, undefined, { dependsOn: [ids.broken] });
    });
    await waitFor(async () => (await chokaq.jobs.get(ids.notify))?.state === 'dead', {
      timeoutMs: 15_000,
      message: 'the job waiting for the broken child to die',
    });
    // A flow past The Deck's bound of 200 jobs: a parent of 250 children that never run.
    await chokaq.enqueueWorkflow((workflow) => {
      const children = Array.from({ length: 250 }, () =>
        workflow.add(fetch, undefined, { delay: '1h' }),
      );
      ids.big = workflow.add(merge, undefined, { dependsOn: children });
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

  async function signedIn(access: 'read' | 'operate' = 'read'): Promise<Page> {
    const page = await (
      await browser.newContext({ viewport: { width: 1366, height: 900 } })
    ).newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(`${base}${deck.signInLink({ access, actor: 'flow-test' })}`);
    await page.waitForSelector('.shell');
    return page;
  }

  it('draws each job with its state, marks the page job, and lists the dependencies as text', async () => {
    const page = await signedIn();
    await page.goto(`${base}#/job/${ids.merge}`);
    const nodes = page.locator('[data-flow-node]');
    await expect.poll(() => nodes.count(), { timeout: 15_000 }).toBe(7);
    expect(await page.locator('[data-flow-summary]').textContent()).toBe(
      '7 jobs, 8 dependencies; arrows go from a job to the job that waits for it; this job is outlined.',
    );
    const node = (id: string) => page.locator(`[data-flow-node="${id}"]`);
    expect(await node(ids.merge).getAttribute('aria-current')).toBe('page');
    expect(await node(ids.merge).getAttribute('class')).toBe('flow-node state-awaiting current');
    expect(await node(ids.merge).locator('.flow-state').textContent()).toBe('awaiting · this job');
    expect(await node(ids.broken).getAttribute('class')).toBe('flow-node state-dead');
    expect(await node(ids.broken).getAttribute('aria-label')).toBe(
      `image.resize.v1 …${ids.broken.slice(-8)}, dead (Fatal)`,
    );
    expect(await node(ids.notify).locator('.flow-state').textContent()).toBe(
      'dead (DependencyFailed)',
    );
    expect(await node(ids.fetch).getAttribute('href')).toBe(`#/job/${ids.fetch}`);
    // Columns by layer, left to right: the root, the children, the merge and its dead sibling.
    const left = async (id: string) => Number(await node(id).locator('rect').getAttribute('x'));
    expect(await left(ids.fetch)).toBeLessThan(await left(ids.small));
    expect(await left(ids.small)).toBe(await left(ids.broken));
    expect(await left(ids.broken)).toBeLessThan(await left(ids.merge));
    expect(await left(ids.merge)).toBe(await left(ids.notify));
    expect(await left(ids.merge)).toBeLessThan(await left(ids.publish));
    expect(await page.locator('.flow-edge').count()).toBe(8);
    expect(await page.locator('.flow-edge.on-skip').count()).toBe(1);

    await page.locator('.flow-graph').getByRole('button', { name: 'Copy as code' }).click();
    const code = page.getByRole('dialog', { name: 'This flow as code' });
    expect(await code.locator('[data-code="cli"]').textContent()).toBe(
      `chokaq jobs flow ${ids.merge} --json`,
    );
    await code.getByRole('button', { name: 'Close' }).click();
    // The text alternative is one click away, under the graph.
    await page.getByText('The dependencies as text').click();
    const listed = page.getByRole('list', { name: 'Flow dependencies' }).locator('li');
    expect(await listed.count()).toBe(8);
    expect(await listed.allTextContents()).toContain(
      `album.merge.v1 …${ids.merge.slice(-8)} [awaiting] waits for image.resize.v1 …${ids.broken.slice(-8)} [dead (Fatal)] · on death: skip`,
    );
  });

  it('reaches the boxes with Tab and opens one with Enter', async () => {
    const page = await signedIn();
    await page.goto(`${base}#/job/${ids.merge}`);
    const first = page.locator('[data-flow-node]').first();
    await first.waitFor({ timeout: 15_000 });
    await first.focus();
    const focused = page.locator('[data-flow-node]:focus');
    expect(await focused.getAttribute('data-flow-node')).toBe(ids.fetch);
    await page.keyboard.press('Tab');
    const second = (await focused.getAttribute('data-flow-node')) ?? '';
    expect([ids.small, ids.broken, ids.later]).toContain(second);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url(), { timeout: 15_000 }).toContain(`#/job/${second}`);
    await expect
      .poll(
        () => page.locator('[data-flow-node][aria-current="page"]').getAttribute('data-flow-node'),
        {
          timeout: 15_000,
        },
      )
      .toBe(second);
  });

  it('follows the live feed without a reload', async () => {
    const page = await signedIn();
    await page.goto(`${base}#/job/${ids.publish}`);
    const publish = page.locator(`[data-flow-node="${ids.publish}"] .flow-state`);
    await expect.poll(() => publish.textContent(), { timeout: 15_000 }).toBe('awaiting · this job');
    await chokaq.cancel([ids.merge], { actor: 'flow-test' });
    await expect
      .poll(() => page.locator(`[data-flow-node="${ids.merge}"] .flow-state`).textContent(), {
        timeout: 15_000,
      })
      .toMatch(/^dead \(Cancelled\)/);
    await expect
      .poll(() => publish.textContent(), { timeout: 15_000 })
      .toBe('dead (DependencyFailed)');
  });

  it('offers operators a bulk cancel of the whole flow, previewed; readers no action', async () => {
    const reader = await signedIn();
    await reader.goto(`${base}#/job/${ids.big}`);
    await reader.locator('[data-flow-node]').first().waitFor({ timeout: 15_000 });
    expect(await reader.getByRole('button', { name: 'Cancel the flow…' }).count()).toBe(0);

    const page = await signedIn('operate');
    await page.goto(`${base}#/job/${ids.big}`);
    await page.getByRole('button', { name: 'Cancel the flow…' }).click();
    const dialog = page.getByRole('dialog', { name: `Cancel: the flow of job ${ids.big}` });
    // Every job of the flow, past the 200 drawn: the 250 children and their parent.
    await expect
      .poll(() => dialog.locator('[data-preview-count]').getAttribute('data-preview-count'), {
        timeout: 15_000,
      })
      .toBe('251');
  });

  it('says so when the flow is larger than the bound it draws', async () => {
    const page = await signedIn();
    await page.goto(`${base}#/job/${ids.big}`);
    const bound = page.locator('[data-flow-truncated]');
    await bound.waitFor({ timeout: 15_000 });
    expect(await bound.textContent()).toContain('Showing the 200 jobs nearest to this one');
    expect(await page.locator('[data-flow-node]').count()).toBe(200);
    expect(await page.locator('.flow-edge').count()).toBe(199);
  });
});
