import { ChokaQError } from '../../errors.js';

/** SQLSTATE classes and codes that mean "the server could not be reached or went away". */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** Node socket errors that mean the same. */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * SQLSTATEs of a server-side limit: 57014 a statement cancelled by `statement_timeout` (ChokaQ
 * never cancels statements otherwise), 55P03 a lock wait past `lock_timeout`, 25P03 a session
 * ended by `idle_in_transaction_session_timeout`.
 */
const TIMEOUT_SQLSTATES = new Set(['57014', '55P03', '25P03']);

/** What `pg` says when its client-side `query_timeout` gave up on an answer. */
const CLIENT_TIMEOUT_MESSAGE = /^Query read timeout$/;

/** Fields of a driver error that the mapping looks at. */
interface DriverErrorShape {
  code?: unknown;
  constraint?: unknown;
  severity?: unknown;
}

/** A SQLSTATE: five digits or upper-case letters, such as `42P01`. */
const SQLSTATE_PATTERN = /^[0-9A-Z]{5}$/;

/**
 * The driver error behind `error`: the `cause` of a `CHOKAQ_STORAGE_ERROR` made by
 * {@link mapDriverError}, else `error` itself. Lets the store inspect a mapped error's SQLSTATE.
 */
export function driverError(error: unknown): unknown {
  return error instanceof ChokaQError && error.code === 'CHOKAQ_STORAGE_ERROR'
    ? error.cause
    : error;
}

/** The SQLSTATE (or errno code) of a driver error, also behind a `CHOKAQ_STORAGE_ERROR`. */
export function errorCode(error: unknown): string | undefined {
  const cause = driverError(error);
  if (typeof cause !== 'object' || cause === null) return undefined;
  const code = (cause as DriverErrorShape).code;
  return typeof code === 'string' ? code : undefined;
}

/** The violated constraint of a driver error, also behind a `CHOKAQ_STORAGE_ERROR`. */
export function errorConstraint(error: unknown): string | undefined {
  const cause = driverError(error);
  if (typeof cause !== 'object' || cause === null) return undefined;
  const constraint = (cause as DriverErrorShape).constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

/**
 * The SQLSTATE of an error the database server reported (`pg` and PGlite both give it a
 * `severity` and a `code`); `undefined` for anything else, such as a socket error.
 */
function serverSqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, severity } = error as DriverErrorShape;
  if (typeof severity !== 'string' || typeof code !== 'string') return undefined;
  return SQLSTATE_PATTERN.test(code) ? code : undefined;
}

/** Whether `error` says the database is unreachable (connection class 08, shutdown, sockets). */
export function isUnavailable(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined) {
    if (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code)) {
      return true;
    }
  }
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|Cannot use a pool after calling end|Client was closed|PGlite is closed/i.test(
    message,
  );
}

/**
 * Whether `error` is a limit the provider set running out: a server-side timeout (see
 * {@link TIMEOUT_SQLSTATES}) or `pg`'s client-side query timeout.
 */
export function isTimeout(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined && TIMEOUT_SQLSTATES.has(code)) return true;
  return error instanceof Error && CLIENT_TIMEOUT_MESSAGE.test(error.message);
}

/**
 * Whether the transaction failed on a deadlock or serialization conflict and may be retried;
 * also true of a `CHOKAQ_STORAGE_ERROR` made from one.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = errorCode(error);
  return code === '40P01' || code === '40001';
}

/**
 * Whether `error` is the unique violation of the archive's primary key that an archive settle
 * meets when an archived job has the id of a job it archives (see settle_archive.sql).
 */
export function isArchiveIdTaken(error: unknown): boolean {
  return errorCode(error) === '23505' && errorConstraint(error) === 'jobs_archive_pkey';
}

/**
 * Converts driver errors into `ChokaQError`s, so no raw `pg` or PGlite error reaches a caller:
 * a limit that ran out (see {@link isTimeout}) becomes retryable `CHOKAQ_STORAGE_TIMEOUT`;
 * unreachable storage becomes retryable `CHOKAQ_STORAGE_UNAVAILABLE`; any other error the server
 * reported with a SQLSTATE becomes `CHOKAQ_STORAGE_ERROR`, its message naming the SQLSTATE and
 * the driver's message, the driver error as `cause` (retryable for deadlocks and serialization
 * conflicts); anything else thrown under a storage call (a driver `TypeError`, a row the mappers
 * cannot read) becomes `CHOKAQ_STORAGE_ERROR` too, with the original as `cause`. ChokaQErrors pass
 * through unchanged.
 */
export function mapDriverError(error: unknown): unknown {
  if (error instanceof ChokaQError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  if (isTimeout(error)) {
    return new ChokaQError('CHOKAQ_STORAGE_TIMEOUT', `Storage timeout: ${detail}`, {
      cause: error,
      retryable: true,
    });
  }
  if (isUnavailable(error)) {
    return new ChokaQError('CHOKAQ_STORAGE_UNAVAILABLE', `Storage unavailable: ${detail}`, {
      cause: error,
      retryable: true,
    });
  }
  const sqlState = serverSqlState(error);
  if (sqlState !== undefined) {
    return new ChokaQError(
      'CHOKAQ_STORAGE_ERROR',
      `Storage error (SQLSTATE ${sqlState}): ${detail}`,
      { cause: error, retryable: isTransientConflict(error) },
    );
  }
  return new ChokaQError('CHOKAQ_STORAGE_ERROR', `Storage error: ${detail}`, { cause: error });
}
