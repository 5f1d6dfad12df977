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

/** Fields of a driver error that the mapping looks at. */
interface DriverErrorShape {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

/** The SQLSTATE (or errno code) of a driver error, if any. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as DriverErrorShape).code;
  return typeof code === 'string' ? code : undefined;
}

/** The violated constraint of a driver error, if any. */
export function errorConstraint(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const constraint = (error as DriverErrorShape).constraint;
  return typeof constraint === 'string' ? constraint : undefined;
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
  return /Connection terminated|connection timeout|Client has encountered a connection error|Cannot use a pool after calling end/i.test(
    message,
  );
}

/** Whether the transaction failed on a deadlock or serialization conflict and may be retried. */
export function isTransientConflict(error: unknown): boolean {
  const code = errorCode(error);
  return code === '40P01' || code === '40001';
}

/**
 * Converts driver errors into `ChokaQError`s where a stable code applies: unreachable storage
 * becomes retryable `CHOKAQ_STORAGE_UNAVAILABLE`. Other errors (and ChokaQErrors) pass through.
 */
export function mapDriverError(error: unknown): unknown {
  if (error instanceof ChokaQError) return error;
  if (isUnavailable(error)) {
    const detail = error instanceof Error ? error.message : String(error);
    return new ChokaQError('CHOKAQ_STORAGE_UNAVAILABLE', `Storage unavailable: ${detail}`, {
      cause: error,
      retryable: true,
    });
  }
  return error;
}
