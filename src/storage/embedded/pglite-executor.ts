/**
 * {@link Executor} over PGlite. PGlite has one session behind a mutex, so transactions always go
 * through `db.transaction()` (which holds the mutex): a raw `BEGIN` sent through `query()` would
 * let another caller's statements run inside, and be lost in, this transaction.
 */
import type { PGliteInterface, Transaction } from '@electric-sql/pglite';
import { mapDriverError } from '../sql/errors.js';
import type { Executor } from '../sql/executor.js';

/** What both a PGlite instance and a PGlite transaction offer. */
type Session = Pick<Transaction, 'query' | 'exec'>;

function sessionExecutor(session: Session, transaction: Executor['transaction']): Executor {
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
 * Wraps a PGlite instance. `close()` closes the instance only when `owns` is true (a shared
 * instance passed in by the caller stays open).
 */
export function pgliteExecutor(db: PGliteInterface, owns: boolean): Executor {
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
      if (owns && !db.closed) await db.close();
    },
  };
}
