/**
 * The Deck built for triage on a laptop, in a real browser (Debian's Chromium) at 1280×720 against
 * PostgreSQL, from the built package: one-line rows (15 or more on the screen) with short ids whose
 * copy is the full id and the error message first; destructive actions only in the selection bar;
 * counts by state that filter; the inspector's order (payload, then the error with its stack
 * collapsed and engine frames folded), absolute times and attempt durations; re-run from the
 * archive; "Trigger now" for a schedule; charts of one queue that one spike cannot flatten; `?`
 * for the keys.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as DeckModule from '../../src/deck/index.js';
import type * as Root from '../../src/index.js';
import type * as Postgres from '../../src/storage/postgres/index.js';
import { ROOT, requireDist } from '../fixtures/crash-process.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';
import { waitForJob } from '../../src/testing/index.js';
import { chromiumThere, launchChromium } from '../helpers/chromium.js';

const pgUp = await postgresAvailable();

const DEAD = 40;
const DONE = 5;
const LATER = 3;

describe.skipIf(!pgUp || !chromiumThere)('The Deck for triage (PostgreSQL, 1280×720)', () => {
  const schema = uniqueSchema('decktri');
  let chokaq: Root.ChokaQ;
  let deck: DeckModule.DeckHandler;
  let server: http.Server;
  let browser: Browser;
  let origin = '';

  beforeAll(async () => {
    requireDist(['dist/index.js', 'dist/deck/index.js', 'dist/deck/ui/app.js']);
    const root = (await import(`${ROOT}dist/index.js`)) as typeof Root;
    const { postgres } = (await import(`${ROOT}dist/storage/postgres/index.js`)) as typeof Postgres;
    const { createDeck } = (await import(`${ROOT}dist/deck/index.js`)) as typeof DeckModule;
    const charge = root.defineJob({
      type: 'triage.charge.v1',
      queue: 'billing',
      handle: function chargeCard(payload: { n: number }) {
        if (payload.n >= 0) return Promise.resolve({ charged: payload.n });
        throw new root.FatalError(`card declined for invoice ${-payload.n}`);
      },
    });
    chokaq = new root.ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 }),
      jobs: [charge],
      pollInterval: 50,
      logger: root.silentLogger,
      clusterEvents: { interval: 100 },
    });
    await chokaq.start();
    await chokaq.enqueueMany(charge, [
      ...Array.from({ length: DEAD }, (_, k) => ({ payload: { n: -(k + 1) } })),
      ...Array.from({ length: DONE }, (_, k) => ({ payload: { n: k } })),
    ]);
    await chokaq.enqueueMany(
      charge,
      Array.from({ length: LATER }, (_, k) => ({ payload: { n: 100 + k }, delay: '1h' })),
    );
    await waitFor(
      async () =>
        (await chokaq.jobs.count({ state: 'dead' })).count === DEAD &&
        (await chokaq.jobs.count({ state: 'succeeded' })).count === DONE,
      { timeoutMs: 60_000, message: 'the seeded jobs settled' },
    );
    await chokaq.schedules.add({
      name: 'monthly-charges',
      job: charge,
      cron: '0 4 1 * *',
      payload: { n: 7 },
    });
    deck = createDeck({ chokaq, feedInterval: 250 });
    server = http.createServer((req, res) => deck(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    deck?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await chokaq?.stop();
    await dropSchema(schema);
  });

  /** A laptop-sized page signed in with operate access as `actor`, allowed the clipboard. */
  async function laptop(actor = 'triage'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(`${origin}/${deck.signInLink({ access: 'operate', actor })}`);
    await page.waitForSelector('.shell');
    return page;
  }

  it('shows 15 or more one-line rows at 1280×720, short ids that copy in full, the error message first', async () => {
    const page = await laptop();
    await page.goto(`${origin}/#/jobs/dlq`);
    const rows = page.locator('tr[data-job]');
    // The file's first page: its first reads may take a while on a loaded machine.
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(DEAD);
    // Each row's box relative to the viewport: on the screen without scrolling.
    const boxes = [];
    for (let k = 0; k < DEAD; k++) boxes.push((await rows.nth(k).boundingBox())!);
    const visible = boxes.filter((b) => b.y >= 0 && b.y + b.height <= 720);
    expect(visible.length).toBeGreaterThanOrEqual(15);
    const first = rows.first();
    const id = (await first.getAttribute('data-job'))!;
    const link = first.locator('.job-id a');
    expect(await link.textContent()).toBe(id.slice(-8));
    expect(await link.getAttribute('title')).toBe(id);
    await first.getByRole('button', { name: `Copy id ${id}` }).click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(id);
    // The message first; the engine's prefix and the class are badges after it.
    const error = first.locator('.error-line');
    expect(await error.locator('.error-message').textContent()).toMatch(
      /^card declined for invoice \d+$/,
    );
    expect(await error.locator('.badge').allTextContents()).toEqual(['Fatal', 'FatalError']);
    // Destructive actions are in the selection bar only.
    expect(
      await page
        .locator('tbody')
        .getByRole('button', { name: /Purge|Cancel/ })
        .count(),
    ).toBe(0);
    const purge = page.locator('.bulk-bar').getByRole('button', { name: 'Purge…' });
    expect(await purge.isDisabled()).toBe(true);
    await first.locator('input[type=checkbox]').check();
    expect(await purge.isDisabled()).toBe(false);
    await page.context().close();
  });

  it('counts jobs by state in chips that filter the matrix, with a run-at column', async () => {
    const page = await laptop();
    await page.goto(`${origin}/#/jobs/active`);
    const chip = (state: string) => page.locator(`[data-state-chip="${state}"]`);
    await expect.poll(() => chip('dead').locator('[data-chip-count]').textContent()).toBe('40');
    expect(await chip('succeeded').locator('[data-chip-count]').textContent()).toBe('5');
    expect(await chip('scheduled').locator('[data-chip-count]').textContent()).toBe('3');
    expect(await chip('pending').locator('[data-chip-count]').textContent()).toBe('0');
    expect(await chip('processing').locator('[data-chip-count]').textContent()).toBe('0');
    await chip('scheduled').click();
    await expect.poll(() => page.locator('tr[data-job]').count()).toBe(LATER);
    expect(decodeURIComponent(page.url())).toContain('"state":"scheduled"');
    expect(await chip('scheduled').getAttribute('aria-current')).toBe('true');
    for (const cell of await page.locator('[data-run-at]').allTextContents()) {
      expect(cell).toMatch(/^in (59|60) min$/);
    }
    // Pressed again: the whole tab.
    await chip('scheduled').click();
    await expect.poll(() => decodeURIComponent(page.url())).not.toContain('"state"');
    await chip('dead').click();
    await expect.poll(() => page.url()).toContain('#/jobs/dlq');
    await expect.poll(() => page.locator('tr[data-job]').count()).toBe(DEAD);
    await page.context().close();
  });

  it('opens a dead job with its payload first and its stack collapsed, engine frames folded', async () => {
    const page = await laptop();
    const [dead] = (await chokaq.jobs.query({ state: 'dead', limit: 1 })).jobs;
    await page.goto(`${origin}/#/job/${dead!.id}`);
    await page.waitForSelector('ol.timeline');
    const headings = await page.locator('main h2').allTextContents();
    expect(headings.slice(0, 2)).toEqual(['Payload', 'Error']);
    expect(headings.indexOf('Timeline')).toBeGreaterThan(1);
    const stack = page.locator('details.error-stack').first();
    expect(await stack.evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(false);
    expect(await stack.locator('summary .error-message').first().textContent()).toMatch(
      /^card declined for invoice \d+$/,
    );
    await stack.locator('summary').first().click();
    // The job's own frame is shown; the engine's are folded, each run behind one line.
    expect(await stack.locator('.job-frames').first().textContent()).toContain('chargeCard');
    const folded = stack.locator('details.engine-frames');
    expect(await folded.count()).toBeGreaterThan(0);
    expect(await folded.first().evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(
      false,
    );
    expect(await folded.first().locator('summary').textContent()).toMatch(/^\d+ engine frames?$/);
    expect(await folded.allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/dist[\\/]runtime/)]),
    );
    // Absolute times beside relative ones; the attempt's duration.
    const times = await page.locator('time').allTextContents();
    expect(times.length).toBeGreaterThan(2);
    for (const t of times) expect(t).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(await page.locator('li[data-attempt="1"] [data-took]').textContent()).toMatch(
      /^ran \d+(\.\d)? (ms|s)$/,
    );
    await page.context().close();
  });

  it('re-runs a succeeded job from the archive: a copy with a new id, audited', async () => {
    const page = await laptop('rhea');
    await page.goto(`${origin}/#/jobs/archive`);
    const first = page.locator('tr[data-job]').first();
    await first.waitFor();
    const id = (await first.getAttribute('data-job'))!;
    await first.getByRole('button', { name: 'Re-run…' }).click();
    // Its handler runs again: said first, with a reason for the audit trail.
    const dialog = page.locator('dialog');
    expect(await dialog.textContent()).toContain('whatever its handler does, it does again');
    await dialog.getByLabel('Reason').fill('the receipt mail bounced');
    await dialog.getByRole('button', { name: `Re-run ${id.slice(0, 8)}` }).click();
    await expect
      .poll(async () => (await chokaq.audit.list())[0])
      .toMatchObject({
        action: 'rerun',
        actor: 'rhea',
        reason: 'the receipt mail bounced',
        target: { id },
      });
    const { outcome } = (await chokaq.audit.list())[0]! as { outcome: { id: string } };
    await expect
      .poll(() => page.locator('.toast').allTextContents())
      .toContain(`Re-run as ${outcome.id}`);
    await waitForJob(chokaq, outcome.id, 'succeeded');
    const copy = (await chokaq.jobs.get(outcome.id))!.found.job;
    const original = (await chokaq.jobs.get(id))!.found.job;
    expect(copy).toMatchObject({ payload: original.payload, createdBy: 'rhea' });
    // And from the inspector of the copy.
    await page.goto(`${origin}/#/job/${outcome.id}`);
    await page.getByRole('button', { name: 'Re-run…' }).click();
    await dialog.getByRole('button', { name: `Re-run ${outcome.id.slice(0, 8)}` }).click();
    await expect
      .poll(async () => (await chokaq.audit.list())[0])
      .toMatchObject({ action: 'rerun', actor: 'rhea', target: { id: outcome.id } });
    await page.context().close();
  });

  it('triggers a schedule now from the Schedules panel, audited', async () => {
    const page = await laptop('tom');
    await page.goto(`${origin}/#/schedules`);
    const row = page.locator('tr[data-schedule="monthly-charges"]');
    await row.getByRole('button', { name: 'Trigger now…' }).click();
    const dialog = page.locator('dialog');
    expect(await dialog.textContent()).toContain('is enqueued once, now, paused or not');
    await dialog.getByRole('button', { name: 'Trigger monthly-charges now' }).click();
    await expect
      .poll(async () => (await chokaq.audit.list())[0])
      .toMatchObject({
        action: 'schedule-trigger',
        actor: 'tom',
        target: { schedule: 'monthly-charges' },
      });
    const { outcome } = (await chokaq.audit.list())[0]! as { outcome: { jobId: string } };
    await waitForJob(chokaq, outcome.jobId, 'succeeded');
    await expect.poll(() => row.textContent()).toContain('(triggered)');
    await page.context().close();
  });

  it('charts every queue or one, lag in a unit people read, sampled since when', async () => {
    const page = await laptop();
    await page.goto(`${origin}/#/overview`);
    const captions = page.locator('figure.chart figcaption');
    await expect.poll(() => captions.count(), { timeout: 15_000 }).toBe(2);
    // The lag title says since when once The Deck's live feed has taken its first sample.
    await expect
      .poll(() => captions.nth(1).textContent(), { timeout: 15_000 })
      .toMatch(
        /^Lag of the oldest due job \((ms|s|min|h)\), sampled by this Deck since \d\d:\d\d:\d\d$/,
      );
    const asked = page.waitForRequest((req) =>
      decodeURIComponent(req.url()).includes('series?q={"minutes":15,"queue":"billing"}'),
    );
    await page.getByLabel('Charts of').selectOption('billing');
    await asked;
    await page.context().close();
  });

  it('keeps one spike from flattening the throughput chart, and names it', async () => {
    // Ten finished jobs a second for 14 minutes and one second of 5,000, as workers count them.
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      // Those seconds' buckets hold exactly these counts (every shard's rows replaced), in one
      // transaction: both statements read the same now().
      await client.query('BEGIN');
      await client.query(
        `DELETE FROM "${schema}".metric_buckets
         WHERE queue = 'billing' AND outcome = 0
           AND bucket_start BETWEEN date_trunc('second', now()) - interval '870 seconds'
                                AND date_trunc('second', now()) - interval '30 seconds'`,
      );
      await client.query(
        `INSERT INTO "${schema}".metric_buckets (bucket_start, queue, outcome, failure_reason, completed_count)
         SELECT date_trunc('second', now()) - s * interval '1 second', 'billing', 0, -1,
                CASE WHEN s = 300 THEN 5000 ELSE 10 END
         FROM generate_series(30, 870) AS s`,
      );
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    const page = await laptop();
    await page.goto(`${origin}/#/overview`);
    const spikes = page.locator('figure.chart').first().locator('[data-spikes]');
    await expect.poll(() => spikes.getAttribute('data-spikes')).toBe('1');
    expect(await spikes.textContent()).toMatch(/above the scale: 5\.\dk at \d\d:\d\d:\d\d$/);
    await page.context().close();
  });

  it('refuses a word typed where a number goes, before anything is sent: filter, bulk edit, editor', async () => {
    const page = await laptop();
    await page.goto(`${origin}/#/jobs/dlq`);
    await page.locator('tr[data-job]').first().waitFor();
    // The filter bar's attempts: a word would have travelled as null.
    await page.getByLabel('Attempts at least').fill('x');
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    expect(await page.locator('form.filters .error').textContent()).toBe(
      'attempts≥ must be a whole number, such as 3',
    );
    expect(page.url()).not.toContain('attempts');
    // The bulk edit's priority.
    await page.getByRole('button', { name: /^Select all .* matching$/ }).click();
    await page.getByRole('button', { name: 'Edit & resurrect…' }).click();
    const dialog = page.locator('dialog');
    await dialog.getByLabel('Priority (optional)').fill('high');
    expect(await dialog.locator('p.error').textContent()).toBe('Priority must be a whole number.');
    expect(await dialog.getByRole('button', { name: 'Preview' }).isDisabled()).toBe(true);
    // The editor's priority of a job due later.
    const [later] = (await chokaq.jobs.query({ state: 'scheduled', limit: 1 })).jobs;
    await page.goto(`${origin}/#/job/${later!.id}`);
    await page.getByRole('button', { name: 'Edit…' }).click();
    await dialog.getByLabel('Priority', { exact: true }).fill('high');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(() => dialog.locator('p.error').textContent())
      .toBe('Priority must be a whole number.');
    const { found } = (await chokaq.jobs.get(later!.id))!;
    expect(found.where === 'hot' && found.job.priority).toBe(later!.priority);
    await page.context().close();
  });

  it('purges a dead job and cancels a waiting one from the inspector, each confirmed with a reason, audited', async () => {
    const page = await laptop('ulla');
    const [dead] = (await chokaq.jobs.query({ state: 'dead', limit: 1 })).jobs;
    await page.goto(`${origin}/#/job/${dead!.id}`);
    await page.getByRole('button', { name: 'Purge…' }).click();
    const dialog = page.locator('dialog');
    expect(await dialog.textContent()).toContain('deleted for good');
    await dialog.getByLabel('Reason').fill('test data');
    await dialog.getByRole('button', { name: `Purge ${dead!.id.slice(0, 8)}` }).click();
    await expect.poll(async () => await chokaq.jobs.get(dead!.id)).toBeNull();
    await expect
      .poll(async () => (await chokaq.audit.list())[0])
      .toMatchObject({ action: 'purge', actor: 'ulla', reason: 'test data' });

    const [later] = (await chokaq.jobs.query({ state: 'scheduled', limit: 1 })).jobs;
    await page.goto(`${origin}/#/job/${later!.id}`);
    await page.getByRole('button', { name: 'Cancel…' }).click();
    // Kept as is: nothing sent.
    await dialog.getByRole('button', { name: 'Keep as is' }).click();
    expect((await chokaq.jobs.get(later!.id))?.found.where).toBe('hot');
    await page.getByRole('button', { name: 'Cancel…' }).click();
    await dialog.getByRole('button', { name: `Cancel ${later!.id.slice(0, 8)}` }).click();
    await expect.poll(async () => (await chokaq.jobs.get(later!.id))?.found.where).toBe('dlq');
    await page.context().close();
  });

  it('lists the audit trail one compact row per action: local time, actor, reason, target and outcome fields', async () => {
    await chokaq.schedules.pause('monthly-charges', { actor: 'rhea', reason: 'audit check' });
    await chokaq.schedules.resume('monthly-charges', { actor: 'rhea' });
    const page = await laptop();
    await page.goto(`${origin}/#/audit`);
    const paused = page.locator('tr[data-audit="schedule-pause"]').first();
    await paused.waitFor();
    expect(await paused.locator('time').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(await paused.locator('td').nth(1).textContent()).toBe('rhea');
    expect(await paused.locator('td').nth(3).textContent()).toBe('audit check');
    expect(await paused.locator('[data-target] [data-field="schedule"]').textContent()).toBe(
      'schedule monthly-charges',
    );
    expect(await paused.locator('[data-outcome] [data-field="paused"]').textContent()).toBe(
      'paused true',
    );
    // One line, not a block of pretty JSON per cell.
    expect((await paused.boundingBox())!.height).toBeLessThan(45);
    await page.context().close();
  });

  it('shows the keyboard shortcuts on ?', async () => {
    const page = await laptop();
    await page.goto(`${origin}/#/jobs/dlq`);
    await page.locator('tr[data-job]').first().waitFor();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    const text = (await dialog.textContent()) ?? '';
    for (const key of ['g o', 'g j', 'j / k', 'Enter', 'Esc', '/', '?'])
      expect(text).toContain(key);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    await page.context().close();
  });
});
