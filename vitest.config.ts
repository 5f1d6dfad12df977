import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A poll waits for what a busy two-core machine (two files, PostgreSQL, Chromium) may take
    // seconds to show; it passes as soon as it holds, so the bound only makes a failure slower.
    expect: { poll: { timeout: 10_000 } },
    // consoleLogger() reads it: passing tests print no engine or store lines ("schema migrated").
    // Tests about log output pass their own logger; set CHOKAQ_LOG_LEVEL to see the lines.
    env: { CHOKAQ_LOG_LEVEL: process.env.CHOKAQ_LOG_LEVEL ?? 'silent' },
    // PGlite instances and worker processes are memory-hungry; two cores run two files at a time.
    maxWorkers: 2,
    // Tags every test schema/database name with the run and fails the run on leftovers.
    globalSetup: ['test/helpers/leftover-guard.ts'],
  },
});
