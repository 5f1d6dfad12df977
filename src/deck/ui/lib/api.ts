/**
 * Calls of The Deck's JSON API, relative to the page (so any mount prefix works). Changes carry
 * the session's CSRF token; errors come back as {@link ApiError} with the server's code.
 */

/** An error answer of the API. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Who the browser is. */
export interface Session {
  access: 'none' | 'read' | 'operate';
  actor: string | null;
  csrf: string | null;
  environment: string | null;
  version: string;
}

let csrf: string | null = null;

/** The window event sent when the server says the session ended (401). */
export const SIGNED_OUT = 'chokaq-signed-out';

async function parse<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => null)) as {
    error?: { code: string; message: string; field?: string };
  } | null;
  if (!res.ok) {
    const e = body?.error;
    throw new ApiError(res.status, e?.code ?? 'HTTP', e?.message ?? res.statusText, e?.field);
  }
  return body as T;
}

/**
 * Reads `api/<path>`; `q` travels as the JSON parameter filters use. A `live` read (a re-read
 * because the feed moved) may get the answer another tab's read of the same view got within the
 * feed's interval, so open tabs do not each poll the database.
 */
export async function get<T>(path: string, q?: object, live = false): Promise<T> {
  const query = q === undefined ? '' : `?q=${encodeURIComponent(JSON.stringify(q))}`;
  return parse<T>(
    await fetch(`api/${path}${query}`, {
      credentials: 'same-origin',
      ...(live ? { headers: { 'x-chokaq-live': '1' } } : {}),
    }),
  );
}

/** Sends a change to `api/<path>` as JSON. */
export async function post<T>(path: string, body: object = {}): Promise<T> {
  const res = await fetch(`api/${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', ...(csrf ? { 'x-chokaq-csrf': csrf } : {}) },
    body: JSON.stringify(body),
  });
  return parse<T>(res);
}

/** Reads the session (and keeps its CSRF token for later changes). */
export async function loadSession(): Promise<Session> {
  const session = await get<Session>('session');
  csrf = session.csrf;
  return session;
}
