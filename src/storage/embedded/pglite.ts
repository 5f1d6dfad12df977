/**
 * What ChokaQ calls on a caller's PGlite instance, as small structural types. A `PGlite` fits
 * them as it is, and the provider's declarations do not pull in PGlite's own (which need
 * `@types/node` and `@types/emscripten` once library checking is on).
 */

/** A PGlite session ChokaQ sends SQL to: the instance or one of its transactions. */
export interface PgliteSession {
  /** Runs one statement with `$1`, `$2`… parameters. */
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  /** Runs a script of several statements without parameters. */
  exec(script: string): Promise<unknown>;
}

/**
 * The `pglite` option of `embedded()`: what ChokaQ uses of a started PGlite instance. A `PGlite`
 * fits. ChokaQ never closes an instance it was given.
 */
export interface PgliteInstance extends PgliteSession {
  /** Resolves once the instance is ready for queries. */
  readonly waitReady: Promise<void>;
  /** Whether the instance has been closed. */
  readonly closed: boolean;
  /** Runs `fn` in a transaction that commits when it resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: PgliteSession) => Promise<T>): Promise<T>;
  /** LISTENs on `channel`; resolves to the function that stops listening. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
}
