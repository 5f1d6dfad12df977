/**
 * {@link Executor} over PGlite. PGlite has one session behind a mutex, so transactions always go
 * through `db.transaction()` (which holds the mutex): a raw `BEGIN` sent through `query()` would
 * let another caller's statements run inside, and be lost in, this transaction.
 */
import { mapDriverError } from '../sql/errors.js';
import type { Executor } from '../sql/executor.js';
import type { PgliteInstance, PgliteSession } from './pglite.js';

function sessionExecutor(session: PgliteSession, transaction: Executor['transaction']): Executor {
  return {
    kind: 'embedded',
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
      try {
        const result = await session.query<R>(sql, [...params]);
        return result.rows;
      } catch (error) {
        throw mapDriverError(error);
      }
    },
    async run(script: string): Promise<void> {
      try {
        await session.exec(script);
      } catch (error) {
        throw mapDriverError(error);
      }
    },
    transaction,
    close: () => Promise.resolve(),
  };
}

/**
 * Wraps a PGlite instance. `close()` calls `closeDb` (the owner's way to close an instance it
 * started) unless the instance is closed already; a caller's instance stays open.
 * @param closeDb Closes the instance; omitted for a caller's instance. Default: none.
 */
export function pgliteExecutor(db: PgliteInstance, closeDb?: () => Promise<void>): Executor {
  let closed = false;
  const base = sessionExecutor(db, async <T>(fn: (tx: Executor) => Promise<T>): Promise<T> => {
    try {
      return await db.transaction(async (tx) => {
        const inner: Executor = sessionExecutor(tx, (nested) => nested(inner));
        return fn(inner);
      });
    } catch (error) {
      throw mapDriverError(error);
    }
  });
  return {
    ...base,
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (closeDb !== undefined && !db.closed) await closeDb();
    },
  };
}
