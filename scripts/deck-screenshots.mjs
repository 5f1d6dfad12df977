#!/usr/bin/env node
/**
 * Takes the screenshots of docs/deck.md from the real UI: runs `chokaq demo` (embedded store in
 * a temporary folder, The Deck on a free port), lets it work for a while, signs in with the link
 * it prints, runs one bulk resurrect (so the Bulk actions and Audit panels have an entry), and
 * photographs every panel, the keys (`?`) and a bulk preview with Debian's Chromium at 1280×720
 * (blueprint, light) and 1440×900 (carbon, dark): `<panel>-1280x720.png`, `<panel>-1440x900.png`.
 * Usage: `npm run build && node scripts/deck-screenshots.mjs [OUT_DIR]`.
 */
/* global fetch, localStorage -- used inside page.evaluate, in the browser */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, URL } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ?? join(root, 'docs', 'deck');
const dataDir = mkdtempSync(join(tmpdir(), 'chokaq-shots-'));
mkdirSync(out, { recursive: true });

const demo = spawn(
  process.execPath,
  [join(root, 'dist/cli/main.js'), 'demo', '--data-dir', dataDir, '--port', '0', '--rate', '40'],
  { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CHOKAQ_DATABASE_URL: '' } },
);
const signIn = await new Promise((resolve, reject) => {
  let text = '';
  const timer = setTimeout(() => reject(new Error('the demo printed no sign-in link')), 60_000);
  demo.stdout.on('data', (chunk) => {
    text += chunk;
    const match = /Sign in[^:]*: (\S+)/.exec(text);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
});

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
/** Each size with the skin and theme it is shown in, so both skins appear. */
const LOOKS = [
  { width: 1280, height: 720, skin: 'blueprint', theme: 'light' },
  { width: 1440, height: 900, skin: 'carbon', theme: 'dark' },
];
try {
  console.log('letting the demo run for 25 s');
  await sleep(25_000);
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(signIn);
  await page.waitForSelector('.shell');
  const base = new URL('./', page.url()).href;
  // One bulk action run to the end, so the Bulk actions and Audit panels have something to show.
  await page.goto(`${base}#/inbox`);
  await page.getByRole('button', { name: 'Resurrect group…' }).first().click();
  const preview = page.locator('[data-preview-count]');
  await preview.waitFor();
  await page
    .getByLabel('Confirmation count')
    .fill(await preview.getAttribute('data-preview-count'));
  await page.getByLabel('Reason').fill('the fix is deployed');
  await page.getByRole('button', { name: /^Resurrect [\d,]+ jobs$/ }).click();
  await page.locator('[data-bulk-status="succeeded"]').waitFor({ timeout: 60_000 });
  await page.keyboard.press('Escape');
  const first = (state) =>
    page.evaluate(async (s) => {
      const q = encodeURIComponent(JSON.stringify({ state: s, limit: 1 }));
      return (await (await fetch(`api/jobs?q=${q}`)).json()).jobs[0]?.id;
    }, state);
  const dead = await first('dead');
  const panels = [
    ['overview', ''],
    ['queues', '#/queues'],
    ['jobs', '#/jobs/active'],
    ['archive', '#/jobs/archive'],
    ['dlq', '#/jobs/dlq'],
    ['inspector', `#/job/${dead}`],
    ['failures', '#/inbox'],
    ['schedules', '#/schedules'],
    ['flow', '#/flow'],
    ['bulk', '#/bulk'],
    ['audit', '#/audit'],
    ['system', '#/system'],
    ['settings', '#/settings'],
  ];
  /** Sets the page to `look`; resolves its file name suffix. */
  const use = async ({ width, height, skin, theme }) => {
    await page.setViewportSize({ width, height });
    await page.evaluate(
      ([s, t]) => {
        localStorage.setItem('chokaq.deck.skin', s);
        localStorage.setItem('chokaq.deck.theme', t);
      },
      [skin, theme],
    );
    return `${width}x${height}`;
  };
  for (const look of LOOKS) {
    const size = await use(look);
    for (const [name, hash] of panels) {
      await page.goto(`${base}${hash}`);
      await page.reload();
      await page.waitForSelector('main h1');
      await sleep(2500);
      await page.screenshot({ path: join(out, `${name}-${size}.png`) });
    }
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await page.screenshot({ path: join(out, `keys-${size}.png`) });
    await page.keyboard.press('Escape');
  }
  // Last: a preview left open stays "previewed" on the Overview until its token expires.
  for (const look of LOOKS) {
    const size = await use(look);
    await page.goto(`${base}#/inbox`);
    await page.reload();
    await page.getByRole('button', { name: 'Resurrect group…' }).first().click();
    const count = page.locator('[data-preview-count]');
    await count.waitFor();
    await page
      .getByLabel('Confirmation count')
      .fill(await count.getAttribute('data-preview-count'));
    await page.getByLabel('Reason').fill('the fix is deployed');
    await page.screenshot({ path: join(out, `bulk-preview-${size}.png`) });
    await page.keyboard.press('Escape');
  }
  console.log(`screenshots in ${out}`);
} finally {
  await browser.close();
  demo.kill('SIGINT');
  await new Promise((resolve) => demo.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
