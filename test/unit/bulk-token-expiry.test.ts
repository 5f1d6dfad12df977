/**
 * A bulk preview's confirmation token expires 15 minutes after the preview, by the store's clock:
 * on the memory store driven by a fake clock, a token confirmed one millisecond before the end
 * starts the action, and the same preview's token a millisecond after it is refused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChokaQ, silentLogger } from '../../src/index.js';
import { BULK_PREVIEW_VALID_MS } from '../../src/operator/bulk.js';
import { FakeClock, memory } from '../../src/testing/index.js';

describe('bulk confirmation token expiry', () => {
  const engines: ChokaQ[] = [];

  afterEach(async () => {
    await Promise.all(engines.splice(0).map((engine) => engine.stop()));
  });

  /** An engine on a memory store and the fake clock both read, with `n` jobs in the DLQ. */
  async function engineWithDead(clock: FakeClock, n: number): Promise<ChokaQ> {
    const chokaq = new ChokaQ({
      storage: memory({ clock }),
      clock,
      jobs: [],
      pipe: () => undefined,
      worker: false,
      logger: silentLogger,
    });
    engines.push(chokaq);
    const results = await chokaq.enqueueMany(
      'expiry.v1',
      Array.from({ length: n }, (_, i) => ({ payload: { i }, delay: '1h' })),
    );
    await chokaq.cancel(results.map((r) => r.id));
    return chokaq;
  }

  it('refuses a token after 15 minutes and accepts it until then', async () => {
    const clock = new FakeClock();
    const chokaq = await engineWithDead(clock, 2);
    const late = await chokaq.bulk.preview({ action: 'purge', target: { query: {} } });
    const onTime = await chokaq.bulk.preview({ action: 'purge', target: { query: {} } });
    expect(late.expiresAt.getTime()).toBe(clock.now() + BULK_PREVIEW_VALID_MS);
    expect(BULK_PREVIEW_VALID_MS).toBe(15 * 60_000);

    clock.advance(BULK_PREVIEW_VALID_MS - 1);
    const started = await chokaq.bulk.run(onTime.token, { actor: 'ana', reason: 'in time' });
    expect(started.status).toBe('running');

    clock.advance(2);
    await expect(
      chokaq.bulk.run(late.token, { actor: 'ana', reason: 'too late' }),
    ).rejects.toMatchObject({
      code: 'CHOKAQ_BULK_CONFIRMATION',
      field: 'token',
      message: expect.stringContaining('expired') as unknown,
    });
    expect((await chokaq.bulk.get(late.id))?.status).toBe('previewed');
    // The running action's token stays safe to send again after the preview window.
    expect((await chokaq.bulk.run(onTime.token, { actor: 'ana', reason: 'again' })).id).toBe(
      onTime.id,
    );
  });
});
