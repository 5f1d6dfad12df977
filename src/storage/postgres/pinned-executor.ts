/**
 * {@link Executor} over one connection kept out of a pool: checked out on first use, held until
 * `close()`, given up (destroyed) when it fails, and checked out again by the next call.
 */
import { ChokaQError } from '../../errors.js';
import { mapDriverError } from '../sql/errors.js';
import type { Executor, TransactionKind } from '../sql/executor.js';
import { beginTexts, statementsOn, transactionOn } from './pg-statements.js';
import type { SessionTimeouts } from './options.js';
import type { PostgresPool, PostgresPoolClient } from './pool.js';

/** Options of {@link pinnedExecutor}. */
export interface PinnedExecutorOptions {
  /** Send statements as named prepared statements. Default: `true`. */
  prepare?: boolean;
  /** The limits every transaction sets (see `beginText`). Default: none. */
  timeouts?: SessionTimeouts;
}

/**
 * An executor for a caller that sends the same few statements one after another (the worker's
 * claims, its settle rounds). PostgreSQL plans a prepared statement with its values five times on
 * each connection before it keeps a generic plan, and a pool hands every call whichever
 * connection is idle, so each connection pays those plans (about a millisecond each for a claim or
 * a settle); on one kept connection they are paid once, and no call waits for the pool.
 *
 * Calls take turns: a statement or transaction starts once the one before it ended. A statement
 * that fails gives the connection up, as `pg.Pool#query` does; a transaction keeps it when its
 * `ROLLBACK` succeeds.
 */
export function pinnedExecutor(pool: PostgresPool, options: PinnedExecutorOptions = {}): Executor {
  const prepare = options.prepare ?? true;
  const begin = beginTexts(options.timeouts);
  let client: PostgresPoolClient | null = null;
  /** Set when the kept connection failed between calls (the server ended it). */
  let broken: Error | undefined;
  const onError = (error: Error): void => {
    broken = error;
  };
  let turn: Promise<void> = Promise.resolve();
  let closed = false;

  const giveUp = (error?: unknown): void => {
    if (client === null) return;
    client.off('error', onError);
    // pg-pool destroys a client released with an error, and keeps one released without.
    client.release(error === undefined ? undefined : asError(error));
    client = null;
  };
  const connection = async (): Promise<PostgresPoolClient> => {
    if (broken !== undefined) {
      giveUp(broken);
      broken = undefined;
    }
    if (closed) {
      throw new ChokaQError('CHOKAQ_NOT_STARTED', 'The PostgreSQL store is closed; call open().');
    }
    if (client !== null) return client;
    let opened: PostgresPoolClient;
    try {
      opened = await pool.connect();
    } catch (error) {
      throw mapDriverError(error);
    }
    opened.on('error', onError);
    client = opened;
    return opened;
  };
  /** Runs `fn` on the kept connection once the calls before it ended. */
  const inTurn = async <T>(fn: (on: PostgresPoolClient) => Promise<T>): Promise<T> => {
    const before = turn;
    let done = (): void => undefined;
    turn = new Promise((resolve) => (done = resolve));
    try {
      await before;
      return await fn(await connection());
    } finally {
      done();
    }
  };
  /** Runs one statement of `fn`; a failure gives the connection up. */
  const statement = <T>(fn: (on: Pick<Executor, 'query' | 'run'>) => Promise<T>): Promise<T> =>
    inTurn(async (on) => {
      try {
        return await fn(statementsOn(on, prepare));
      } catch (error) {
        giveUp(error);
        throw error;
      }
    });

  return {
    kind: 'postgres',
    query: (sql, params, queryOptions) => statement((on) => on.query(sql, params, queryOptions)),
    run: (script) => statement((on) => on.run(script)),
    transaction: <T>(
      fn: (tx: Executor) => Promise<T>,
      kind: TransactionKind = 'engine',
    ): Promise<T> => inTurn((on) => transactionOn(on, begin(kind), prepare, fn, giveUp)),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await turn;
      giveUp(broken);
    },
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
