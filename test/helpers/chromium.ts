/**
 * The Chromium the browser tests drive: Debian's package (`apt-get install -y chromium`), through
 * playwright-core. Without it the browser tests skip, loudly, except under CI=true, where a
 * missing browser fails them.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** Where Debian installs Chromium. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether {@link CHROMIUM} is installed. */
export const chromiumThere = existsSync(CHROMIUM);

if (!chromiumThere && process.env.CI === 'true') {
  throw new Error(`${CHROMIUM} is missing under CI=true: apt-get install -y chromium`);
}

/** A headless Chromium; close it after the tests. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
}
