/**
 * Bad concurrency and rate-limit settings: each is a coded error naming the field and the value, and an enqueue
 * that fails writes nothing (memory store, the same checks run before any provider is called).
 */
import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, memory, silentLogger } from '../../src/index.js';
import { failure } from '../helpers/failure.js';

const noop = (): void => undefined;

describe('defineJob concurrency settings', () => {
  it.each([
    [
      'a limit of 0',
      { concurrencyKey: 'k', concurrencyLimit: 0 },
      'CHOKAQ_INVALID_CONFIG',
      'concurrencyLimit',
      '0',
    ],
    [
      'a fractional limit',
      { concurrencyKey: 'k', concurrencyLimit: 1.5 },
      'CHOKAQ_INVALID_CONFIG',
      'concurrencyLimit',
      '1.5',
    ],
    [
      'a limit over 1,000,000',
      { concurrencyKey: 'k', concurrencyLimit: 1_000_001 },
      'CHOKAQ_INVALID_CONFIG',
      'concurrencyLimit',
      '1000001',
    ],
    [
      'a limit without a key',
      { concurrencyLimit: 2 },
      'CHOKAQ_INVALID_CONFIG',
      'concurrencyLimit',
      '2',
    ],
    [
      'a blank key',
      { concurrencyKey: '  ' },
      'CHOKAQ_INVALID_CONCURRENCY_KEY',
      'concurrencyKey',
      '"  " (string)',
    ],
    [
      'a key of 256 characters',
      { concurrencyKey: 'k'.repeat(256) },
      'CHOKAQ_INVALID_CONCURRENCY_KEY',
      'concurrencyKey',
      'kkkk',
    ],
    [
      'a number as the key',
      { concurrencyKey: 7 },
      'CHOKAQ_INVALID_CONCURRENCY_KEY',
      'concurrencyKey',
      '7',
    ],
  ])('rejects %s', async (_label, fields, code, field, value) => {
    const error = await failure(() =>
      defineJob({ type: 'flow.bad.v1', handle: noop, ...(fields as object) }),
    );
    expect(error.code).toBe(code);
    expect(error.field).toBe(`job 'flow.bad.v1'.${field}`);
    expect(error.message).toContain(value);
  });

  it('rejects a misspelt option, naming the one meant', async () => {
    const error = await failure(() =>
      defineJob({ type: 'flow.bad.v1', handle: noop, ...({ concurrencyLimt: 2 } as object) }),
    );
    expect(error.code).toBe('CHOKAQ_UNKNOWN_OPTION');
    expect(error.field).toBe("job 'flow.bad.v1'.concurrencyLimt");
    expect(error.message).toContain('did you mean concurrencyLimit?');
  });
});

describe('enqueue concurrency options', () => {
  const keyed = defineJob<{ tenant: unknown }>({
    type: 'flow.keyed.v1',
    concurrencyKey: (p) => p.tenant as string,
    concurrencyLimit: 2,
    handle: noop,
  });

  async function engine(): Promise<ChokaQ> {
    const chokaq = new ChokaQ({
      storage: memory(),
      jobs: [keyed],
      worker: false,
      logger: silentLogger,
    });
    await chokaq.storage.open();
    return chokaq;
  }

  async function hotCount(chokaq: ChokaQ): Promise<number> {
    return (await chokaq.queues.stats()).reduce((n, s) => n + s.pending, 0);
  }

  it.each([
    [
      'a key too long',
      { concurrencyKey: 'x'.repeat(256) },
      'CHOKAQ_INVALID_CONCURRENCY_KEY',
      'options.concurrencyKey',
    ],
    [
      'a key that is an object',
      { concurrencyKey: {} },
      'CHOKAQ_INVALID_CONCURRENCY_KEY',
      'options.concurrencyKey',
    ],
    [
      'a limit of -1',
      { concurrencyLimit: -1 },
      'CHOKAQ_INVALID_ARGUMENT',
      'options.concurrencyLimit',
    ],
    [
      'an unknown option',
      { concurrencyKeys: 'a' },
      'CHOKAQ_UNKNOWN_OPTION',
      'options.concurrencyKeys',
    ],
  ])('rejects %s and writes nothing', async (_label, options, code, field) => {
    const chokaq = await engine();
    const error = await failure(() =>
      chokaq.enqueue(keyed, { tenant: 'a' }, options as Record<string, unknown>),
    );
    expect(error.code).toBe(code);
    expect(error.field).toBe(field);
    expect(await hotCount(chokaq)).toBe(0);
    await chokaq.stop();
  });

  it('rejects a limit for a job without a key, writing nothing', async () => {
    const chokaq = await engine();
    const error = await failure(() =>
      chokaq.enqueue(keyed, { tenant: null }, { concurrencyLimit: 3 }),
    );
    expect([error.code, error.field]).toEqual([
      'CHOKAQ_INVALID_ARGUMENT',
      'options.concurrencyLimit',
    ]);
    expect(await hotCount(chokaq)).toBe(0);
    await chokaq.stop();
  });

  it('rejects a payload whose derived key is invalid, naming the item, and writes none of the batch', async () => {
    const chokaq = await engine();
    const error = await failure(() =>
      chokaq.enqueueMany(keyed, [{ payload: { tenant: 'a' } }, { payload: { tenant: ['x'] } }]),
    );
    expect(error.code).toBe('CHOKAQ_INVALID_CONCURRENCY_KEY');
    expect(error.field).toBe("items[1].concurrencyKey (from the definition's concurrencyKey)");
    expect(error.message).toContain('an array of 1');
    expect(await hotCount(chokaq)).toBe(0);
    await chokaq.stop();
  });

  it('stores the derived key, an integer key as text, and the option over the definition', async () => {
    const chokaq = await engine();
    const made = await chokaq.enqueueMany(keyed, [
      { payload: { tenant: 'acme' } },
      { payload: { tenant: 42 } },
      { payload: { tenant: 'acme' }, concurrencyKey: 'other', concurrencyLimit: 5 },
      { payload: { tenant: null } },
    ]);
    const stored = await Promise.all(made.map((m) => chokaq.storage.operator.getJob(m.id)));
    expect(
      stored.map((found) =>
        found?.where === 'hot' ? [found.job.concurrencyKey, found.job.concurrencyLimit] : null,
      ),
    ).toEqual([
      ['acme', 2],
      ['42', 2],
      ['other', 5],
      [null, null],
    ]);
    await chokaq.stop();
  });
});

describe('defineJob rate limits', () => {
  it.each([
    ['a limit of 0', { limit: 0, per: '1s' }, 'CHOKAQ_INVALID_CONFIG', 'rateLimit.limit', '0'],
    ['no interval', { limit: 5 }, 'CHOKAQ_INVALID_CONFIG', 'rateLimit.per', 'undefined'],
    [
      'a bad interval',
      { limit: 5, per: 'soon' },
      'CHOKAQ_INVALID_DURATION',
      'rateLimit.per',
      'soon',
    ],
    [
      'a blank key',
      { limit: 5, per: '1s', key: ' ' },
      'CHOKAQ_INVALID_CONFIG',
      'rateLimit.key',
      '" "',
    ],
    [
      'a numeric key',
      { limit: 5, per: '1s', key: 3 },
      'CHOKAQ_INVALID_CONFIG',
      'rateLimit.key',
      '3',
    ],
    [
      'a misspelt field',
      { limit: 5, per: '1s', kye: 'a' },
      'CHOKAQ_UNKNOWN_OPTION',
      'rateLimit.kye',
      'key',
    ],
  ])('rejects %s', async (_label, rateLimit, code, field, value) => {
    const error = await failure(() =>
      defineJob({ type: 'flow.rate.v1', handle: noop, rateLimit: rateLimit as never }),
    );
    expect(error.code).toBe(code);
    expect(error.field).toBe(`job 'flow.rate.v1'.${field}`);
    expect(error.message).toContain(value);
  });

  it('rejects at enqueue a payload whose bucket key is invalid, writing nothing', async () => {
    const rated = defineJob<{ tenant: unknown }>({
      type: 'flow.rated.v1',
      rateLimit: { limit: 5, per: '1s', key: (p) => p.tenant as string },
      handle: noop,
    });
    const chokaq = new ChokaQ({
      storage: memory(),
      jobs: [rated],
      worker: false,
      logger: silentLogger,
    });
    await chokaq.storage.open();
    const error = await failure(() => chokaq.enqueue(rated, { tenant: 'y'.repeat(300) }));
    expect(error.code).toBe('CHOKAQ_INVALID_CONCURRENCY_KEY');
    expect(error.field).toBe("options.payload (from the definition's rateLimit.key)");
    expect((await chokaq.queues.stats()).reduce((n, s) => n + s.pending, 0)).toBe(0);
    await chokaq.stop();
  });
});
