/**
 * The live feed's "bulk actions in progress": a running action and a preview that can still be
 * confirmed are in it; a preview whose token expired is not (it can never run), on a memory
 * store whose clock the test moves.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDeck } from '../../src/deck/index.js';
import { ChokaQ, FakeClock, memory, silentLogger, type BulkPreview } from '../../src/index.js';
import { DeckClient, readEvents, serveDeck, type DeckServerHandle } from './client.js';

const TOKEN = 'feed-preview-token-0123';

describe('the live feed and expired previews', () => {
  let chokaq: ChokaQ | undefined;
  let server: DeckServerHandle | undefined;
  afterEach(async () => {
    await server?.close();
    await chokaq?.stop();
  });

  it('counts a preview as in progress until its token expires, then no more', async () => {
    const clock = new FakeClock(Date.now());
    chokaq = new ChokaQ({ storage: memory({ clock }), clock, worker: false, logger: silentLogger });
    server = await serveDeck(
      createDeck({ chokaq, feedInterval: 250, tokens: [{ token: TOKEN, access: 'operate' }] }),
    );
    const api = new DeckClient(`${server.origin}/`, { authorization: `Bearer ${TOKEN}` });
    const preview = await api.post<BulkPreview>(
      'api/bulk/preview',
      { action: 'purge', target: { query: { state: 'dead' } } },
      { csrf: false },
    );
    expect(preview.status).toBe(200);
    const inProgress = async () => {
      const events = await readEvents(await api.request('api/events'), (seen) =>
        seen.some((e) => e.event === 'status'),
      );
      const status = events.find((e) => e.event === 'status')!.data as { bulk: { id: string }[] };
      return status.bulk.map((b) => b.id);
    };
    expect(await inProgress()).toEqual([preview.body.id]);
    clock.advance(16 * 60_000); // past the 15 minutes a preview stays confirmable
    await expect.poll(inProgress, { timeout: 5000 }).toEqual([]);
  });
});
