/**
 * Page cursors of the operator query: an opaque base64url text holding the position after which
 * the next page starts and a hash of the filter and order it belongs to, so a cursor is only
 * accepted by the query that made it.
 */
import { createHash } from 'node:crypto';
import { ChokaQError } from '../errors.js';
import type { SortPosition } from '../storage/job-query.js';

/** Longest cursor accepted, in characters. */
const MAX_CURSOR = 200;

/** The short hash that binds a cursor to its query. */
function bindingOf(signature: string): string {
  return createHash('sha256').update(signature).digest('base64url').slice(0, 12);
}

/** The cursor of the page after `position` for the query with `signature`. */
export function encodeCursor(position: SortPosition, signature: string): string {
  const body = JSON.stringify([1, position.micros, position.id, bindingOf(signature)]);
  return Buffer.from(body, 'utf8').toString('base64url');
}

/**
 * The position a cursor holds.
 * @throws ChokaQError `CHOKAQ_INVALID_CURSOR` naming `field` when the cursor is malformed or was
 *   made by a query with another filter or order.
 */
export function decodeCursor(cursor: unknown, field: string, signature: string): SortPosition {
  const bad = (why: string) =>
    new ChokaQError('CHOKAQ_INVALID_CURSOR', `${field} ${why}`, { field });
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR) {
    throw bad('must be the nextCursor text of a previous page');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad('is not a cursor ChokaQ made');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    parsed[0] !== 1 ||
    !Number.isSafeInteger(parsed[1]) ||
    typeof parsed[2] !== 'string' ||
    typeof parsed[3] !== 'string'
  ) {
    throw bad('is not a cursor ChokaQ made');
  }
  if (parsed[3] !== bindingOf(signature)) {
    throw bad('belongs to a query with another filter or sort order');
  }
  return { micros: parsed[1] as number, id: parsed[2] };
}
