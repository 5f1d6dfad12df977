/**
 * The request and response shapes The Deck handles, and the helpers every route uses: reading a
 * JSON body within a byte limit, cookies, and answering JSON or an error. `http.IncomingMessage`
 * and `http.ServerResponse` fit the shapes, so the handler mounts on `node:http`, Express,
 * Fastify (`req.raw`, `reply.raw`) and Hono's Node server without ChokaQ depending on them.
 */
import { ChokaQError } from '../errors.js';
import { DeckHttpError } from './errors.js';

/** The request side of a Deck handler. */
export interface DeckRequest {
  method?: string | undefined;
  /** The path and query, with or without the mount prefix (see `DeckOptions.basePath`). */
  url?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** Express: the URL before its mount path was taken off. */
  originalUrl?: string | undefined;
  /** A body a framework already parsed (Express `json()`); otherwise the stream is read. */
  body?: unknown;
  [Symbol.asyncIterator](): AsyncIterator<unknown>;
}

/** The response side of a Deck handler. */
export interface DeckResponse {
  statusCode: number;
  readonly headersSent?: boolean;
  /** Whether the connection is gone (`node:http` sets it). */
  readonly destroyed?: boolean;
  readonly writableEnded?: boolean;
  /** Bytes written but not yet sent. */
  readonly writableLength?: number;
  setHeader(name: string, value: string | readonly string[]): unknown;
  getHeader?(name: string): unknown;
  write(chunk: string): unknown;
  end(body?: string | Uint8Array): unknown;
  on(event: 'close', listener: () => void): unknown;
  flushHeaders?(): void;
}

/** The first value of a request header, lower-case name. */
export function header(req: DeckRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The cookies of a request, by name. */
export function cookies(req: DeckRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header(req, 'cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    try {
      out.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // A cookie of someone else's with a malformed escape: not ours, ignore it.
    }
  }
  return out;
}

/** Adds a `Set-Cookie` header, keeping the ones already set. */
export function addCookie(res: DeckResponse, cookie: string): void {
  const existing = res.getHeader?.('Set-Cookie');
  const list = Array.isArray(existing)
    ? (existing as string[])
    : typeof existing === 'string'
      ? [existing]
      : [];
  res.setHeader('Set-Cookie', [...list, cookie]);
}

/**
 * The JSON body of a request: what a framework parsed already, else the stream read up to
 * `limit` bytes. An empty body is `{}`.
 * @throws DeckHttpError 413 past the limit, 400 for malformed JSON.
 */
export async function readJson(req: DeckRequest, limit: number): Promise<unknown> {
  if (req.body !== undefined) {
    // A framework read the stream already: its parsed value, or its raw text or bytes.
    if (req.body instanceof Uint8Array) return parseJson(Buffer.from(req.body).toString('utf8'));
    return typeof req.body === 'string' ? parseJson(req.body) : req.body;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<unknown>) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > limit) {
      throw new DeckHttpError(413, 'CHOKAQ_DECK_BODY_TOO_LARGE', `the body exceeds ${limit} bytes`);
    }
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text.trim() === '' ? {} : parseJson(text);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DeckHttpError(400, 'CHOKAQ_DECK_BAD_JSON', 'the body is not valid JSON');
  }
}

/** Answers `status` with `value` as JSON. */
export function sendJson(res: DeckResponse, status: number, value: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(value));
}

/** The HTTP status of a ChokaQ error code: bad input 400, unknown names 404, conflicts 409, outages 503. */
function statusOf(error: ChokaQError): number {
  switch (error.code) {
    case 'CHOKAQ_SCHEDULE_NOT_FOUND':
      return 404;
    case 'CHOKAQ_BULK_CONFIRMATION':
    case 'CHOKAQ_DUPLICATE_JOB_ID':
      return 409;
    case 'CHOKAQ_STORAGE_UNAVAILABLE':
    case 'CHOKAQ_STORAGE_TIMEOUT':
    case 'CHOKAQ_STORAGE_LOCKED':
    case 'CHOKAQ_STOPPED':
      return 503;
    case 'CHOKAQ_STORAGE_ERROR':
    case 'CHOKAQ_MIGRATION_FAILED':
    case 'CHOKAQ_NO_HANDLER':
    case 'CHOKAQ_NOT_STARTED':
      return 500;
    default:
      return 400;
  }
}

/**
 * Answers an error as `{ error: { code, message, field? } }`. ChokaQ's own input errors keep
 * their code, message and field; anything unexpected is a 500 whose details stay in the log.
 * @returns whether the error was the server's or the storage's (the caller logs those).
 */
export function sendError(res: DeckResponse, error: unknown): boolean {
  if (error instanceof DeckHttpError) {
    sendJson(res, error.status, { error: { code: error.code, message: error.message } });
    return false;
  }
  if (error instanceof ChokaQError) {
    const status = statusOf(error);
    // Storage failures keep their code but not the driver's words (hosts, ports, SQL).
    const internal = status >= 500;
    sendJson(res, status, {
      error: {
        code: error.code,
        message: internal
          ? 'the storage failed or is unreachable; see the server log'
          : error.message,
        ...(error.field === undefined ? {} : { field: error.field }),
      },
    });
    return internal;
  }
  sendJson(res, 500, {
    error: { code: 'CHOKAQ_DECK_INTERNAL', message: 'unexpected error; see the server log' },
  });
  return true;
}
