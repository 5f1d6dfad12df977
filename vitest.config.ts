import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // PGlite instances and worker processes are memory-hungry; two cores run two files at a time.
    maxWorkers: 2,
  },
});
