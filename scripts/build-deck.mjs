#!/usr/bin/env node
/**
 * Builds The Deck's front end (src/deck/ui) into dist/deck/ui: one minified ES module `app.js`,
 * one stylesheet `app.css` (uPlot's included) and `index.html`. Nothing is fetched at run time,
 * so The Deck works offline. `--check-size` fails when the gzip'd total passes the 200 KB budget.
 */
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import console from 'node:console';
import process from 'node:process';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'deck', 'ui');
const out = join(root, 'dist', 'deck', 'ui');
const BUDGET_BYTES = 200 * 1024;

mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(source, 'main.tsx') },
  outdir: out,
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(join(source, 'index.html'), join(out, 'index.html'));

const sizes = ['index.html', 'app.js', 'app.css'].map(
  (name) => gzipSync(readFileSync(join(out, name))).length,
);
const total = sizes.reduce((a, b) => a + b, 0);
if (process.argv.includes('--check-size')) {
  console.log(`deck ui: ${(total / 1024).toFixed(1)} KB gzip'd (budget ${BUDGET_BYTES / 1024} KB)`);
  if (total > BUDGET_BYTES) process.exit(1);
}
