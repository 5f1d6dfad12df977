#!/usr/bin/env node
/**
 * Installs the system packages the tests run against, when they are missing: PgBouncer (Debian's
 * `pgbouncer`) for the tests behind a transaction-mode pooler, and Chromium (Debian's `chromium`)
 * for The Deck's browser tests. Runs before `npm test` (the
 * `pretest` script). It installs only as root with apt-get; elsewhere it says what to install,
 * and the tests that need the package skip with a warning (under CI=true they fail instead).
 */
import { spawnSync } from 'node:child_process';
import console from 'node:console';
import process from 'node:process';

/** Packages: the command that shows one is there, and the Debian package that brings it. */
const PACKAGES = [
  { command: 'pgbouncer', args: ['--version'], apt: 'pgbouncer' },
  { command: '/usr/bin/chromium', args: ['--version'], apt: 'chromium' },
];

const has = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const missing = PACKAGES.filter((p) => !has(p.command, p.args));
if (missing.length > 0) {
  const names = missing.map((p) => p.apt);
  const root = process.getuid?.() === 0;
  if (root && has('apt-get', ['--version'])) {
    console.error(`test-deps: installing ${names.join(', ')} with apt-get`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const install = () =>
      spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...names], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env,
      });
    let result = install();
    if (result.status !== 0) {
      // Package lists that were never read (a fresh machine) or are stale: read them and retry.
      spawnSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'], env });
      result = install();
    }
    if (result.status !== 0)
      console.error(
        `test-deps: apt-get failed (${result.status}); the tests that need ${names.join(', ')} will not run`,
      );
  } else {
    console.error(
      `test-deps: missing ${names.join(', ')}; install them (apt-get install -y ${names.join(' ')}) or the tests that need them skip`,
    );
  }
}
