// Types of scripts/sql-statements.mjs, for test/unit/sql-statements.test.ts.

/** One declared parameter: `$index name: type — prose`, its type in TypeScript. */
export interface StatementParam {
  index: number;
  name: string;
  type: string;
  prose: string;
}

/** One declared column of a row, its type in TypeScript. */
export interface StatementColumn {
  name: string;
  type: string;
}

/** What a statement's header declares. */
export interface StatementHeader {
  params: StatementParam[];
  /** The columns, `{ as }` for another statement's row, or `null` when the header has no row. */
  row: StatementColumn[] | { as: string } | null;
  /** The first sentence of the purpose. */
  summary: string;
  /** The statement with its time tokens (`:NOW`, …) read from its `now` parameter. */
  sql: string;
}

/**
 * Reads a statement's header and checks it against the statement's SQL.
 * @throws Error naming `file` when the header is missing or malformed, the SQL uses a `$n` the
 *   header does not declare, a declared parameter is never used, or the SQL reads the database
 *   clock other than through a time token and the `now` parameter.
 */
export declare function parseStatement(file: string, text: string, sql: string): StatementHeader;

/** The TypeScript module of typed statements, from the statements sorted by name. */
export declare function renderStatements(
  statements: readonly (StatementHeader & { name: string })[],
): string;
