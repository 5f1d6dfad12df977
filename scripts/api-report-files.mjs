/**
 * The committed API report: one text file per entry point under `api/`, written from
 * scripts/api-surface.mjs, and the check that it still matches the declarations. Run by
 * scripts/api-report.mjs.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiSurface } from './api-surface.mjs';

/** The folder of the report, relative to the project folder. */
const FOLDER = 'api';

/** How many changed lines a failed check prints for one file. */
const SHOWN_LINES = 20;

/**
 * The entry points of the package.json in `root`: each subpath of `exports` with its `types`,
 * named as users import it (`.` → `chokaq`, `./postgres` → `chokaq/postgres`).
 *
 * @returns `{ name, types }` in the order of `exports`
 */
export function entryPoints(root) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.entries(manifest.exports).map(([subpath, target]) => ({
    name: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
    types: target.types.replace(/^\.\//, ''),
  }));
}

/**
 * Writes the report of each entry point to `api/<name>.txt` (`/` in a name becomes `-`) and
 * removes report files of entry points that are gone.
 *
 * @returns the paths written, relative to `root`
 */
export function writeApiReport(root, entries) {
  const reports = reportsOf(root, entries);
  mkdirSync(join(root, FOLDER), { recursive: true });
  for (const path of strayReports(root, reports)) rmSync(join(root, path));
  for (const { path, text } of reports) writeFileSync(join(root, path), text);
  return reports.map(({ path }) => path);
}

/**
 * Compares the committed report with the declarations as they are now.
 *
 * @returns undefined when they match; else a message naming each file that differs, with its
 *   first changed lines (`-` committed, `+` now) and how to accept the change
 */
export function checkApiReport(root, entries) {
  const problems = [];
  const reports = reportsOf(root, entries);
  for (const { path, text } of reports) {
    const file = join(root, path);
    if (!existsSync(file)) problems.push(`${path} is missing`);
    else {
      const change = firstChange(readFileSync(file, 'utf8'), text);
      if (change !== undefined) problems.push(`${path} differs ${change}`);
    }
  }
  for (const path of strayReports(root, reports)) {
    problems.push(`${path} reports no entry point of package.json`);
  }
  if (problems.length === 0) return undefined;
  return [
    'the public API changed: the report in api/ no longer matches the declarations in dist/.',
    'Run `npm run api:report`, review and commit the diff.',
    ...problems,
  ].join('\n');
}

/** The report of each entry point with the path it is committed under. */
function reportsOf(root, entries) {
  return apiSurface(root, entries).map(({ name, text }) => ({
    path: `${FOLDER}/${name.replaceAll('/', '-')}.txt`,
    text,
  }));
}

/** Report files in the folder that no entry point writes, relative to `root`. */
function strayReports(root, reports) {
  const folder = join(root, FOLDER);
  if (!existsSync(folder)) return [];
  const written = new Set(reports.map(({ path }) => path));
  return readdirSync(folder)
    .filter((name) => name.endsWith('.txt'))
    .map((name) => `${FOLDER}/${name}`)
    .filter((path) => !written.has(path))
    .sort();
}

/**
 * Where two texts part and the lines between their common start and common end, or undefined
 * when they are equal. Trimming both ends, rather than comparing line by line, shows an added
 * section as the added lines only instead of every line after it.
 */
function firstChange(committed, now) {
  if (committed === now) return undefined;
  const before = committed.split('\n');
  const after = now.split('\n');
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (
    end < before.length - start &&
    end < after.length - start &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  )
    end++;
  const lines = [
    ...before.slice(start, before.length - end).map((line) => `  - ${line}`.trimEnd()),
    ...after.slice(start, after.length - end).map((line) => `  + ${line}`.trimEnd()),
  ];
  const more = lines.length - SHOWN_LINES;
  const shown = lines.slice(0, SHOWN_LINES);
  if (more > 0) shown.push(`  … ${more} more changed lines`);
  return [`from line ${start + 1}:`, ...shown].join('\n');
}
