/**
 * The Deck's JSON API as a table: each route is a method, a path under `api/`, the access it
 * needs and a function of its checked input. The handler matches, checks access, and calls it;
 * every route only translates to a call of the public operator API.
 */
import { ChokaQError } from '../errors.js';
import { checkOptions } from '../util/check.js';
import type { Caller } from './access.js';
import { DeckHttpError } from './errors.js';

/** What a route gets. */
export interface RouteInput {
  /** The `:name` parts of the path, decoded. */
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** The JSON body of a POST (`{}` when empty); `undefined` for a GET. */
  body: unknown;
  caller: Caller;
}

/** One route of the API. */
export interface Route {
  method: 'GET' | 'POST';
  /** Under `api/`, with `:name` parameters: `jobs/:id`. */
  path: string;
  access: 'read' | 'operate';
  handle(input: RouteInput): Promise<unknown>;
}

/** The result of matching a path: the route and its parameters, or why none. */
export type RouteMatch =
  { route: Route; params: Record<string, string> } | { route: null; methodMismatch: boolean };

/** Finds the route of `method` and `path` (below `api/`, no leading slash). */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch {
  const parts = path.split('/');
  let methodMismatch = false;
  for (const route of routes) {
    const params = matchPath(route.path.split('/'), parts);
    if (params === null) continue;
    if (route.method === method) return { route, params };
    methodMismatch = true;
  }
  return { route: null, methodMismatch };
}

function matchPath(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let k = 0; k < pattern.length; k++) {
    const want = pattern[k]!;
    const got = parts[k]!;
    if (want.startsWith(':')) {
      if (got === '') return null;
      try {
        params[want.slice(1)] = decodeURIComponent(got);
      } catch {
        return null;
      }
    } else if (want !== got) return null;
  }
  return params;
}

/**
 * A JSON object from the query string parameter `name` (filters travel as `?q={…}` so a
 * filtered view is a URL); `{}` when absent.
 */
export function queryJson(query: URLSearchParams, name = 'q'): Record<string, unknown> {
  const text = query.get(name);
  if (text === null || text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DeckHttpError(400, 'CHOKAQ_DECK_BAD_JSON', `the ${name} parameter is not valid JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ChokaQError('CHOKAQ_INVALID_ARGUMENT', `${name} must be a JSON object`, {
      field: name,
    });
  }
  return value as Record<string, unknown>;
}

/** A POST body as an object with only `keys`. */
export function bodyOf<T extends object>(body: unknown, keys: readonly (keyof T & string)[]): T {
  return checkOptions(body as T, 'body', keys, 'CHOKAQ_INVALID_ARGUMENT');
}

/** Throws the 404 of a job, queue or action that does not exist. */
export function notFound(what: string): never {
  throw new DeckHttpError(404, 'CHOKAQ_DECK_NOT_FOUND', `${what} was not found`);
}
