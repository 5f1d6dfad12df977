/**
 * Who a request is and what it may do. Access comes from three places and the highest wins: the
 * user's `authorize(req)`, a built-in token (a Bearer header, or a browser session that signed in
 * with a token or a one-time link), and `anonymous`. Changes from a browser also need the
 * session's CSRF token in the `x-chokaq-csrf` header; a Bearer request needs none (a browser never
 * attaches that header to another site's request by itself).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { checkOneOf } from '../util/check.js';
import { cookies, header, type DeckRequest } from './http.js';
import {
  ACCESS_LEVELS,
  checkActorName,
  DEFAULT_ACTOR,
  type DeckAccess,
  type DeckPrincipal,
  type DeckSettings,
} from './options.js';

/** The cookie of a signed-in browser session. */
export const SESSION_COOKIE = 'chokaq_deck_session';
/** The cookie of the CSRF token of a browser without a Deck session (double submit). */
export const CSRF_COOKIE = 'chokaq_deck_csrf';
/** The request header that carries the CSRF token. */
export const CSRF_HEADER = 'x-chokaq-csrf';

/** How long a one-time sign-in link stays valid. */
const SIGN_IN_LINK_MS = 10 * 60_000;
/** Most sessions and unused links held at once; the oldest go first. */
const MAX_SESSIONS = 10_000;

/** A resolved request. */
export interface Caller {
  access: DeckAccess;
  actor: string;
  /** How it was granted: a Bearer header needs no CSRF token. */
  via: 'bearer' | 'session' | 'authorize' | 'anonymous' | 'none';
  /** The CSRF token this caller's changes must carry (`null` for Bearer callers). */
  csrf: string | null;
  /** Anonymous access was withheld: the request named a host not among `hosts`. */
  hostRefused?: boolean;
}

interface Grant {
  access: Exclude<DeckAccess, 'none'>;
  actor: string;
  expiresAt: number;
}

interface Session extends Grant {
  csrf: string;
}

/** A random URL-safe secret. */
export function secret(): string {
  return randomBytes(24).toString('base64url');
}

const digest = (text: string): string => createHash('sha256').update(text).digest('base64url');

/** Constant-time equality of two secrets. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(digest(a));
  const y = Buffer.from(digest(b));
  return timingSafeEqual(x, y);
}

const rank = (access: DeckAccess): number => ACCESS_LEVELS.indexOf(access);

/** Sessions, one-time sign-in links and token look-ups of one Deck. */
export class AccessControl {
  /** Built-in tokens by their digest (a map look-up leaks no timing of the secret itself). */
  private readonly tokens = new Map<string, Grant>();
  private readonly links = new Map<string, Grant>();
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly settings: DeckSettings,
    private readonly now: () => number = Date.now,
  ) {
    for (const t of settings.tokens) {
      this.tokens.set(digest(t.token), { access: t.access, actor: t.actor, expiresAt: Infinity });
    }
  }

  /**
   * A one-time sign-in secret: the first browser that opens `login?token=<it>` within ten minutes
   * gets a session with this access; it is then spent.
   */
  signInLink(principal: { access: 'read' | 'operate'; actor?: string }): string {
    const token = secret();
    this.remember(this.links, digest(token), {
      access: checkOneOf(
        principal.access,
        'access',
        ['read', 'operate'],
        'CHOKAQ_INVALID_ARGUMENT',
      ),
      actor: checkActorName(principal.actor ?? DEFAULT_ACTOR, 'actor'),
      expiresAt: this.now() + SIGN_IN_LINK_MS,
    });
    return token;
  }

  /**
   * Starts a browser session for an unspent sign-in link or (unless `linksOnly`) a built-in
   * token: resolves to the session id for the cookie, or `null` when the token grants nothing.
   */
  signIn(
    token: string,
    options: { linksOnly?: boolean } = {},
  ): { id: string; session: Session } | null {
    const key = digest(token);
    const link = this.links.get(key);
    if (link !== undefined) this.links.delete(key);
    const grant =
      (link && link.expiresAt > this.now() ? link : undefined) ??
      (options.linksOnly === true ? undefined : this.tokens.get(key));
    if (grant === undefined) return null;
    const session: Session = {
      access: grant.access,
      actor: grant.actor,
      expiresAt: this.now() + this.settings.sessionTtlMs,
      csrf: secret(),
    };
    const id = secret();
    this.remember(this.sessions, digest(id), session);
    return { id, session };
  }

  /** Ends the session of a request's cookie, if any. */
  signOut(req: DeckRequest): void {
    const id = cookies(req).get(SESSION_COOKIE);
    if (id !== undefined) this.sessions.delete(digest(id));
  }

  /** Resolves a request: the highest access of its Bearer token, session, `authorize` and `anonymous`. */
  async resolve(req: DeckRequest): Promise<Caller> {
    // Anonymous access only for the expected host names: a rebound DNS name reaches no data.
    const hostRefused = this.settings.anonymous !== 'none' && !this.hostAllowed(req);
    const anonymous = hostRefused ? 'none' : this.settings.anonymous;
    let best: Caller = {
      access: anonymous,
      actor: DEFAULT_ACTOR,
      via: anonymous === 'none' ? 'none' : 'anonymous',
      csrf: cookies(req).get(CSRF_COOKIE) ?? null,
      ...(hostRefused ? { hostRefused } : {}),
    };
    const consider = (candidate: Caller) => {
      if (rank(candidate.access) > rank(best.access)) best = candidate;
    };
    const bearer = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '')?.[1];
    const byToken = bearer === undefined ? undefined : this.tokens.get(digest(bearer));
    if (byToken !== undefined) {
      consider({ access: byToken.access, actor: byToken.actor, via: 'bearer', csrf: null });
    }
    const session = this.session(req);
    if (session !== undefined) {
      consider({
        access: session.access,
        actor: session.actor,
        via: 'session',
        csrf: session.csrf,
      });
    }
    if (this.settings.authorize !== undefined) {
      const answer = await this.settings.authorize(req);
      const principal: DeckPrincipal = typeof answer === 'string' ? { access: answer } : answer;
      if (!ACCESS_LEVELS.includes(principal.access)) {
        throw new TypeError(
          `authorize(req) returned ${JSON.stringify(answer)}: expected 'none', 'read', 'operate' or { access, actor }`,
        );
      }
      consider({
        access: principal.access,
        actor: checkActorName(principal.actor ?? DEFAULT_ACTOR, 'authorize(req).actor'),
        via: 'authorize',
        csrf: cookies(req).get(CSRF_COOKIE) ?? null,
      });
    }
    return best;
  }

  /** Whether the request's `Host` (port left out) is one of `hosts` (always, without `hosts`). */
  private hostAllowed(req: DeckRequest): boolean {
    const { hosts } = this.settings;
    if (hosts === null) return true;
    const host = (header(req, 'host') ?? '').toLowerCase().replace(/:\d+$/, '');
    return hosts.has(host);
  }

  private session(req: DeckRequest): Session | undefined {
    const id = cookies(req).get(SESSION_COOKIE);
    if (id === undefined) return undefined;
    const key = digest(id);
    const session = this.sessions.get(key);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(key);
      return undefined;
    }
    return session;
  }

  /** Adds to a bounded map, dropping expired entries, then the oldest, when full. */
  private remember<T extends Grant>(map: Map<string, T>, key: string, value: T): void {
    if (map.size >= MAX_SESSIONS) {
      const now = this.now();
      for (const [k, v] of map) if (v.expiresAt <= now) map.delete(k);
      for (const k of map.keys()) {
        if (map.size < MAX_SESSIONS) break;
        map.delete(k);
      }
    }
    map.set(key, value);
  }
}
