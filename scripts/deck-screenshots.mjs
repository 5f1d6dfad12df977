#!/usr/bin/env node
/**
 * Takes the screenshots of docs/deck.md from the real UI: runs `chokaq demo` (embedded store in
 * a temporary folder, The Deck on a free port), lets it work for a while, signs in with the link
 * it prints, and photographs every panel in both skins (blueprint light, carbon dark) with
 * Debian's Chromium. Usage: `npm run build && node scripts/deck-screenshots.mjs [OUT_DIR]`.
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
try {
  console.log('letting the demo run for 25 s');
  await sleep(25_000);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(signIn);
  await page.waitForSelector('.shell');
  const base = new URL('./', page.url()).href;
  const dead = await page.evaluate(async () => {
    const res = await fetch(
      'api/jobs?q=' + encodeURIComponent(JSON.stringify({ state: 'dead', limit: 1 })),
    );
    return (await res.json()).jobs[0]?.id;
  });
  const panels = [
    ['overview', ''],
    ['queues', '#/queues'],
    ['jobs', '#/jobs/active'],
    ['dlq', '#/jobs/dlq'],
    ['inspector', `#/job/${dead}`],
    ['failures', '#/inbox'],
    ['schedules', '#/schedules'],
    ['bulk', '#/bulk'],
    ['audit', '#/audit'],
    ['system', '#/system'],
    ['settings', '#/settings'],
  ];
  for (const [skin, theme] of [
    ['blueprint', 'light'],
    ['carbon', 'dark'],
  ]) {
    await page.evaluate(
      ([s, t]) => {
        localStorage.setItem('chokaq.deck.skin', s);
        localStorage.setItem('chokaq.deck.theme', t);
      },
      [skin, theme],
    );
    for (const [name, hash] of panels) {
      await page.goto(`${base}${hash}`);
      await page.reload();
      await page.waitForSelector('main h1');
      await sleep(2500);
      await page.screenshot({ path: join(out, `${name}-${skin}.png`) });
    }
    await page.goto(`${base}#/inbox`);
    await page.reload();
    await page.getByRole('button', { name: 'Resurrect group…' }).first().click();
    await page.waitForSelector('[data-preview-count]');
    await page.getByLabel('Confirmation count').fill('1');
    await page.getByLabel('Reason').fill('the fix is deployed');
    await page.screenshot({ path: join(out, `bulk-preview-${skin}.png`) });
    await page.keyboard.press('Escape');
  }
  console.log(`screenshots in ${out}`);
} finally {
  await browser.close();
  demo.kill('SIGINT');
  await new Promise((resolve) => demo.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
