/**
 * A limit the PostgreSQL provider set that runs out is the retryable `CHOKAQ_STORAGE_TIMEOUT`,
 * whichever limit it was: `statement_timeout` (57014), `lock_timeout` (55P03),
 * `idle_in_transaction_session_timeout` (25P03) on the server, `pg`'s `query_timeout` on the
 * client. Other server errors keep their mapping.
 */
import { describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import { beginText } from '../../src/storage/postgres/pg-statements.js';
import { DEFAULT_TIMEOUTS } from '../../src/storage/postgres/options.js';
import { mapDriverError } from '../../src/storage/sql/errors.js';

/** A driver error as `pg` makes it for a server error. */
function serverError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR' });
}

describe('storage timeouts', () => {
  it('maps every limit to a retryable CHOKAQ_STORAGE_TIMEOUT', () => {
    const errors = [
      serverError('57014', 'canceling statement due to statement timeout'),
      serverError('55P03', 'canceling statement due to lock timeout'),
      serverError('25P03', 'terminating connection due to idle-in-transaction timeout'),
      new Error('Query read timeout'),
    ];
    for (const error of errors) {
      const mapped = mapDriverError(error) as ChokaQError;
      expect(mapped).toBeInstanceOf(ChokaQError);
      expect({ code: mapped.code, retryable: mapped.retryable, cause: mapped.cause }).toEqual({
        code: 'CHOKAQ_STORAGE_TIMEOUT',
        retryable: true,
        cause: error,
      });
    }
  });

  it('leaves other server errors as they were', () => {
    const mapped = mapDriverError(serverError('23505', 'duplicate key')) as ChokaQError;
    expect(mapped.code).toBe('CHOKAQ_STORAGE_ERROR');
  });

  it('opens each kind of transaction with its limits in one message', () => {
    const limits = {
      ...DEFAULT_TIMEOUTS,
      statementMs: 1000,
      lockMs: 200,
      idleInTransactionMs: 300,
    };
    expect(beginText(limits, 'engine')).toBe(
      'BEGIN; SET LOCAL idle_in_transaction_session_timeout = 300; SET LOCAL statement_timeout = 1000',
    );
    expect(beginText(limits, 'operator')).toBe(
      'BEGIN; SET LOCAL idle_in_transaction_session_timeout = 300; SET LOCAL statement_timeout = 1000; SET LOCAL lock_timeout = 200',
    );
    expect(beginText(limits, 'migration')).toBe(
      'BEGIN; SET LOCAL idle_in_transaction_session_timeout = 300; SET LOCAL statement_timeout = 0',
    );
    expect(beginText(undefined, 'engine')).toBe('BEGIN');
  });
});
