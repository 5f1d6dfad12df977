/** `chokaq deck`: The Deck on a server of its own for the store the connection flags choose. */
import { ChokaQError } from '../../errors.js';
import type { DeckAccess, DeckToken } from '../../deck/options.js';
import { offerSignInLinks, portFlag, serveDeck, signInHelp } from '../deck-server.js';
import { CliError, type CliIo } from '../io.js';
import {
  CONNECTION_OPTIONS,
  CONNECTION_SYNOPSIS,
  CONNECTION_USAGE,
  withSession,
} from '../operator/session.js';
import { synopsis } from '../usage.js';
import { parseFlags } from '../args.js';

/** Usage text of `chokaq deck`. */
export const DECK_USAGE = `${synopsis(`chokaq deck [--port N] [--host H] [--token T] [--read-token T] [--anonymous read] [--environment NAME] ${CONNECTION_SYNOPSIS}`)}

Serves The Deck, the operator dashboard, for the store the connection flags choose, and prints
a one-time sign-in link (valid ten minutes, operate access); press Enter (or send SIGUSR2) for a
fresh one. It runs bulk actions started from it. Stop it with Ctrl-C. Without --module it does
not know your job types' schemas: edited payloads are then checked as JSON only, by choice.
  --port N             port (default 4100; 0: any free port)
  --host H             address to bind (default 127.0.0.1: this machine only; 0.0.0.0: every
                       interface, the link printed is for 127.0.0.1 and this machine's name)
  --token T            a token with operate access, 16+ characters (default: CHOKAQ_DECK_TOKEN)
  --read-token T       a token with read access (default: CHOKAQ_DECK_READ_TOKEN)
  --anonymous read     let anyone who reaches the page read (never operate), by this
                       machine's names and addresses only (the Host header is checked)
  --environment NAME   a label shown in the header, such as production
Store:
${CONNECTION_USAGE}`;

/** `chokaq deck`. Resolves to the exit code once stopped. */
export async function deckCommand(
  args: string[],
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  const { values } = parseFlags({
    args,
    options: {
      ...CONNECTION_OPTIONS,
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      token: { type: 'string' },
      'read-token': { type: 'string' },
      anonymous: { type: 'string' },
      environment: { type: 'string' },
    },
  });
  const port = portFlag(values.port, 4100);
  if (values.anonymous !== undefined && values.anonymous !== 'read') {
    throw new CliError(`--anonymous takes only 'read', got '${values.anonymous}'`);
  }
  const tokens: DeckToken[] = [];
  /** The flag or variable each of `tokens` came from, to name it in errors. */
  const tokenSources: string[] = [];
  const operate = values.token ?? io.env.CHOKAQ_DECK_TOKEN;
  const read = values['read-token'] ?? io.env.CHOKAQ_DECK_READ_TOKEN;
  if (operate) {
    tokens.push({ token: operate, access: 'operate', actor: 'deck-token' });
    tokenSources.push(values.token === undefined ? 'CHOKAQ_DECK_TOKEN' : '--token');
  }
  if (read) {
    tokens.push({ token: read, access: 'read', actor: 'deck-read-token' });
    tokenSources.push(
      values['read-token'] === undefined ? 'CHOKAQ_DECK_READ_TOKEN' : '--read-token',
    );
  }
  return withSession(
    { ...values },
    io,
    async (chokaq) => {
      let served;
      try {
        served = await serveDeck(chokaq, {
          host: values.host,
          port,
          tokens,
          anonymous: (values.anonymous as DeckAccess | undefined) ?? 'none',
          ...(values.environment === undefined ? {} : { environment: values.environment }),
          signInHelp: signInHelp('chokaq deck'),
        });
      } catch (error) {
        if (error instanceof ChokaQError) {
          // The Deck names a token by its place in its options; name the flag that gave it.
          const message = error.message.replace(
            /deck\.tokens\[(\d+)\](?:\.token)?/g,
            (path, k: string) => tokenSources[Number(k)] ?? path,
          );
          throw new CliError(message);
        }
        throw error;
      }
      const deck = served;
      io.stdout.write(`The Deck: ${deck.url}\n`);
      if (deck.networkUrl !== null) io.stdout.write(`From other machines: ${deck.networkUrl}\n`);
      try {
        // Serves until stopped (Ctrl-C); without a stop signal there is nobody to stop it.
        if (stopSignal !== undefined && !stopSignal.aborted) {
          await offerSignInLinks(deck, io, stopSignal);
        }
      } finally {
        await deck.close();
      }
      return 0;
    },
    { runsBulk: true },
  );
}
