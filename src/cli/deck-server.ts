/**
 * The Deck on a `node:http` server of its own, for `chokaq deck` and `chokaq demo`: bound to
 * 127.0.0.1 unless told otherwise, with a one-time sign-in link printed for the operator (and a
 * fresh one whenever asked). The address printed is one a browser opens: a wildcard bind
 * (`0.0.0.0`, `::`) prints the loopback address and this machine's name. With anonymous read,
 * only the names this server is reached by get it (DNS rebinding).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import type { ChokaQ } from '../chokaq.js';
import { createDeck } from '../deck/index.js';
import type { DeckAccess, DeckToken } from '../deck/options.js';
import { CliError, type CliIo } from './io.js';

/** Where and how to serve. */
export interface DeckServeOptions {
  host: string;
  port: number;
  tokens: DeckToken[];
  anonymous: DeckAccess;
  environment?: string;
  /** What the page of a spent link says about getting a new one. */
  signInHelp?: string;
}

/** A running Deck server. */
export interface ServedDeck {
  /** `http://host:port/`, a host a browser can open (never a wildcard address). */
  url: string;
  /** For a wildcard bind: the same on this machine's name, for other machines; else `null`. */
  networkUrl: string | null;
  /** A one-time sign-in URL with operate access. */
  signInUrl: string;
  /** Another one-time sign-in URL (the first expires in ten minutes and works once). */
  newSignInUrl(): string;
  close(): Promise<void>;
}

/** Addresses that bind every interface: not one a browser can open. */
const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** The names a browser may reach this machine by, for the anonymous `Host` check. */
function machineNames(host: string): string[] {
  const names = new Set([
    'localhost',
    '127.0.0.1',
    '[::1]',
    host.includes(':') ? `[${host}]` : host,
  ]);
  if (WILDCARDS.has(host)) {
    names.add(hostname());
    for (const addresses of Object.values(networkInterfaces())) {
      for (const a of addresses ?? [])
        names.add(a.family === 'IPv6' ? `[${a.address}]` : a.address);
    }
  }
  return [...names];
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
    ...(options.anonymous === 'none' ? {} : { hosts: machineNames(options.host) }),
    ...(options.environment === undefined ? {} : { environment: options.environment }),
    ...(options.signInHelp === undefined ? {} : { signInHelp: options.signInHelp }),
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
  const wildcard = WILDCARDS.has(options.host);
  const shown = wildcard
    ? options.host === '::'
      ? '[::1]'
      : '127.0.0.1'
    : options.host.includes(':')
      ? `[${options.host}]`
      : options.host;
  const url = `http://${shown}:${port}/`;
  const newSignInUrl = () => `${url}${deck.signInLink({ actor: 'deck-operator' })}`;
  return {
    url,
    networkUrl: wildcard ? `http://${hostname()}:${port}/` : null,
    signInUrl: newSignInUrl(),
    newSignInUrl,
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

/** What the page of a spent link says when `command` serves The Deck. */
export function signInHelp(command: string): string {
  return `press Enter in the terminal that runs ${command}, or send it SIGUSR2 (kill -USR2 ${process.pid}): it prints a fresh link.`;
}

/** Most links one run prints on request. */
const MAX_LINKS = 10_000;

/**
 * Prints the sign-in link, then a fresh one for every line typed (Enter) and every SIGUSR2,
 * until `stop` aborts: a new link never needs a restart. Resolves once stopped.
 */
export async function offerSignInLinks(
  deck: ServedDeck,
  io: CliIo,
  stop: AbortSignal,
): Promise<void> {
  const line = (url: string) => `Sign in (once, within 10 minutes): ${url}\n`;
  io.stdout.write(
    `${line(deck.signInUrl)}Press Enter (or send SIGUSR2 to pid ${process.pid}) for a new link.\n`,
  );
  const print = () => io.stdout.write(line(deck.newSignInUrl()));
  process.on('SIGUSR2', print);
  const stopped = new Promise<void>((resolve) =>
    stop.addEventListener('abort', () => resolve(), { once: true }),
  );
  try {
    // Each round waits for one line; an ended input or a stop ends it (and a bound, whatever input).
    for (let printed = 0; io.readLine !== undefined && printed < MAX_LINKS; printed++) {
      const typed = await io.readLine(stop);
      if (typed === null || stop.aborted) break;
      print();
    }
    await stopped;
  } finally {
    process.off('SIGUSR2', print);
  }
}
