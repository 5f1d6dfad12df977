/**
 * `chokaq/deck`: The Deck, the operator dashboard, as a plain `(req, res)` handler to mount in
 * any Node.js HTTP server (see docs/deck.md).
 */
import { DeckServer } from './handler.js';
import type { DeckRequest, DeckResponse } from './http.js';
import { checkDeckOptions, type DeckOptions } from './options.js';

export type { DeckRequest, DeckResponse } from './http.js';
export type { DeckAccess, DeckOptions, DeckPrincipal, DeckToken } from './options.js';
export { DECK_ERROR_CODES, type DeckErrorCode } from './errors.js';
export type { DeckSettingsView, QueueSettingsView, SettingsView } from './api/settings.js';

/** The Deck as a request handler, with what a host needs besides. */
export interface DeckHandler {
  /** Answers a request under The Deck's prefix. Never throws: failures are answered. */
  (req: DeckRequest, res: DeckResponse): void;
  /**
   * A one-time sign-in link, relative to where The Deck is mounted (`login?token=…`): the first
   * browser that opens it within ten minutes is signed in with this access, and the link is spent.
   * @param options Default: `{ access: 'operate', actor: 'deck' }`.
   */
  signInLink(options?: { access?: 'read' | 'operate'; actor?: string }): string;
  /** Open live-feed streams now. */
  readonly streams: number;
  /** Ends the live-feed streams and stops their reads; the handler answers on. */
  close(): void;
}

/**
 * Creates The Deck for a ChokaQ instance. Access is denied until you grant it: pass
 * `authorize`, `tokens`, or `anonymous: 'read'`.
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION` / `CHOKAQ_INVALID_CONFIG` naming a bad option.
 */
export function createDeck(options: DeckOptions): DeckHandler {
  const server = new DeckServer(checkDeckOptions(options));
  const handler = ((req: DeckRequest, res: DeckResponse) => {
    void server.handle(req, res);
  }) as DeckHandler;
  handler.signInLink = (link = {}) => {
    const token = server.access.signInLink({
      access: link.access ?? 'operate',
      ...(link.actor === undefined ? {} : { actor: link.actor }),
    });
    return `login?token=${token}`;
  };
  Object.defineProperty(handler, 'streams', { get: () => server.feed.size });
  handler.close = () => server.feed.close();
  return handler;
}
