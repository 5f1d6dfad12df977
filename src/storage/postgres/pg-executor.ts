/** {@link Executor} over a `pg` pool: one pooled client per transaction, BEGIN/COMMIT/ROLLBACK. */
import { createHash } from 'node:crypto';
import { mapDriverError } from '../sql/errors.js';
import { statementValues } from './array-param.js';
import type { Executor, QueryOptions, TransactionKind } from '../sql/executor.js';
import type { SessionTimeouts } from './options.js';
import type {
  PostgresPool,
  PostgresPoolClient,
  PostgresQueryable,
  PostgresStatement,
} from './pool.js';

const statementNames = new Map<string, string>();

/**
 * The statement as a named prepared statement: `pg` parses it once per connection, and
 * PostgreSQL can reuse its plan instead of planning the claim and settle statements on every call.
 */
function prepared(sql: string, params: readonly unknown[]): PostgresStatement {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `chokaq_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    statementNames.set(sql, name);
  }
  return { name, text: sql, values: statementValues(params) };
}

/** `query` (as a prepared statement unless told otherwise) and `run` over a pool or a checked-out client, errors mapped. */
function statementsOn(
  target: PostgresQueryable,
  prepare: boolean,
): Pick<Executor, 'query' | 'run'> {
  return {
    async query<R>(
      sql: string,
      params: readonly unknown[] = [],
      options?: QueryOptions,
    ): Promise<R[]> {
      const statement =
        (options?.prepare ?? prepare)
          ? prepared(sql, params)
          : { text: sql, values: statementValues(params) };
      try {
        return (await target.query(statement)).rows as R[];
      } catch (error) {
        throw mapDriverError(error);
      }
    },
    async run(script: string): Promise<void> {
      try {
        await target.query(script);
      } catch (error) {
        throw mapDriverError(error);
      }
    },
  };
}

/**
 * The text that opens a transaction of `kind`: `BEGIN` and the `SET LOCAL` limits in one
 * simple-protocol message, so the limits cost no round trip. `SET LOCAL` ends with the
 * transaction, so it holds behind a transaction-mode pooler and on a caller's pool alike.
 */
export function beginText(timeouts: SessionTimeouts | undefined, kind: TransactionKind): string {
  if (timeouts === undefined) return 'BEGIN';
  const limits: [string, number][] = [
    ['idle_in_transaction_session_timeout', timeouts.idleInTransactionMs],
    // 0 overrides a session-wide statement_timeout the provider's pool sets at connect.
    ['statement_timeout', kind === 'migration' ? 0 : timeouts.statementMs],
  ];
  if (kind === 'operator') limits.push(['lock_timeout', timeouts.lockMs]);
  return ['BEGIN', ...limits.map(([name, ms]) => `SET LOCAL ${name} = ${ms}`)].join('; ');
}

/** An executor over one checked-out client, inside a transaction this module opened. */
function transactionExecutor(client: PostgresPoolClient, prepare: boolean): Executor {
  const executor: Executor = {
    kind: 'postgres',
    ...statementsOn(client, prepare),
    transaction: <T>(fn: (tx: Executor) => Promise<T>): Promise<T> => fn(executor),
    close: () => Promise.resolve(),
  };
  return executor;
}

/** Options of {@link pgExecutor}. */
export interface PgExecutorOptions {
  /** Send statements as named prepared statements. Default: `true`. */
  prepare?: boolean;
  /** The limits every transaction sets (see {@link beginText}). Default: none. */
  timeouts?: SessionTimeouts;
}

/**
 * Wraps `pool`. `close()` calls `endPool` (the owner's way to end a pool it created), else leaves
 * the pool alone.
 * @param endPool Ends the pool; omitted for a caller's pool. Default: none.
 */
export function pgExecutor(
  pool: PostgresPool,
  endPool?: () => Promise<void>,
  options: PgExecutorOptions = {},
): Executor {
  const prepare = options.prepare ?? true;
  const begin = new Map<TransactionKind, string>();
  let closed = false;
  return {
    kind: 'postgres',
    ...statementsOn(pool, prepare),
    async transaction<T>(
      fn: (tx: Executor) => Promise<T>,
      kind: TransactionKind = 'engine',
    ): Promise<T> {
      let opening = begin.get(kind);
      if (opening === undefined) {
        opening = beginText(options.timeouts, kind);
        begin.set(kind, opening);
      }
      let client: PostgresPoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw mapDriverError(error);
      }
      let broken: Error | undefined;
      // pg-pool stops listening to a checked-out client; without a listener of our own, a server
      // ending the connection between two statements (restart, pg_terminate_backend) would be an
      // uncaught 'error' event that kills the process. Record it; the next query then fails.
      const onError = (error: Error): void => {
        broken = error;
      };
      client.on('error', onError);
      try {
        await client.query(opening);
        const result = await fn(transactionExecutor(client, prepare));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          // The connection is unusable: destroy it instead of returning it to the pool.
          broken =
            rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
        throw mapDriverError(error);
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await endPool?.();
    },
  };
}
