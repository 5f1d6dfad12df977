/**
 * A Deck mounted on a real `node:http` server on a free local port, and a small HTTP client for
 * it that keeps cookies like a browser and sends the CSRF header when asked.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeckHandler } from '../../src/deck/index.js';

/** A running server. */
export interface DeckServerHandle {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** Serves `handler` at `prefix` (requests elsewhere get 404) on 127.0.0.1. */
export async function serveDeck(handler: DeckHandler, prefix = ''): Promise<DeckServerHandle> {
  const server = http.createServer((req, res) => {
    if (prefix === '' || req.url === prefix || req.url?.startsWith(`${prefix}/`)) handler(req, res);
    else {
      res.statusCode = 404;
      res.end('app 404');
    }
  });
  return listenOn(server, handler);
}

async function listenOn(server: http.Server, handler: DeckHandler): Promise<DeckServerHandle> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Serves `handler` under the prefix `mount` matches, taken off the URL the way Express's
 * `app.use(path, …)` does (`req.url` below it, `req.originalUrl` whole); elsewhere 404.
 */
export async function serveStripped(
  handler: DeckHandler,
  mount: RegExp,
): Promise<DeckServerHandle> {
  const server = http.createServer((req, res) => {
    const prefix = mount.exec(req.url ?? '')?.[0];
    const rest = prefix === undefined ? '' : (req.url ?? '').slice(prefix.length);
    if (prefix === undefined || (rest !== '' && !/^[/?]/.test(rest))) {
      res.statusCode = 404;
      res.end('app 404');
      return;
    }
    handler(
      Object.assign(req, { originalUrl: req.url, url: rest.startsWith('/') ? rest : `/${rest}` }),
      res,
    );
  });
  return listenOn(server, handler);
}

/** The error of an answer that is not a success. */
export interface AnswerError {
  code: string;
  message: string;
  field?: string;
}

/** A JSON answer; `T` is what the route returns (the caller says). */
export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  /** `body.error` of an error answer. */
  error: AnswerError | undefined;
}

/** One Server-Sent Event. */
export interface FeedEvent {
  id: string;
  event: string;
  data: unknown;
}

/** A client with a cookie jar, like one browser. */
export class DeckClient {
  readonly cookies = new Map<string, string>();
  csrf: string | null = null;

  constructor(
    readonly base: string,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  /** A raw request; cookies are sent and kept. */
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(this.extraHeaders)) headers.set(k, v);
    if (this.cookies.size > 0) {
      headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    }
    const res = await fetch(`${this.base}${path}`, { ...init, headers, redirect: 'manual' });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1);
      if (/Max-Age=0/i.test(cookie)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), value);
    }
    return res;
  }

  async get<T = unknown>(path: string): Promise<Answer<T>> {
    return answer<T>(await this.request(path));
  }

  /** POSTs JSON with the CSRF token read from `api/session` (unless `csrf: false`). */
  async post<T = unknown>(
    path: string,
    body: unknown,
    options: { csrf?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...options.headers,
    };
    if (options.csrf !== false) {
      this.csrf ??= (await this.get<{ csrf: string }>('api/session')).body.csrf;
      headers['x-chokaq-csrf'] = this.csrf;
    }
    return answer<T>(
      await this.request(path, { method: 'POST', headers, body: JSON.stringify(body) }),
    );
  }
}

async function answer<T>(res: Response): Promise<Answer<T>> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  const error =
    typeof body === 'object' && body !== null && 'error' in body
      ? (body.error as AnswerError)
      : undefined;
  return { status: res.status, headers: res.headers, body: body as T, error };
}

/** Reads Server-Sent Events from a stream until `until` says stop (or the time runs out). */
export async function readEvents(
  res: Response,
  until: (events: FeedEvent[]) => boolean,
  timeoutMs = 10_000,
): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const deadline = Date.now() + timeoutMs;
  try {
    while (!until(events)) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out; events so far: ${events.map((e) => e.event).join(', ')}`);
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('timed out waiting for events')), left),
        ),
      ]);
      if (chunk.done) break;
      buffer += chunk.value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map<string, string>();
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          if (colon <= 0) continue;
          fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
        }
        if (fields.has('event')) {
          events.push({
            id: fields.get('id') ?? '',
            event: fields.get('event')!,
            data: JSON.parse(fields.get('data') ?? 'null') as unknown,
          });
        }
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return events;
}

/** The status (and error code) of `GET api/status` sent with `Host: host` to 127.0.0.1:port. */
export function statusFor(
  host: string,
  port: number,
  authorization?: string,
): Promise<{ status: number; code?: string }> {
  return new Promise((resolve, reject) => {
    const headers = { host, ...(authorization === undefined ? {} : { authorization }) };
    const req = http.get({ host: '127.0.0.1', port, path: '/api/status', headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        const code = (JSON.parse(body) as { error?: { code: string } }).error?.code;
        resolve({ status: res.statusCode ?? 0, ...(code === undefined ? {} : { code }) });
      });
    });
    req.on('error', reject);
  });
}
