/**
 * How the `pg` executors send statements (named prepared statements) and run a transaction on a
 * client they checked out.
 */
import { createHash } from 'node:crypto';
import { mapDriverError } from '../sql/errors.js';
import type { Executor, QueryOptions, TransactionKind } from '../sql/executor.js';
import { statementValues } from './array-param.js';
import type { SessionTimeouts } from './options.js';
import type { PostgresQueryable, PostgresStatement } from './pool.js';

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
export function statementsOn(
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

/** An executor over one checked-out client, inside a transaction its caller opened. */
function transactionExecutor(client: PostgresQueryable, prepare: boolean): Executor {
  const executor: Executor = {
    kind: 'postgres',
    ...statementsOn(client, prepare),
    transaction: <T>(fn: (tx: Executor) => Promise<T>): Promise<T> => fn(executor),
    close: () => Promise.resolve(),
  };
  return executor;
}

/** {@link beginText} of each kind of transaction, made on first use. */
export function beginTexts(
  timeouts: SessionTimeouts | undefined,
): (kind: TransactionKind) => string {
  const made = new Map<TransactionKind, string>();
  return (kind) => {
    let text = made.get(kind);
    if (text === undefined) {
      text = beginText(timeouts, kind);
      made.set(kind, text);
    }
    return text;
  };
}

/**
 * Runs `fn` in one transaction on `client`, opened with `opening` (see {@link beginText}): commits
 * when it resolves, rolls back when it throws and rejects with the error mapped. A failed
 * `ROLLBACK` means the connection is unusable: `onUnusable` is told, to destroy it.
 */
export async function transactionOn<T>(
  client: PostgresQueryable,
  opening: string,
  prepare: boolean,
  fn: (tx: Executor) => Promise<T>,
  onUnusable: (error: Error) => void,
): Promise<T> {
  try {
    await client.query(opening);
    const result = await fn(transactionExecutor(client, prepare));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      onUnusable(rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError)));
    }
    throw mapDriverError(error);
  }
}
