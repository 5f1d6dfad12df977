/** `chokaq deck`: The Deck on a server of its own for the store the connection flags choose. */
import { parseArgs } from 'node:util';
import { ChokaQError } from '../../errors.js';
import type { DeckAccess, DeckToken } from '../../deck/options.js';
import { portFlag, serveDeck } from '../deck-server.js';
import { CliError, type CliIo } from '../io.js';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withSession } from '../operator/session.js';

/** Usage text of `chokaq deck`. */
export const DECK_USAGE = `chokaq deck [--port N] [--host H] [--token T] [--read-token T] [--anonymous read]

Serves The Deck, the operator dashboard, for the store the connection flags choose, and prints
a one-time sign-in link (valid ten minutes, operate access). It runs bulk actions started from
it. Stop it with Ctrl-C.
  --port N             port (default 4100; 0: any free port)
  --host H             address to bind (default 127.0.0.1: this machine only)
  --token T            a token with operate access, 16+ characters (default: CHOKAQ_DECK_TOKEN)
  --read-token T       a token with read access (default: CHOKAQ_DECK_READ_TOKEN)
  --anonymous read     let anyone who reaches the page read (never operate)
  --environment NAME   a label shown in the header, such as production
Store:
${CONNECTION_USAGE}`;

/** `chokaq deck`. Resolves to the exit code once stopped. */
export async function deckCommand(
  args: string[],
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  const { values } = parseArgs({
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
    strict: true,
  });
  const port = portFlag(values.port, 4100);
  if (values.anonymous !== undefined && values.anonymous !== 'read') {
    throw new CliError(`--anonymous takes only 'read', got '${values.anonymous}'`);
  }
  const tokens: DeckToken[] = [];
  const operate = values.token ?? io.env.CHOKAQ_DECK_TOKEN;
  const read = values['read-token'] ?? io.env.CHOKAQ_DECK_READ_TOKEN;
  if (operate) tokens.push({ token: operate, access: 'operate', actor: 'deck-token' });
  if (read) tokens.push({ token: read, access: 'read', actor: 'deck-read-token' });
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
        });
      } catch (error) {
        if (error instanceof ChokaQError) throw new CliError(error.message);
        throw error;
      }
      io.stdout.write(
        `The Deck: ${served.url}\nSign in (once, within 10 minutes): ${served.signInUrl}\n`,
      );
      // Serves until stopped (Ctrl-C); without a stop signal there is nobody to stop it.
      if (stopSignal !== undefined && !stopSignal.aborted) {
        await new Promise<void>((resolve) =>
          stopSignal.addEventListener('abort', () => resolve(), { once: true }),
        );
      }
      await served.close();
      return 0;
    },
    { runsBulk: true },
  );
}
