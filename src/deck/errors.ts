/**
 * The error codes The Deck answers with besides ChokaQ's own (which keep their codes): each is
 * part of the HTTP contract, sent as `{ error: { code, message } }` with the status below.
 */
export const DECK_ERROR_CODES = {
  CHOKAQ_DECK_UNAUTHORIZED: '401: no credentials grant access (sign in, or send a token).',
  CHOKAQ_DECK_FORBIDDEN: '403: the credentials grant read access only, or none for this.',
  CHOKAQ_DECK_CROSS_ORIGIN: '403: a change sent from another site (Origin / Sec-Fetch-Site).',
  CHOKAQ_DECK_CSRF: '403: a change without the x-chokaq-csrf header of this session.',
  CHOKAQ_DECK_SIGN_IN: '401: the sign-in token is unknown, used or expired.',
  CHOKAQ_DECK_HOST:
    "403: anonymous access asked for through a host name that is not one of The Deck's `hosts`.",
  CHOKAQ_DECK_NOT_FOUND: '404: no such route, job or bulk action.',
  CHOKAQ_DECK_METHOD: '405: the route exists for another method.',
  CHOKAQ_DECK_MEDIA_TYPE: '415: a change must be sent as application/json.',
  CHOKAQ_DECK_BODY_TOO_LARGE: '413: the body exceeds the limit (1 MiB).',
  CHOKAQ_DECK_BAD_JSON: '400: the body or the q parameter is not valid JSON.',
  CHOKAQ_DECK_INTERNAL: '500: an unexpected failure; the server log has it.',
} as const;

/** One of {@link DECK_ERROR_CODES}. */
export type DeckErrorCode = keyof typeof DECK_ERROR_CODES;

/** An HTTP answer other than success, thrown inside the handler and sent by it. */
export class DeckHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: DeckErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DeckHttpError';
  }
}
