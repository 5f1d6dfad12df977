/**
 * The typed face of the runtime statements: reads the header of each src/storage/sql/queries/*.sql
 * file and renders src/storage/sql/statements.ts, one typed function per statement. Used by
 * scripts/gen-sql.mjs; the parts are exported for test/unit/sql-statements.test.ts.
 *
 * A header declares each parameter on a line of its own under `-- Parameters:` (or
 * `-- Parameters (a note):`), in order, and may declare the columns of a row:
 *
 *   -- Parameters:
 *   --   $1 workerId: text — the worker's id
 *   --   $2 queues: text[] or NULL — the queues to claim from; NULL for all
 *   --     (a deeper line goes on with the parameter's prose)
 *   -- Row: id text, attempts int, run_at numeric,
 *   --   note text or NULL
 *
 * `-- Parameters: none.` declares none; `-- Row: as other_statement` reuses another's row.
 *
 * A statement reads the time only through a token, `:NOW` (the database's `now()`),
 * `:STATEMENT_NOW` (`statement_timestamp()`) or `:CLOCK_NOW` (`clock_timestamp()`), and declares
 * a parameter `now: timestamptz or NULL`: each token becomes `coalesce($n::timestamptz, now())`
 * (or the function it names), so a store given a clock sends its time and one without sends
 * NULL and reads the database's.
 * Types are SQL's: text, int, smallint, real, float8, bigint, numeric, boolean, timestamptz,
 * json (a parameter: its JSON text), jsonb, each optionally an array (`text[]`, `(text or NULL)[]` for NULL elements) and
 * optionally nullable (`or NULL`).
 */

/** SQL type → TypeScript type of a parameter (what the store passes in). */
const PARAM_TYPES = {
  text: 'string',
  int: 'number',
  smallint: 'number',
  real: 'number',
  float8: 'number',
  bigint: 'number',
  boolean: 'boolean',
  timestamptz: 'Date',
  json: 'string',
};

/**
 * SQL type → TypeScript type of a column (what a driver hands back): `pg` returns int8 and
 * numeric as strings, PGlite as numbers or bigints; a caller's `pg` type parser may turn a
 * timestamptz into a string. rows.ts normalises those.
 */
const COLUMN_TYPES = {
  text: 'string',
  int: 'number',
  smallint: 'number',
  real: 'number',
  float8: 'number',
  bigint: 'string | number | bigint',
  numeric: 'string | number | bigint',
  boolean: 'boolean',
  timestamptz: 'Date | string',
  jsonb: 'unknown',
};

const TYPE = /^(?:([a-z0-9]+)|\(([a-z0-9]+) or NULL\))(\[\])?( or NULL)?$/;
const PARAM_LINE = /^-- {3}\$(\d+) ([a-z][A-Za-z0-9]*): (.+?)(?: — (.*))?$/;
const SECTION = /^-- ([A-Z][A-Za-z ,]*?)(?: \([^)]*\))?:(.*)$/;

/** The time tokens, each with the database function read when the `now` parameter is NULL. */
const TIME_TOKENS = {
  NOW: 'now',
  STATEMENT_NOW: 'statement_timestamp',
  CLOCK_NOW: 'clock_timestamp',
};
const TIME_TOKEN = /(?<!:):(STATEMENT_NOW|CLOCK_NOW|NOW)\b/g;
/** A read of the database's clock written out, which would bypass the store's clock. */
const DATABASE_TIME =
  /\b(?:now|statement_timestamp|clock_timestamp|transaction_timestamp|timeofday)\s*\(|\b(?:current_timestamp|current_date|current_time|localtimestamp|localtime)\b/i;
/**
 * Statements that keep the database's clock: the migration ledger records when the server
 * applied a migration, which no engine clock has a say in.
 */
const DATABASE_TIME_ALLOWED = new Set(['migrate_create_ledger.sql', 'migrate_record.sql']);

/** Fails the build with a sentence naming the statement's file. */
function fail(file, message) {
  throw new Error(`${file}: ${message}`);
}

/** The TypeScript type of a declared SQL type, from `types` (PARAM_TYPES or COLUMN_TYPES). */
function tsType(file, what, sqlType, types) {
  const match = TYPE.exec(sqlType);
  const base = match?.[1] ?? match?.[2];
  if (!match || types[base] === undefined) {
    fail(
      file,
      `${what} has an unknown type "${sqlType}" (one of ${Object.keys(types).join(', ')}, optionally [] and "or NULL")`,
    );
  }
  if (match[2] !== undefined && match[3] === undefined) {
    fail(file, `${what}: "(${base} or NULL)" is for array elements; write "${base} or NULL"`);
  }
  let type = types[base];
  if (match[3] !== undefined) {
    const element = match[2] !== undefined ? `${type} | null` : type;
    type = `readonly ${element.includes(' ') ? `(${element})` : element}[]`;
  }
  return match[4] === undefined ? type : `${type} | null`;
}

/** The leading comment lines of a statement file, each trimmed at its end. */
function headerLines(text) {
  const lines = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('--')) break;
    lines.push(line.trimEnd());
  }
  return lines;
}

/** The header's sections by name (`Parameters`, `Row`, …): the heading's rest and the lines under it. */
function sections(file, lines) {
  const found = new Map();
  let current = null;
  for (const line of lines) {
    const heading = SECTION.exec(line);
    if (heading) {
      if (found.has(heading[1])) fail(file, `the header has two "-- ${heading[1]}:" lines`);
      current = { rest: heading[2].trim(), lines: [] };
      found.set(heading[1], current);
    } else if (current !== null) current.lines.push(line);
  }
  return found;
}

/**
 * The parameters a header declares, in order.
 * @returns {{ index: number, name: string, type: string, prose: string }[]}
 */
function parseParameters(file, section) {
  if (section === undefined) fail(file, 'the header has no "-- Parameters:" line');
  if (/^none\b/.test(section.rest)) {
    if (section.lines.some((line) => PARAM_LINE.test(line))) {
      fail(file, '"-- Parameters: none" is followed by a parameter');
    }
    return [];
  }
  if (section.rest !== '') {
    fail(
      file,
      'write each parameter on a line of its own under "-- Parameters:" ("--   $1 name: type — what it is"), or "-- Parameters: none."',
    );
  }
  const params = [];
  for (const line of section.lines) {
    const match = PARAM_LINE.exec(line);
    if (match) {
      const [, number, name, sqlType, prose] = match;
      const index = Number(number);
      if (index !== params.length + 1)
        fail(file, `parameter $${index} is declared where $${params.length + 1} was expected`);
      if (params.some((p) => p.name === name)) fail(file, `two parameters are named ${name}`);
      const type = tsType(file, `parameter $${index} ${name}`, sqlType, PARAM_TYPES);
      params.push({ index, name, type, prose: prose ?? '' });
    } else if (/^-- {5}\S/.test(line) && params.length > 0) {
      const last = params[params.length - 1];
      last.prose = `${last.prose} ${line.slice(7)}`.trim();
    } else {
      fail(file, `malformed parameter line "${line}" (expected "--   $n name: type — what it is")`);
    }
  }
  if (params.length === 0)
    fail(file, '"-- Parameters:" declares no parameter (write "-- Parameters: none.")');
  return params;
}

/**
 * The columns a header declares, `{ as }` for a row shared with another statement, or null.
 * @returns {null | { as: string } | { name: string, type: string }[]}
 */
function parseRow(file, section) {
  if (section === undefined) return null;
  const text = [section.rest, ...section.lines.map((line) => line.replace(/^--\s*/, ''))]
    .join(' ')
    .trim();
  const shared = /^as ([a-z][a-z0-9_]*)$/.exec(text);
  if (shared) return { as: shared[1] };
  const columns = [];
  for (const part of text.split(',')) {
    const match = /^([a-z_][a-z0-9_]*) (.+)$/.exec(part.trim());
    if (!match) fail(file, `malformed column "${part.trim()}" in "-- Row:" (expected "name type")`);
    if (columns.some((c) => c.name === match[1])) fail(file, `the row declares ${match[1]} twice`);
    columns.push({
      name: match[1],
      type: tsType(file, `column ${match[1]}`, match[2], COLUMN_TYPES),
    });
  }
  return columns;
}

/**
 * The statement with its time tokens replaced by reads of its `now` parameter; fails when the
 * SQL reads the database's clock itself, or uses a token without declaring the parameter.
 */
function withClock(file, sql, params) {
  if (!DATABASE_TIME_ALLOWED.has(file) && DATABASE_TIME.test(sql)) {
    fail(
      file,
      'the SQL reads the database clock itself; write :NOW (or :STATEMENT_NOW, :CLOCK_NOW) and declare "$n now: timestamptz or NULL"',
    );
  }
  if (sql.search(TIME_TOKEN) < 0) return sql;
  const now = params.find((p) => p.name === 'now');
  if (now === undefined || now.type !== 'Date | null') {
    fail(
      file,
      'the SQL reads the time (:NOW) but declares no parameter "now: timestamptz or NULL"',
    );
  }
  return sql.replace(
    TIME_TOKEN,
    (_, token) => `coalesce($${now.index}::timestamptz, ${TIME_TOKENS[token]}())`,
  );
}

/**
 * Reads one statement's header and checks it against the statement's SQL: every `$n` the SQL
 * uses is declared, and every declared parameter is used. Returns the SQL with its time tokens
 * replaced (see the top of this file).
 * @param file the file's name, for messages (`claim.sql`)
 * @param text the file's text, fragments included
 * @param tokens the statement without its comments, time tokens and all
 */
export function parseStatement(file, text, tokens) {
  const lines = headerLines(text);
  if (lines.length === 0) fail(file, 'the statement must start with a header comment');
  const found = sections(file, lines);
  if (!found.has('Purpose')) fail(file, 'the header has no "-- Purpose:" line');
  const params = parseParameters(file, found.get('Parameters'));
  const sql = withClock(file, tokens, params);
  const used = new Set([...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  for (const index of [...used].sort((a, b) => a - b)) {
    if (index > params.length)
      fail(file, `the SQL uses $${index}, which the header does not declare`);
  }
  for (const p of params) {
    if (!used.has(p.index))
      fail(file, `parameter $${p.index} ${p.name} is declared but the SQL never uses it`);
  }
  const purpose = found.get('Purpose');
  const summary = [purpose.rest, ...purpose.lines.map((l) => l.replace(/^--\s*/, ''))].join(' ');
  return {
    params,
    row: parseRow(file, found.get('Row')),
    summary: firstSentence(summary),
    sql,
  };
}

/** The text up to the first full stop that ends a sentence. */
function firstSentence(text) {
  const end = /\.(\s|$)/.exec(text);
  return (end ? text.slice(0, end.index + 1) : text).replace(/\*\//g, '*\\/').trim();
}

/** `settle_archive` → `SettleArchive`. */
function pascal(name) {
  return name.replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase());
}

/** `settle_archive` → `settleArchive`. */
function camel(name) {
  const p = pascal(name);
  return p[0].toLowerCase() + p.slice(1);
}

/** TSDoc text: no comment terminators. */
function doc(text) {
  return text.replace(/\*\//g, '*\\/');
}

/**
 * The TypeScript module of typed statements.
 * @param statements `{ name, params, row, summary }` per statement, sorted by name
 */
export function renderStatements(statements) {
  const byName = new Map(statements.map((s) => [s.name, s]));
  const out = [
    '// Generated by scripts/gen-sql.mjs from the headers of src/storage/sql/queries. DO NOT EDIT.',
    '// Run `npm run gen:sql` after changing a .sql file.',
    '/**',
    " * One typed function per statement: it takes the statement texts of a schema (the store's",
    " * bound `QUERIES`), named parameters, and sends them in the statement's order. Rows carry the",
    " * driver's values (see rows.ts for int8, numeric and timestamptz).",
    ' */',
    "import type { Executor, QueryOptions } from './executor.js';",
  ];
  for (const s of statements) {
    const type = pascal(s.name);
    let rowType = 'Record<string, unknown>';
    if (s.row !== null && 'as' in s.row) {
      const other = byName.get(s.row.as);
      if (other === undefined || other.row === null || 'as' in other.row) {
        fail(`${s.name}.sql`, `"-- Row: as ${s.row.as}" names no statement with its own row`);
      }
      rowType = `${pascal(s.row.as)}Row`;
    } else if (s.row !== null) {
      rowType = `${type}Row`;
      // A type, not an interface: it then also fits rows.ts's mappers of `Record<string, unknown>`.
      out.push('', `/** A row of ${s.name}.sql. */`, `export type ${rowType} = {`);
      for (const c of s.row) out.push(`  readonly ${c.name}: ${c.type};`);
      out.push('};');
    }
    const args = ['db: Executor', `sql: { readonly ${s.name}: string }`];
    if (s.params.length > 0) {
      out.push('', `/** Parameters of ${s.name}.sql. */`, `export interface ${type}Params {`);
      for (const p of s.params) {
        out.push(
          `  /** $${p.index}${p.prose === '' ? '' : `: ${doc(p.prose)}`} */`,
          `  readonly ${p.name}: ${p.type};`,
        );
      }
      out.push('}');
      args.push(`params: ${type}Params`);
    }
    args.push('options?: QueryOptions');
    const values = s.params.map((p) => `params.${p.name}`).join(', ');
    out.push(
      '',
      `/** ${s.name}.sql: ${doc(s.summary)} */`,
      `export function ${camel(s.name)}(`,
      ...args.map((a) => `  ${a},`),
      `): Promise<${rowType}[]> {`,
      `  return db.query<${rowType}>(sql.${s.name}, [${values}], options);`,
      '}',
    );
  }
  out.push('');
  return out.join('\n');
}
