/**
 * The Deck served for a browser test: its handler on an HTTP server at a free loopback port, and
 * one call that closes the handler's feed, the open connections and the server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeckHandler } from '../../src/deck/index.js';

/** A served Deck: its address, and how to stop serving it. */
export interface ServedDeck {
  /** `http://127.0.0.1:<port>/`. */
  base: string;
  /** Closes the Deck's feed, every open connection and the server. */
  close: () => Promise<void>;
}

/** Serves `deck` at a free port of 127.0.0.1. */
export async function serveDeck(deck: DeckHandler): Promise<ServedDeck> {
  const server = http.createServer((req, res) => deck(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      deck.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
