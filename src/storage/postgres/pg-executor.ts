/** {@link Executor} over a `pg` pool: one pooled client per transaction, BEGIN/COMMIT/ROLLBACK. */
import { mapDriverError } from '../sql/errors.js';
import type { Executor, Lane, TransactionKind } from '../sql/executor.js';
import type { SessionTimeouts } from './options.js';
import { beginTexts, statementsOn, transactionOn } from './pg-statements.js';
import { pinnedExecutor } from './pinned-executor.js';
import type { PostgresPool, PostgresPoolClient } from './pool.js';

/** Options of {@link pgExecutor}. */
export interface PgExecutorOptions {
  /** Send statements as named prepared statements. Default: `true`. */
  prepare?: boolean;
  /** The limits every transaction sets (see `beginText`). Default: none. */
  timeouts?: SessionTimeouts;
  /**
   * The lanes `pinned()` may keep a connection of the pool for (see {@link pinnedExecutor});
   * none leaves every connection to the pool. Default: none.
   */
  pinnable?: readonly Lane[];
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
  const begin = beginTexts(options.timeouts);
  const pinnable = new Set(options.pinnable);
  let closed = false;
  return {
    kind: 'postgres',
    ...statementsOn(pool, prepare),
    pinned: (lane) => (pinnable.has(lane) ? pinnedExecutor(pool, options) : undefined),
    async transaction<T>(
      fn: (tx: Executor) => Promise<T>,
      kind: TransactionKind = 'engine',
    ): Promise<T> {
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
        // An unusable connection is destroyed instead of returned to the pool.
        return await transactionOn(client, begin(kind), prepare, fn, onError);
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
