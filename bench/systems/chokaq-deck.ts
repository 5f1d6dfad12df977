/**
 * The Deck's HTTP API in the bench (W6): a Deck on a `node:http` server in the harness process,
 * asked over a local connection with a Bearer token, as a browser tab's requests would be.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChokaQ } from 'chokaq';
import { createDeck } from 'chokaq/deck';

const TOKEN = 'bench-deck-token-0123456789';

/** A Deck to send requests to. */
export interface BenchDeck {
  /** GETs `path` (with `q` as the filter parameter) and reads the whole answer. */
  get(path: string, q?: object): Promise<unknown>;
  close(): Promise<void>;
}

/** Serves The Deck of `chokaq` on 127.0.0.1 (a free port). */
export async function startDeck(chokaq: ChokaQ): Promise<BenchDeck> {
  const deck = createDeck({ chokaq, tokens: [{ token: TOKEN, access: 'read' }] });
  const server = http.createServer(deck);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    async get(path, q) {
      const query = q === undefined ? '' : `?q=${encodeURIComponent(JSON.stringify(q))}`;
      const res = await fetch(`${origin}/${path}${query}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      const body = await res.json();
      if (!res.ok) throw new Error(`The Deck answered ${res.status}: ${JSON.stringify(body)}`);
      return body;
    },
    async close() {
      deck.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
