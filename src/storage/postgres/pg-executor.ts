/** {@link Executor} over a `pg` pool: one pooled client per transaction, BEGIN/COMMIT/ROLLBACK. */
import type pg from 'pg';
import { mapDriverError } from '../sql/errors.js';
import { clientExecutor, type Executor } from '../sql/executor.js';

/**
 * Wraps `pool`. `close()` ends the pool only when `ownsPool` is true.
 * @param ownsPool Whether this executor created the pool. Default: `true`.
 */
export function pgExecutor(pool: pg.Pool, ownsPool = true): Executor {
  let closed = false;
  return {
    kind: 'postgres',
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
      try {
        const result = await pool.query(sql, [...params]);
        return result.rows as R[];
      } catch (error) {
        throw mapDriverError(error);
      }
    },
    async run(script: string): Promise<void> {
      try {
        await pool.query(script);
      } catch (error) {
        throw mapDriverError(error);
      }
    },
    async transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw mapDriverError(error);
      }
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await fn(clientExecutor(client));
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
        client.release(broken);
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (ownsPool) await pool.end();
    },
  };
}
