/**
 * The options of `createDeck`, and their check: every name known, every value of the right
 * shape, before the handler exists.
 */
import type { ChokaQ } from '../chokaq.js';
import { ChokaQError } from '../errors.js';
import type { Logger } from '../observability/logging/logger.js';
import {
  checkArray,
  checkFunction,
  checkOneOf,
  checkOptions,
  checkString,
  hasMethods,
  invalid,
} from '../util/check.js';
import { toMs, type Duration } from '../util/duration.js';
import type { DeckRequest } from './http.js';

/** What a request may do: nothing, read, or read and change (`operate`). */
export type DeckAccess = 'none' | 'read' | 'operate';

/** Who a request is: its access and the actor name the audit trail records for its changes. */
export interface DeckPrincipal {
  access: DeckAccess;
  /** 1–100 characters. Default: `'deck'`. */
  actor?: string;
}

/** A built-in token: sent as `Authorization: Bearer <token>`, or used once to sign in. */
export interface DeckToken {
  /** At least 16 characters (a short token can be guessed). */
  token: string;
  access: 'read' | 'operate';
  /** Recorded as the actor of this token's changes. Default: `'deck'`. */
  actor?: string;
}

/** Options of `createDeck`. */
export interface DeckOptions {
  /** The engine whose jobs, queues and DLQ The Deck shows and operates. */
  chokaq: ChokaQ;
  /**
   * Your own check of a request (its session cookie, its user): return an access, or an access
   * with the actor to record. A request gets the highest access of this, a token and `anonymous`.
   * Default: none (only tokens and `anonymous` grant access).
   */
  authorize?: (
    req: DeckRequest,
  ) => DeckAccess | DeckPrincipal | Promise<DeckAccess | DeckPrincipal>;
  /** Built-in tokens. Default: none. */
  tokens?: readonly DeckToken[];
  /**
   * What a request without credentials may do. Default: `'none'`: access must be granted.
   * `'read'` shows everything to anyone who reaches the page; `'operate'` lets them change it.
   */
  anonymous?: DeckAccess;
  /**
   * The path The Deck is mounted under when the framework passes the full URL (`node:http`,
   * Fastify's `req.raw`, Hono's `c.env.incoming`): `'/chokaq'`. Express's `app.use(path, …)`
   * strips it already.
   * Default: `''`.
   */
  basePath?: string;
  /** A label for this installation shown in the header (`'production'`). Default: none. */
  environment?: string;
  /** How often the live feed reads the state it pushes, 250 ms – 60 s. Default: `1000`. */
  feedInterval?: Duration;
  /** How long a signed-in browser session lasts, 1 minute – 30 days. Default: `'12h'`. */
  sessionTtl?: Duration;
  /** Where The Deck logs. Default: the engine's logger. */
  logger?: Logger;
  /**
   * The host names (`Host` header, port left out) The Deck gives `anonymous` access for, such
   * as `['localhost', '127.0.0.1', 'ops.example.com']`: a request for any other host gets none
   * (`CHOKAQ_DECK_HOST`), so a page on another site that points its own domain at this machine
   * (DNS rebinding) cannot read through the browser. Credentials (tokens, sessions,
   * `authorize`) are not affected. `chokaq deck` sets it when `--anonymous read` is given.
   * Default: any host.
   */
  hosts?: readonly string[];
  /**
   * What the page for a spent or expired sign-in link says about getting a new one (plain
   * text). Default: ask whoever runs The Deck for a new link, or sign in with a token.
   */
  signInHelp?: string;
}

/** The checked options. */
export interface DeckSettings {
  chokaq: ChokaQ;
  authorize: DeckOptions['authorize'];
  tokens: readonly Required<DeckToken>[];
  anonymous: DeckAccess;
  basePath: string;
  environment: string | null;
  feedIntervalMs: number;
  sessionTtlMs: number;
  logger: Logger;
  /** Lower-case host names anonymous access is given for; `null`: any. */
  hosts: ReadonlySet<string> | null;
  signInHelp: string;
}

const DECK_KEYS = [
  'chokaq',
  'authorize',
  'tokens',
  'anonymous',
  'basePath',
  'environment',
  'feedInterval',
  'sessionTtl',
  'logger',
  'hosts',
  'signInHelp',
] as const satisfies readonly (keyof DeckOptions)[];
const TOKEN_KEYS = ['token', 'access', 'actor'] as const satisfies readonly (keyof DeckToken)[];

/** Every access, weakest first. */
export const ACCESS_LEVELS: readonly DeckAccess[] = ['none', 'read', 'operate'];

/** Shortest built-in token. */
const MIN_TOKEN_LENGTH = 16;

/** The default actor of changes made through The Deck. */
export const DEFAULT_ACTOR = 'deck';

/**
 * Checks `createDeck`'s options.
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION` for an unknown name, `CHOKAQ_INVALID_CONFIG`
 *   naming the field (`deck.tokens[0].token`) for a bad value.
 */
export function checkDeckOptions(options: DeckOptions): DeckSettings {
  const o = checkOptions(options, 'deck', DECK_KEYS);
  if (!hasMethods(o.chokaq, ['status', 'on', 'off']) || !('jobs' in o.chokaq)) {
    throw invalid('CHOKAQ_INVALID_CONFIG', 'deck.chokaq', 'a ChokaQ instance', o.chokaq);
  }
  if (o.authorize !== undefined) checkFunction(o.authorize, 'deck.authorize');
  const tokens = checkArray(o.tokens ?? [], 'deck.tokens', 1000, 'CHOKAQ_INVALID_CONFIG').map(
    (value, k) => checkToken(value as DeckToken, `deck.tokens[${k}]`),
  );
  const basePath = o.basePath ?? '';
  if (typeof basePath !== 'string' || !/^(\/[A-Za-z0-9._~-]+)*$/.test(basePath)) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      'deck.basePath',
      "'' or a path such as '/chokaq' (no trailing slash)",
      basePath,
    );
  }
  const logger = o.logger ?? o.chokaq.logger;
  if (!hasMethods(logger, ['debug', 'info', 'warn', 'error', 'child'])) {
    throw invalid('CHOKAQ_INVALID_CONFIG', 'deck.logger', 'a Logger', logger);
  }
  return {
    chokaq: o.chokaq,
    authorize: o.authorize,
    tokens,
    anonymous: checkOneOf(
      o.anonymous ?? 'none',
      'deck.anonymous',
      ACCESS_LEVELS,
      'CHOKAQ_INVALID_CONFIG',
    ),
    basePath,
    environment:
      o.environment === undefined ? null : checkString(o.environment, 'deck.environment', 40),
    feedIntervalMs: toMs(o.feedInterval ?? 1000, 'deck.feedInterval', { min: 250, max: 60_000 }),
    sessionTtlMs: toMs(o.sessionTtl ?? '12h', 'deck.sessionTtl', {
      min: 60_000,
      max: 30 * 86_400_000,
    }),
    logger: logger.child('deck'),
    hosts:
      o.hosts === undefined
        ? null
        : new Set(
            checkArray(o.hosts, 'deck.hosts', 1000, 'CHOKAQ_INVALID_CONFIG').map((h, k) =>
              checkString(h, `deck.hosts[${k}]`, 255).toLowerCase(),
            ),
          ),
    signInHelp:
      o.signInHelp === undefined
        ? DEFAULT_SIGN_IN_HELP
        : checkString(o.signInHelp, 'deck.signInHelp', 1000),
  };
}

/** What the page of a spent or expired link says by default. */
const DEFAULT_SIGN_IN_HELP =
  'Ask whoever runs The Deck for a new link (the server makes one with deck.signInLink()), or sign in with a token.';

function checkToken(value: DeckToken, field: string): Required<DeckToken> {
  const t = checkOptions(value, field, TOKEN_KEYS);
  const token = checkString(t.token, `${field}.token`, 1000);
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_CONFIG',
      `${field}.token must have at least ${MIN_TOKEN_LENGTH} characters (got ${token.length})`,
      { field: `${field}.token` },
    );
  }
  return {
    token,
    access: checkOneOf(t.access, `${field}.access`, ['read', 'operate'], 'CHOKAQ_INVALID_CONFIG'),
    actor: checkActorName(t.actor ?? DEFAULT_ACTOR, `${field}.actor`),
  };
}

/** An actor name: 1–100 characters. */
export function checkActorName(value: unknown, field: string): string {
  return checkString(value, field, 100);
}
