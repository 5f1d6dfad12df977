#!/usr/bin/env node
/**
 * Writes the API report of the package's entry points (package.json "exports") to api/, from the
 * declarations `npm run build` left in dist/; builds nothing itself. With `--check` (part of
 * `npm run lint`), exits 1 and prints the first changed lines when the committed report differs,
 * so that a change of the public API is reviewed like code.
 *
 * Usage: `npm run api:report` (builds, then runs this), or `node scripts/api-report.mjs [--check]`.
 */
import console from 'node:console';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { checkApiReport, entryPoints, writeApiReport } from './api-report-files.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entries = entryPoints(root);
if (process.argv.includes('--check')) {
  const problem = checkApiReport(root, entries);
  if (problem !== undefined) {
    console.error(problem);
    process.exitCode = 1;
  }
} else {
  for (const path of writeApiReport(root, entries)) console.log(`wrote ${path}`);
}
