#!/usr/bin/env node
/**
 * Compiles the SQL sources into src/storage/sql/generated.ts:
 * - src/storage/sql/migrations/NNNN_name.sql → MIGRATIONS (ordered by version);
 * - src/storage/sql/queries/name.sql → QUERIES (header comment lines dropped), with the hot-state
 *   names `:PENDING`, `:FETCHED`, `:PROCESSING`, `:SCHEDULED` and `:AWAITING` replaced by their codes from HOT_STATE_CODE in
 *   src/job/state.ts (literal constants, so the planner still matches the partial indexes) and
 *   `:MAX_HISTORY`, `:MAX_HISTORY_ERROR` by the history bounds of src/storage/model.ts;
 *   a line `:INCLUDE name` stands for src/storage/sql/fragments/name.sql (the end several
 *   statements share, written once); the time tokens (`:NOW`, …) read the statement's `now`
 *   parameter (see scripts/sql-statements.mjs);
 * - the header of each query (its `-- Parameters:` lines and `-- Row:` columns) → one typed
 *   function per statement in src/storage/sql/statements.ts (see scripts/sql-statements.mjs).
 *
 * Usage: `node scripts/gen-sql.mjs` writes the modules; `--check` exits 1 when one is stale.
 */
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import process from 'node:process';
import console from 'node:console';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseStatement, renderStatements } from './sql-statements.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sqlDir = join(root, 'src', 'storage', 'sql');
const targets = {
  generated: join(sqlDir, 'generated.ts'),
  statements: join(sqlDir, 'statements.ts'),
};

/** The hot-state codes of `HOT_STATE_CODE` in src/job/state.ts, the one place they are defined. */
function hotStateCodes() {
  const source = readFileSync(join(root, 'src', 'job', 'state.ts'), 'utf8');
  const body = /HOT_STATE_CODE[^=]*=\s*\{([^}]*)\}/.exec(source)?.[1];
  if (!body) throw new Error('HOT_STATE_CODE not found in src/job/state.ts');
  const codes = {};
  for (const [, name, code] of body.matchAll(/(\w+):\s*(\d+)/g)) codes[name.toUpperCase()] = code;
  for (const name of ['PENDING', 'FETCHED', 'PROCESSING', 'SCHEDULED', 'AWAITING']) {
    if (codes[name] === undefined) throw new Error(`HOT_STATE_CODE has no ${name.toLowerCase()}`);
  }
  return codes;
}

/** The history bounds of src/storage/model.ts, the one place they are defined. */
function historyBounds() {
  const source = readFileSync(join(root, 'src', 'storage', 'model.ts'), 'utf8');
  const bounds = {};
  for (const name of ['MAX_HISTORY', 'MAX_HISTORY_ERROR']) {
    const value = new RegExp(`export const ${name} = (\\d+);`).exec(source)?.[1];
    if (value === undefined) throw new Error(`${name} not found in src/storage/model.ts`);
    bounds[name] = value;
  }
  return bounds;
}

/** Replaces the state names (`:PENDING`, …) and history bounds (`:MAX_HISTORY`, …) by values. */
function withConstants(sql, constants) {
  return sql.replace(
    /(?<!:):(PENDING|FETCHED|PROCESSING|SCHEDULED|AWAITING|MAX_HISTORY_ERROR|MAX_HISTORY)\b/g,
    (_, name) => constants[name],
  );
}

/** SQL files of a folder, sorted by name. */
function sqlFiles(folder) {
  return readdirSync(join(sqlDir, folder))
    .filter((name) => name.endsWith('.sql'))
    .sort();
}

/** Drops comment-only lines and blank lines at both ends; keeps the statement itself intact. */
function compact(sql) {
  return sql
    .split('\n')
    .filter((line) => !/^\s*--/.test(line))
    .join('\n')
    .trim();
}

function migrations() {
  const seen = new Set();
  return sqlFiles('migrations').map((file) => {
    const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!match) throw new Error(`migration file name must be NNNN_name.sql: ${file}`);
    const version = Number(match[1]);
    if (seen.has(version)) throw new Error(`duplicate migration version ${version}`);
    seen.add(version);
    const sql = readFileSync(join(sqlDir, 'migrations', file), 'utf8').trim();
    return { version, name: match[2], sql };
  });
}

/**
 * Replaces each `:INCLUDE name` line of a statement by the text of fragments/name.sql; a fragment
 * may include another (at most three levels deep).
 */
function withFragments(sql, file, depth = 0) {
  if (depth > 3) throw new Error(`${file} includes fragments more than three levels deep`);
  return sql.replace(/^:INCLUDE ([a-z][a-z0-9_]*)$/gm, (_, name) => {
    const path = join(sqlDir, 'fragments', `${name}.sql`);
    if (!existsSync(path)) throw new Error(`${file} includes an unknown fragment: ${name}`);
    return withFragments(readFileSync(path, 'utf8').trimEnd(), file, depth + 1);
  });
}

function queries() {
  const constants = { ...hotStateCodes(), ...historyBounds() };
  return sqlFiles('queries').map((file) => {
    const match = /^([a-z][a-z0-9_]*)\.sql$/.exec(file);
    if (!match) throw new Error(`query file name must be snake_case.sql: ${file}`);
    const text = withFragments(readFileSync(join(sqlDir, 'queries', file), 'utf8'), file);
    if (!/^--/.test(text)) throw new Error(`query ${file} must start with a header comment`);
    const sql = withConstants(compact(text), constants);
    if (sql.length === 0) throw new Error(`query ${file} is empty`);
    return { name: match[1], ...parseStatement(file, text, sql) };
  });
}

function render(all) {
  const lines = [
    '// Generated by scripts/gen-sql.mjs from src/storage/sql/migrations and queries. DO NOT EDIT.',
    '// Run `npm run gen:sql` after changing a .sql file.',
    '',
    '/** One schema migration; `:SCHEMA` stands for the quoted schema name. */',
    'export interface Migration {',
    '  readonly version: number;',
    '  readonly name: string;',
    '  readonly sql: string;',
    '}',
    '',
    '/** Every migration, ordered by version. */',
    'export const MIGRATIONS: readonly Migration[] = [',
  ];
  for (const m of migrations()) {
    lines.push(
      `  { version: ${m.version}, name: ${JSON.stringify(m.name)}, sql: ${JSON.stringify(m.sql)} },`,
    );
  }
  // The names as a union and the texts as plain strings: declarations then carry the names
  // only, not every statement's text as a literal type.
  lines.push('];', '', '/** Name of a statement in {@link QUERIES}. */', 'export type QueryName =');
  for (const q of all) lines.push(`  | ${JSON.stringify(q.name)}`);
  lines[lines.length - 1] += ';';
  lines.push('', '/** Named statements; `:SCHEMA` stands for the quoted schema name. */');
  lines.push('export const QUERIES: Readonly<Record<QueryName, string>> = {');
  for (const q of all) lines.push(`  ${q.name}: ${JSON.stringify(q.sql)},`);
  lines.push('};', '');
  return lines.join('\n');
}

let all;
try {
  all = queries();
} catch (error) {
  console.error(`gen-sql: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const outputs = { generated: render(all), statements: renderStatements(all) };
for (const [key, target] of Object.entries(targets)) {
  if (process.argv.includes('--check')) {
    const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
    if (current !== outputs[key]) {
      console.error(`src/storage/sql/${key}.ts is stale: run \`npm run gen:sql\``);
      process.exit(1);
    }
  } else {
    writeFileSync(target, outputs[key]);
  }
}
