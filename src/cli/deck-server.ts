/**
 * The Deck on a `node:http` server of its own, for `chokaq deck` and `chokaq demo`: bound to
 * 127.0.0.1 unless told otherwise, with a one-time sign-in link printed for the operator.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChokaQ } from '../chokaq.js';
import { createDeck } from '../deck/index.js';
import type { DeckAccess, DeckToken } from '../deck/options.js';
import { CliError } from './io.js';

/** Where and how to serve. */
export interface DeckServeOptions {
  host: string;
  port: number;
  tokens: DeckToken[];
  anonymous: DeckAccess;
  environment?: string;
}

/** A running Deck server. */
export interface ServedDeck {
  /** `http://host:port/` */
  url: string;
  /** A one-time sign-in URL with operate access. */
  signInUrl: string;
  close(): Promise<void>;
}

/**
 * Starts The Deck for `chokaq`.
 * @throws CliError when the port is taken or the host cannot be bound.
 */
export async function serveDeck(chokaq: ChokaQ, options: DeckServeOptions): Promise<ServedDeck> {
  const deck = createDeck({
    chokaq,
    tokens: options.tokens,
    anonymous: options.anonymous,
    ...(options.environment === undefined ? {} : { environment: options.environment }),
  });
  const server = http.createServer(deck);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          error.code === 'EADDRINUSE'
            ? `port ${options.port} on ${options.host} is in use; pass --port N (0: any free port)`
            : `cannot serve The Deck on ${options.host}:${options.port}: ${error.message}`,
        ),
      ),
    );
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}/`;
  return {
    url,
    signInUrl: `${url}${deck.signInLink({ actor: 'deck-operator' })}`,
    close: async () => {
      deck.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Reads a port flag: 0 (any free port) to 65535. */
export function portFlag(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) {
    throw new CliError(`--port must be a whole number from 0 to 65535, got '${text}'`);
  }
  return port;
}
