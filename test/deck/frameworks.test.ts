/**
 * The Deck mounted the ways the README shows — `node:http`, Express, Fastify and Hono's Node
 * server — each under `/chokaq`: the bare prefix redirects to the slashed one, a read reaches the
 * API and a change (a JSON body read through the framework) reaches storage.
 */
import { serve as serveHono, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeck, type DeckHandler } from '../../src/deck/index.js';
import { ChokaQ, memory, silentLogger } from '../../src/index.js';

const TOKEN = 'framework-token-0123456789';

/** Starts a server for `deck`; resolves to its origin and how to stop it. */
type Mount = (deck: DeckHandler) => Promise<{ origin: string; close: () => Promise<void> }>;

const originOf = (server: http.Server) =>
  `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function listen(server: http.Server): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}

async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

const MOUNTS: Record<string, { basePath: string; mount: Mount }> = {
  'node:http': {
    basePath: '/chokaq',
    mount: async (deck) => {
      const server = http.createServer((req, res) => {
        if (req.url === '/chokaq' || req.url?.startsWith('/chokaq/')) return deck(req, res);
        res.statusCode = 404;
        res.end();
      });
      await listen(server);
      return { origin: originOf(server), close: () => closeServer(server) };
    },
  },
  express: {
    basePath: '',
    mount: async (deck) => {
      const app = express();
      app.use(express.json()); // the app's own parser: The Deck takes the parsed body
      app.use('/chokaq', deck);
      const server = http.createServer(app);
      await listen(server);
      return { origin: originOf(server), close: () => closeServer(server) };
    },
  },
  fastify: {
    basePath: '/chokaq',
    mount: async (deck) => {
      const app = Fastify();
      await app.register((scope, _options, done) => {
        // The Deck reads its own bodies: leave them unread in this scope.
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', (_req, _payload, next) => next(null));
        scope.all('/chokaq', (req, reply) => {
          reply.hijack();
          deck(req.raw, reply.raw);
        });
        scope.all('/chokaq/*', (req, reply) => {
          reply.hijack();
          deck(req.raw, reply.raw);
        });
        done();
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { origin: originOf(app.server), close: () => app.close() };
    },
  },
  hono: {
    basePath: '/chokaq',
    mount: async (deck) => {
      const app = new Hono<{ Bindings: HttpBindings }>();
      const toDeck = (c: { env: HttpBindings }) => {
        deck(c.env.incoming, c.env.outgoing);
        return RESPONSE_ALREADY_SENT;
      };
      app.all('/chokaq', toDeck);
      app.all('/chokaq/*', toDeck);
      const server = serveHono({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as http.Server;
      await new Promise<void>((resolve) =>
        server.listening ? resolve() : server.once('listening', () => resolve()),
      );
      return { origin: originOf(server), close: () => closeServer(server) };
    },
  },
};

describe.each(Object.entries(MOUNTS))('The Deck mounted on %s', (_name, { basePath, mount }) => {
  let chokaq: ChokaQ;
  let stop: () => Promise<void>;
  let origin = '';

  beforeEach(async () => {
    chokaq = new ChokaQ({ storage: memory(), worker: false, logger: silentLogger });
    await chokaq.queues.list();
    const deck = createDeck({
      chokaq,
      basePath,
      tokens: [{ token: TOKEN, access: 'operate', actor: 'mounted' }],
    });
    const server = await mount(deck);
    origin = server.origin;
    stop = async () => {
      deck.close();
      await server.close();
    };
  });

  afterEach(async () => {
    await stop();
    await chokaq.stop();
  });

  it('redirects the bare prefix, reads and changes through the API', async () => {
    const bare = await fetch(`${origin}/chokaq`, { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(new URL(bare.headers.get('location')!, `${origin}/chokaq`).pathname).toBe('/chokaq/');
    const auth = { authorization: `Bearer ${TOKEN}` };
    const session = await fetch(`${origin}/chokaq/api/session`, { headers: auth });
    expect(await session.json()).toMatchObject({ access: 'operate', actor: 'mounted' });
    const pause = await fetch(`${origin}/chokaq/api/queues/default/pause`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'mounted' }),
    });
    expect(pause.status).toBe(200);
    expect((await chokaq.queues.list()).find((q) => q.name === 'default')?.paused).toBe(true);
    expect((await chokaq.audit.list())[0]).toMatchObject({ actor: 'mounted', reason: 'mounted' });
    const refused = await fetch(`${origin}/chokaq/api/status`);
    expect(refused.status).toBe(401);
  });
});
