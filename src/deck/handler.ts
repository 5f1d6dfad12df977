/**
 * The Deck's request handler: the front end's files, the sign-in link, the JSON API and the live
 * feed, under one prefix. Every answer carries the security headers; every API request is
 * resolved to a caller first, and every change must come from the same site, as JSON, with the
 * session's CSRF token.
 */
import { logEvent } from '../observability/logging/log-events.js';
import { packageVersion } from '../version.js';
import {
  AccessControl,
  CSRF_COOKIE,
  CSRF_HEADER,
  SESSION_COOKIE,
  sameSecret,
  secret,
  type Caller,
} from './access.js';
import { bulkRoutes } from './api/bulk.js';
import { dlqRoutes } from './api/dlq.js';
import { flowRoutes } from './api/flow.js';
import { jobRoutes } from './api/jobs.js';
import { overviewRoutes } from './api/overview.js';
import { queueRoutes } from './api/queues.js';
import { scheduleRoutes } from './api/schedules.js';
import { settingsRoutes } from './api/settings.js';
import { workerRoutes } from './api/workers.js';
import { DeckAssets } from './assets.js';
import { DeckHttpError } from './errors.js';
import { spentLinkPage } from './sign-in-page.js';
import { DeckFeed } from './feed.js';
import {
  addCookie,
  header,
  readJson,
  sendError,
  sendJson,
  type DeckRequest,
  type DeckResponse,
} from './http.js';
import type { DeckSettings } from './options.js';
import { bodyOf, matchRoute, type Route } from './routes.js';
import { LIVE_READ_HEADER, SharedReads } from './shared-reads.js';

/** Largest JSON body of a change. */
const MAX_BODY_BYTES = 1024 * 1024;

/** Headers on every answer: no inline script or style, no framing, no sniffing, no referrer. */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // The sign-in link carries its token in the URL; it must not leak to other sites.
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** One API request: its method, its path below `api/`, its URL and its cookies' `Path`. */
interface ApiCall {
  method: string;
  path: string;
  url: URL;
  cookiePath: string;
}

/** The handler of one Deck. */
export class DeckServer {
  readonly access: AccessControl;
  readonly feed: DeckFeed;
  private readonly assets = new DeckAssets();
  private readonly routes: Route[];
  private readonly shared: SharedReads;

  constructor(private readonly settings: DeckSettings) {
    const { chokaq } = settings;
    this.access = new AccessControl(settings);
    this.feed = new DeckFeed(chokaq, settings.feedIntervalMs, settings.logger);
    this.shared = new SharedReads(settings.feedIntervalMs);
    this.routes = [
      ...overviewRoutes(chokaq, this.feed),
      ...queueRoutes(chokaq),
      ...jobRoutes(chokaq),
      ...dlqRoutes(chokaq),
      ...bulkRoutes(chokaq),
      ...scheduleRoutes(chokaq),
      ...flowRoutes(chokaq),
      ...settingsRoutes(settings),
      ...workerRoutes(chokaq),
    ];
  }

  /** Answers one request. Never rejects: failures are answered (and unexpected ones logged). */
  async handle(req: DeckRequest, res: DeckResponse): Promise<void> {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    try {
      await this.route(req, res);
    } catch (error) {
      if (res.headersSent === true) {
        this.settings.logger.error('request failed after its answer began', {
          ...logEvent('DeckRequestFailed'),
          method: req.method,
          url: req.url,
          error,
        });
        res.end();
        return;
      }
      if (sendError(res, error)) {
        this.settings.logger.error('request failed', {
          ...logEvent('DeckRequestFailed'),
          method: req.method,
          url: req.url,
          error,
        });
      }
    }
  }

  private async route(req: DeckRequest, res: DeckResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://deck.invalid');
    const path = this.innerPath(url.pathname);
    if (path === null) throw new DeckHttpError(404, 'CHOKAQ_DECK_NOT_FOUND', 'not The Deck');
    const outer = new URL(req.originalUrl ?? req.url ?? '/', 'http://deck.invalid').pathname;
    // Relative links of the page need the prefix to end in a slash. The redirect is relative
    // (`./chokaq/`) and repeats the last segment as the client sent it (still escaped, never
    // decoded), so no path a client sends can point it at another host or make it fail.
    if (path === '' || (path === '/' && !outer.endsWith('/'))) {
      const last = outer.split('/').pop() ?? '';
      res.statusCode = 308;
      res.setHeader('Location', `./${last}/${url.search}`);
      res.end();
      return;
    }
    const method = req.method ?? 'GET';
    const cookiePath = this.cookiePath(outer, path);
    if (path === '/login' && method === 'GET') {
      return this.signInByLink(req, res, url, cookiePath);
    }
    if (path.startsWith('/api/')) {
      return this.api(req, res, { method, path: path.slice(5), url, cookiePath });
    }
    if (method === 'GET' || method === 'HEAD') {
      const name = path === '/' ? 'index.html' : path.startsWith('/assets/') ? path.slice(8) : '';
      if (name !== '' && (await this.assets.send(req, res, name))) return;
    }
    throw new DeckHttpError(
      404,
      'CHOKAQ_DECK_NOT_FOUND',
      `${method} ${path} is not a page of The Deck`,
    );
  }

  /** The path below `basePath`, or `null` when the request is not under it. */
  private innerPath(pathname: string): string | null {
    const base = this.settings.basePath;
    if (base === '') return pathname;
    if (pathname === base) return '';
    return pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : null;
  }

  /**
   * The `Path` of The Deck's cookies: the prefix the browser reached it under (`/ops/chokaq`,
   * whether the framework kept it in the URL or took it off), so they never go to the host app.
   * A prefix with characters that do not belong in a cookie attribute falls back to `basePath`.
   */
  private cookiePath(outer: string, path: string): string {
    const prefix = outer.endsWith(path) ? outer.slice(0, outer.length - path.length) : null;
    const mount =
      prefix !== null && /^(\/[A-Za-z0-9._~%!$&'()*+=:@-]+)*$/.test(prefix)
        ? prefix
        : this.settings.basePath;
    return mount === '' ? '/' : mount;
  }

  private signInByLink(req: DeckRequest, res: DeckResponse, url: URL, cookiePath: string): void {
    // Only one-time links: a lasting token in a URL would stay in histories and logs.
    const signedIn = this.access.signIn(url.searchParams.get('token') ?? '', { linksOnly: true });
    if (signedIn === null) {
      res.statusCode = 401;
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      res.end(spentLinkPage(this.settings.signInHelp));
      return;
    }
    this.setSessionCookie(req, res, signedIn.id, cookiePath);
    res.statusCode = 303;
    res.setHeader('Location', './');
    res.end();
  }

  private async api(req: DeckRequest, res: DeckResponse, call: ApiCall): Promise<void> {
    const { method, path, url, cookiePath } = call;
    const caller = await this.access.resolve(req);
    if (path === 'session' && method === 'GET') return this.session(req, res, caller, cookiePath);
    if (path === 'sign-in' && method === 'POST') return this.signInByToken(req, res, cookiePath);
    if (path === 'sign-out' && method === 'POST') {
      this.checkChange(req, caller);
      this.access.signOut(req);
      addCookie(
        res,
        `${SESSION_COOKIE}=; Path=${cookiePath}; HttpOnly; SameSite=Strict; Max-Age=0`,
      );
      return sendJson(res, 200, { signedOut: true });
    }
    if (path === 'events' && method === 'GET') {
      this.require(caller, 'read');
      // A browser's EventSource sends the header when it reconnects; a new one (a tab shown
      // again) can only pass it in the URL.
      const last = header(req, 'last-event-id') ?? url.searchParams.get('lastEventId');
      this.feed.subscribe(res, last ?? undefined);
      return;
    }
    const match = matchRoute(this.routes, method, path);
    if (match.route === null) {
      throw match.methodMismatch
        ? new DeckHttpError(405, 'CHOKAQ_DECK_METHOD', `${method} is not allowed on api/${path}`)
        : new DeckHttpError(404, 'CHOKAQ_DECK_NOT_FOUND', `api/${path} is not a route`);
    }
    this.require(caller, match.route.access);
    let body: unknown;
    if (match.route.method === 'POST') {
      this.checkChange(req, caller);
      body = await readJson(req, MAX_BODY_BYTES);
    }
    const { route, params } = match;
    const handle = () => route.handle({ params, query: url.searchParams, body, caller });
    if (route.method === 'GET') {
      // No GET answer depends on who asks (read access sees what operate access sees), so live
      // re-reads of one view share one answer per feed interval.
      const live = header(req, LIVE_READ_HEADER) === '1';
      return sendJson(
        res,
        200,
        await (live ? this.shared.read(`${path}${url.search}`, handle) : handle()),
      );
    }
    const result = await handle();
    this.shared.forget();
    sendJson(res, 200, result);
  }

  /** Who the browser is, and the CSRF token its changes must carry (set as a cookie if new). */
  private session(req: DeckRequest, res: DeckResponse, caller: Caller, cookiePath: string): void {
    let csrf = caller.csrf;
    if (csrf === null && caller.via !== 'bearer') {
      csrf = secret();
      addCookie(
        res,
        `${CSRF_COOKIE}=${csrf}; Path=${cookiePath}; HttpOnly; SameSite=Strict${this.secure(req)}`,
      );
    }
    sendJson(res, 200, {
      access: caller.access,
      actor: caller.access === 'none' ? null : caller.actor,
      csrf,
      environment: this.settings.environment,
      version: packageVersion(),
    });
  }

  private async signInByToken(
    req: DeckRequest,
    res: DeckResponse,
    cookiePath: string,
  ): Promise<void> {
    this.checkOrigin(req);
    this.checkJson(req);
    const { token } = bodyOf<{ token: string }>(await readJson(req, MAX_BODY_BYTES), ['token']);
    const signedIn = typeof token === 'string' ? this.access.signIn(token) : null;
    if (signedIn === null) {
      throw new DeckHttpError(401, 'CHOKAQ_DECK_SIGN_IN', 'the token is unknown, used or expired');
    }
    this.setSessionCookie(req, res, signedIn.id, cookiePath);
    sendJson(res, 200, { access: signedIn.session.access, actor: signedIn.session.actor });
  }

  private setSessionCookie(
    req: DeckRequest,
    res: DeckResponse,
    id: string,
    cookiePath: string,
  ): void {
    const maxAge = Math.floor(this.settings.sessionTtlMs / 1000);
    addCookie(
      res,
      `${SESSION_COOKIE}=${id}; Path=${cookiePath}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${this.secure(req)}`,
    );
  }

  /** `; Secure` when the browser reached us over HTTPS (directly or through a proxy). */
  private secure(req: DeckRequest): string {
    const encrypted = (req as { socket?: { encrypted?: boolean } }).socket?.encrypted === true;
    return encrypted || header(req, 'x-forwarded-proto') === 'https' ? '; Secure' : '';
  }

  private require(caller: Caller, access: 'read' | 'operate'): void {
    if (caller.access === 'none' && caller.hostRefused === true) {
      throw new DeckHttpError(
        403,
        'CHOKAQ_DECK_HOST',
        'anonymous access is given only for the host names The Deck serves; sign in or send a token',
      );
    }
    if (caller.access === 'none') {
      throw new DeckHttpError(401, 'CHOKAQ_DECK_UNAUTHORIZED', 'sign in or send a token first');
    }
    if (access === 'operate' && caller.access !== 'operate') {
      throw new DeckHttpError(
        403,
        'CHOKAQ_DECK_FORBIDDEN',
        'this needs operate access; you have read',
      );
    }
  }

  /** A change must come from this site, as JSON, with the caller's CSRF token (not Bearer). */
  private checkChange(req: DeckRequest, caller: Caller): void {
    this.checkOrigin(req);
    this.checkJson(req);
    if (caller.via === 'bearer') return;
    const sent = header(req, CSRF_HEADER);
    if (caller.csrf === null || sent === undefined || !sameSecret(sent, caller.csrf)) {
      throw new DeckHttpError(
        403,
        'CHOKAQ_DECK_CSRF',
        `a change needs the ${CSRF_HEADER} header from api/session`,
      );
    }
  }

  private checkJson(req: DeckRequest): void {
    const type = header(req, 'content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      throw new DeckHttpError(415, 'CHOKAQ_DECK_MEDIA_TYPE', 'send changes as application/json');
    }
  }

  private checkOrigin(req: DeckRequest): void {
    const site = header(req, 'sec-fetch-site');
    const cross = new DeckHttpError(
      403,
      'CHOKAQ_DECK_CROSS_ORIGIN',
      'changes must come from The Deck itself, not from another site',
    );
    if (site !== undefined && site !== 'same-origin' && site !== 'none') throw cross;
    const origin = header(req, 'origin');
    if (origin === undefined) return;
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      throw cross;
    }
    const hosts = [header(req, 'host'), header(req, 'x-forwarded-host')];
    if (!hosts.includes(host)) throw cross;
  }
}
