import { ChokaQError } from '../errors.js';
import { FatalError, ThrottledError } from './errors.js';

/** How a handler failure is treated. */
export type FailureClass =
  { kind: 'fatal' } | { kind: 'throttled'; retryAfterMs: number | null } | { kind: 'transient' };

/** ChokaQ's own error codes that can never succeed on a retry. */
const FATAL_CODES = new Set([
  'CHOKAQ_UNKNOWN_JOB_TYPE',
  'CHOKAQ_NO_HANDLER',
  'CHOKAQ_PAYLOAD_INVALID',
]);

/**
 * Classifies a thrown value. Fatal (no retry, DLQ reason `Fatal`):
 * - {@link FatalError}, or any error with a property `fatal: true`;
 * - `SyntaxError` (for example `JSON.parse` of a malformed payload);
 * - ChokaQ's unknown type key, missing handler and invalid payload errors.
 *
 * Throttled: {@link ThrottledError}, or any error with `throttled: true` and an optional numeric
 * `retryAfterMs`. Everything else is transient, including `TypeError`: Node's `fetch` throws it for
 * network failures, which a retry can fix.
 */
export function classifyFailure(error: unknown): FailureClass {
  if (error instanceof FatalError || error instanceof SyntaxError) return { kind: 'fatal' };
  if (error instanceof ChokaQError && FATAL_CODES.has(error.code)) return { kind: 'fatal' };
  if (error instanceof ThrottledError)
    return { kind: 'throttled', retryAfterMs: error.retryAfterMs };
  if (typeof error === 'object' && error !== null) {
    const marked = error as { fatal?: unknown; throttled?: unknown; retryAfterMs?: unknown };
    if (marked.fatal === true) return { kind: 'fatal' };
    if (marked.throttled === true) {
      const after = marked.retryAfterMs;
      return {
        kind: 'throttled',
        retryAfterMs: typeof after === 'number' && after >= 0 ? after : null,
      };
    }
  }
  return { kind: 'transient' };
}

/** Longest error text stored with a job. */
export const MAX_ERROR_TEXT = 8000;

/** Turns a thrown value into the text stored as `lastError` / `errorDetails`. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return limitErrorText(`Non-error thrown: ${safeString(error)}`);
  const text = error.stack ?? `${error.name}: ${error.message}`;
  // A stable code (ChokaQError, Node system errors) leads, so operators can filter the DLQ by it.
  const code = (error as { code?: unknown }).code;
  return limitErrorText(typeof code === 'string' && code !== '' ? `[${code}] ${text}` : text);
}

/** Cuts `text` to at most {@link MAX_ERROR_TEXT} characters, marking the cut with `…`. */
export function limitErrorText(text: string): string {
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT - 1)}…` : text;
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}
