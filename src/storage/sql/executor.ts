import { mapDriverError } from './errors.js';

/**
 * The one seam between the SQL store and a driver. `pg` (PostgreSQL) and PGlite (embedded) each
 * implement it; every statement the store sends is written once, for PostgreSQL ≥ 13.
 */

/** How a statement is sent. */
export interface QueryOptions {
  /**
   * Whether the driver may keep the statement prepared on the connection and reuse its plan.
   * Pass `false` for statements put together per call (the operator query): their text varies,
   * and a cached generic plan ignores the parameter values their best plan depends on.
   * Default: `true`.
   */
  prepare?: boolean;
}

/**
 * What a transaction is for, which decides the server-side limits a driver sets on it (the
 * PostgreSQL provider; PGlite has one session and sets none):
 * - `'engine'`: the statement and idle-in-transaction limits;
 * - `'operator'`: those and the lock-wait limit (an operator action must not queue behind a
 *   stuck transaction);
 * - `'migration'`: only the idle-in-transaction limit (DDL on a large table may run long).
 */
export type TransactionKind = 'engine' | 'operator' | 'migration';

/**
 * A caller that sends statements one after another, on a connection kept for it where the
 * provider keeps one (see {@link Executor.pinned}): the worker's claims, its settle rounds, and
 * `'upkeep'`, the short background statements of a process (queue lists, the capped-queue read,
 * promoter passes, presence, cluster broadcasts), which would otherwise each take a connection
 * of the pool whenever they run at the same moment.
 */
export type Lane = 'claim' | 'settle' | 'upkeep';

/** Runs SQL on one database session or pool. */
export interface Executor {
  /** Driver name for logs: `postgres`, `embedded` or `client` (a caller's transaction). */
  readonly kind: string;
  /**
   * Runs one parameterised statement and returns its rows. Column values keep the driver's types
   * (int8 may be a string, number or bigint); map them with `rows.ts`.
   */
  query<R>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  run(script: string): Promise<void>;
  /**
   * Runs `fn` inside one transaction: commits when it resolves, rolls back when it throws.
   * Inside a transaction, a nested call runs `fn` in the same transaction.
   * @param kind What the transaction is for (see {@link TransactionKind}). Default: `'engine'`.
   */
  transaction<T>(fn: (tx: Executor) => Promise<T>, kind?: TransactionKind): Promise<T>;
  /**
   * A new executor over one connection kept for `lane` (see {@link Lane}), so PostgreSQL plans
   * its statements once for that connection instead of once for every connection of the pool,
   * and the pool opens no connection for it; its calls take turns. Close it before this
   * executor. `undefined` when the pool is too small to keep one for `lane`; absent where there
   * is one session (PGlite).
   */
  pinned?(lane: Lane): Executor | undefined;
  /** Releases what the executor owns. Idempotent. */
  close(): Promise<void>;
}

/** The subset of a `pg` client (or pool client) that {@link clientExecutor} needs. */
export interface QueryableClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * An executor over a caller's client that is already inside a transaction (after `BEGIN`):
 * `transaction()` runs in the caller's transaction and `close()` leaves the client alone.
 */
export function clientExecutor(client: QueryableClient): Executor {
  const executor: Executor = {
    kind: 'client',
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
      try {
        const result = await client.query(sql, [...params]);
        return result.rows as R[];
      } catch (error) {
        throw mapDriverError(error);
      }
    },
    async run(script: string): Promise<void> {
      try {
        await client.query(script);
      } catch (error) {
        throw mapDriverError(error);
      }
    },
    transaction: <T>(fn: (tx: Executor) => Promise<T>): Promise<T> => fn(executor),
    close: () => Promise.resolve(),
  };
  return executor;
}
