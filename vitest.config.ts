import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // PGlite instances and worker processes are memory-hungry; two cores run two files at a time.
    maxWorkers: 2,
    // Tags every test schema/database name with the run and fails the run on leftovers.
    globalSetup: ['test/helpers/leftover-guard.ts'],
  },
});
