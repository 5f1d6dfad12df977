import { describe, expect, it } from 'vitest';
import { parseStatement, renderStatements } from '../../scripts/sql-statements.mjs';

/** A statement file: its header lines, then its SQL. */
function statement(header: readonly string[], sql: string): [text: string, sql: string] {
  return [[...header, sql].join('\n'), sql];
}

const GOOD = statement(
  [
    '-- Purpose: a statement. More prose.',
    '-- Parameters:',
    '--   $1 workerId: text — the worker',
    '--     (a deeper line goes on with the prose)',
    '--   $2 queues: text[] or NULL — the queues',
    '--   $3 notes: (text or NULL)[] — notes',
    '-- Locking: none.',
    '-- Row: id text, attempts int, run_at timestamptz or NULL,',
    '--   n bigint',
  ],
  'SELECT $1::text, $2::text[], $3::text[]',
);

describe('scripts/sql-statements.mjs', () => {
  it('reads the parameters, their types and the row of a header', () => {
    const header = parseStatement('good.sql', ...GOOD);
    expect(header.params).toEqual([
      {
        index: 1,
        name: 'workerId',
        type: 'string',
        prose: 'the worker (a deeper line goes on with the prose)',
      },
      { index: 2, name: 'queues', type: 'readonly string[] | null', prose: 'the queues' },
      { index: 3, name: 'notes', type: 'readonly (string | null)[]', prose: 'notes' },
    ]);
    expect(header.row).toEqual([
      { name: 'id', type: 'string' },
      { name: 'attempts', type: 'number' },
      { name: 'run_at', type: 'Date | string | null' },
      { name: 'n', type: 'string | number | bigint' },
    ]);
    expect(header.summary).toBe('a statement.');
  });

  it('renders a function that sends the parameters in their order', () => {
    const source = renderStatements([{ name: 'good_one', ...parseStatement('good.sql', ...GOOD) }]);
    expect(source).toContain('export interface GoodOneParams {');
    expect(source).toContain('export type GoodOneRow = {');
    expect(source).toContain(
      'db.query<GoodOneRow>(sql.good_one, [params.workerId, params.queues, params.notes], options)',
    );
  });

  it('accepts a statement without parameters', () => {
    const [text, sql] = statement(['-- Purpose: one.', '-- Parameters: none.'], 'SELECT 1');
    expect(parseStatement('one.sql', text, sql).params).toEqual([]);
  });

  it('refuses a malformed or missing header, naming the file', () => {
    const refused = (header: readonly string[], sql = 'SELECT $1::text'): (() => unknown) => {
      const [text, body] = statement(header, sql);
      return () => parseStatement('bad.sql', text, body);
    };
    expect(refused([], 'SELECT 1')).toThrow(/^bad\.sql: the statement must start with a header/);
    expect(refused(['-- Purpose: x.', '-- Locking: none.'])).toThrow(
      /^bad\.sql: the header has no "-- Parameters:" line/,
    );
    expect(refused(['-- Parameters:', '--   $1 id: text — the id'])).toThrow(
      /^bad\.sql: the header has no "-- Purpose:" line/,
    );
    expect(refused(['-- Purpose: x.', '-- Parameters: $1 worker id (text).'])).toThrow(
      /^bad\.sql: write each parameter on a line of its own/,
    );
    expect(refused(['-- Purpose: x.', '-- Parameters:', '--   $1 id text'])).toThrow(
      /^bad\.sql: malformed parameter line "-- {3}\$1 id text"/,
    );
    expect(refused(['-- Purpose: x.', '-- Parameters:', '--   $1 id: uuid — the id'])).toThrow(
      /^bad\.sql: parameter \$1 id has an unknown type "uuid"/,
    );
    expect(refused(['-- Purpose: x.', '-- Parameters:', '--   $2 id: text — the id'])).toThrow(
      /^bad\.sql: parameter \$2 is declared where \$1 was expected/,
    );
    expect(
      refused(['-- Purpose: x.', '-- Parameters: none.', '-- Row: id'], 'SELECT 1 AS id'),
    ).toThrow(/^bad\.sql: malformed column "id" in "-- Row:"/);
  });

  it('refuses a $n the SQL uses but the header does not declare', () => {
    const [text, sql] = statement(
      ['-- Purpose: x.', '-- Parameters:', '--   $1 id: text — the id'],
      'SELECT $1::text, $2::int',
    );
    expect(() => parseStatement('undeclared.sql', text, sql)).toThrow(
      'undeclared.sql: the SQL uses $2, which the header does not declare',
    );
  });

  it('refuses a declared parameter the SQL never uses', () => {
    const [text, sql] = statement(
      [
        '-- Purpose: x.',
        '-- Parameters:',
        '--   $1 id: text — the id',
        '--   $2 limit: int — most rows',
      ],
      'SELECT $1::text',
    );
    expect(() => parseStatement('unused.sql', text, sql)).toThrow(
      'unused.sql: parameter $2 limit is declared but the SQL never uses it',
    );
  });

  it('reads the time from the now parameter, the database clock when it is NULL', () => {
    const [text, sql] = statement(
      [
        '-- Purpose: x.',
        '-- Parameters:',
        '--   $1 limit: int — most rows',
        "--   $2 now: timestamptz or NULL — the store's clock",
      ],
      'SELECT :NOW, :STATEMENT_NOW, :CLOCK_NOW LIMIT $1::int',
    );
    expect(parseStatement('time.sql', text, sql).sql).toBe(
      'SELECT coalesce($2::timestamptz, now()), coalesce($2::timestamptz, statement_timestamp()),' +
        ' coalesce($2::timestamptz, clock_timestamp()) LIMIT $1::int',
    );
  });

  it('refuses a statement that reads the database clock itself or lacks the now parameter', () => {
    const [text, sql] = statement(['-- Purpose: x.', '-- Parameters: none.'], 'SELECT now()');
    expect(() => parseStatement('clock.sql', text, sql)).toThrow(
      /^clock\.sql: the SQL reads the database clock itself/,
    );
    const [current] = statement(['-- Purpose: x.', '-- Parameters: none.'], '');
    expect(() => parseStatement('current.sql', current, 'SELECT current_timestamp')).toThrow(
      /^current\.sql: the SQL reads the database clock itself/,
    );
    const [token, tokenSql] = statement(['-- Purpose: x.', '-- Parameters: none.'], 'SELECT :NOW');
    expect(() => parseStatement('token.sql', token, tokenSql)).toThrow(
      'token.sql: the SQL reads the time (:NOW) but declares no parameter "now: timestamptz or NULL"',
    );
  });
});
