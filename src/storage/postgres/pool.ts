/**
 * What ChokaQ calls on a caller's connection pool, as small structural types. A `pg.Pool` fits
 * them as it is, and the provider's declarations need no `@types/pg`.
 */

/** A statement as ChokaQ sends it: a named prepared statement with its parameters. */
export interface PostgresStatement {
  /**
   * Name of the prepared statement, the same for the same SQL text; absent for a statement built
   * per call (planned with its parameters every time, nothing kept on the connection).
   */
  name?: string;
  /** The SQL text with `$1`, `$2`… placeholders. */
  text: string;
  /** The parameters, in placeholder order. */
  values: unknown[];
}

/** What a query returns; ChokaQ reads only the rows. */
export interface PostgresQueryResult {
  rows: unknown[];
}

/** A connection ChokaQ sends SQL to: a script as text, or a {@link PostgresStatement}. */
export interface PostgresQueryable {
  query(statement: string | PostgresStatement): Promise<PostgresQueryResult>;
}

/** A client checked out of a {@link PostgresPool} for one transaction (`pg.PoolClient`). */
export interface PostgresPoolClient extends PostgresQueryable {
  /** ChokaQ listens for the server ending the connection while the client is checked out. */
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** Removes the listener added with {@link PostgresPoolClient.on}. */
  off(event: 'error', listener: (error: Error) => void): unknown;
  /** Returns the client to the pool; with an error, the pool destroys the client instead. */
  release(error?: Error): void;
}

/**
 * The `pool` option of `postgres()`: what ChokaQ uses of a connection pool. A `pg.Pool` fits.
 * ChokaQ never ends a pool it was given.
 */
export interface PostgresPool extends PostgresQueryable {
  /** Checks out a client for a transaction (`BEGIN` … `COMMIT`/`ROLLBACK`). */
  connect(): Promise<PostgresPoolClient>;
  /**
   * The pool's connection settings (`pg.Pool#options`): ChokaQ opens its dedicated LISTEN
   * connection with them, so wake-ups come from the same database.
   */
  readonly options: object;
}
