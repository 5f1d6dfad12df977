import { describe, expect, it } from 'vitest';
import { BackgroundRefresh } from '../../src/util/background-refresh.js';
import { FakeClock } from '../../src/util/clock.js';

/** A source whose reads the test answers, by default in the order they were made. */
function source(): {
  reads: number;
  answer(value: string, index?: number): Promise<void>;
  fail(error: Error, index?: number): Promise<void>;
  read: () => Promise<string>;
} {
  const pending: { resolve(v: string): void; reject(e: Error): void }[] = [];
  const settle = async (
    index: number,
    fn: (p: (typeof pending)[number]) => void,
  ): Promise<void> => {
    const [next] = pending.splice(index, 1);
    if (!next) throw new Error(`no read #${index} is waiting`);
    fn(next);
    await new Promise((resolve) => setImmediate(resolve)); // let the answer land
  };
  const src = {
    reads: 0,
    answer: (value: string, index = 0) => settle(index, (p) => p.resolve(value)),
    fail: (error: Error, index = 0) => settle(index, (p) => p.reject(error)),
    read: () => {
      src.reads += 1;
      return new Promise<string>((resolve, reject) => pending.push({ resolve, reject }));
    },
  };
  return src;
}

function setup(initial?: string): {
  clock: FakeClock;
  src: ReturnType<typeof source>;
  errors: unknown[];
  cache: BackgroundRefresh<string>;
} {
  const clock = new FakeClock();
  const src = source();
  const errors: unknown[] = [];
  const cache = new BackgroundRefresh({
    read: src.read,
    maxAgeMs: 1000,
    clock,
    onError: (error) => errors.push(error),
    ...(initial === undefined ? {} : { initial }),
  });
  return { clock, src, errors, cache };
}

/** A cache whose first read answered 'a' (read #1), now exactly `maxAgeMs` old: stale. */
async function staleAfterFirstRead(): Promise<ReturnType<typeof setup>> {
  const ready = setup();
  const first = ready.cache.get();
  await ready.src.answer('a');
  await first;
  ready.clock.advance(1000);
  return ready;
}

describe('BackgroundRefresh', () => {
  it('waits for the first read only, then answers from the cache while it is fresh', async () => {
    const { clock, src, cache } = setup();
    const first = cache.get();
    const joined = cache.get(); // joins the read in flight
    await src.answer('a');
    expect(await first).toBe('a');
    expect(await joined).toBe('a');
    clock.advance(999);
    expect(await cache.get()).toBe('a');
    expect(cache.peek()).toBe('a');
    expect(src.reads).toBe(1);
  });

  it('answers a stale value at once and re-reads it once, in the background', async () => {
    const { src, cache } = await staleAfterFirstRead();
    expect(await cache.get()).toBe('a');
    expect(cache.peek()).toBe('a');
    expect(await cache.get()).toBe('a');
    expect(src.reads).toBe(2); // one re-read, however often asked while it runs
    await src.answer('b');
    expect(cache.peek()).toBe('b');
    expect(src.reads).toBe(2);
  });

  it('peek starts the first read and reports nothing until it lands', async () => {
    const { src, cache } = setup();
    expect(cache.peek()).toBeUndefined();
    expect(cache.peek()).toBeUndefined();
    expect(src.reads).toBe(1);
    await src.answer('a');
    expect(cache.peek()).toBe('a');
  });

  it('keeps a local patch over a read that started before it', async () => {
    const { src, cache } = await staleAfterFirstRead();
    cache.peek(); // starts a re-read
    cache.patch((value) => `${value}+local`);
    expect(cache.peek()).toBe('a+local');
    await src.answer('old'); // the read made before the patch
    // That peek found the value still stale and started a read of the new generation.
    expect(cache.peek()).toBe('a+local');
    expect(src.reads).toBe(3);
    await src.answer('fresh');
    expect(cache.peek()).toBe('fresh');
  });

  it('a patch before the first read has landed makes that read not land', async () => {
    const { src, cache } = setup();
    cache.peek();
    cache.patch((value) => `${value}+local`);
    await src.answer('old');
    expect(src.reads).toBe(1);
    expect(cache.peek()).toBeUndefined(); // starts a new read
    await src.answer('fresh');
    expect(cache.peek()).toBe('fresh');
  });

  it('with an initial value, a patch counts at once and the first read made before it never lands', async () => {
    const { src, cache } = setup('');
    expect(cache.peek()).toBe(''); // stale from the start: read #1 starts
    cache.patch((value) => `${value}paused`);
    expect(cache.peek()).toBe('paused'); // read #2 starts, for the new generation
    expect(src.reads).toBe(2);
    await src.answer('old');
    expect(cache.peek()).toBe('paused');
    await src.answer('fresh');
    expect(cache.peek()).toBe('fresh');
  });

  it('an older read answered after a newer one does not land, and its failure is not reported', async () => {
    const { clock, src, errors, cache } = await staleAfterFirstRead();
    cache.peek(); // read #2, generation 0
    cache.patch((value) => `${value}+local`);
    cache.peek(); // read #3, generation 1
    expect(src.reads).toBe(3);
    await src.answer('new', 1);
    expect(cache.peek()).toBe('new');
    await src.fail(new Error('old read failed'));
    expect(errors).toEqual([]);
    expect(cache.peek()).toBe('new');
    clock.advance(1000);
    cache.peek(); // no back-off from the superseded failure
    expect(src.reads).toBe(4);
  });

  it('after invalidate, get waits for a fresh read and an older one never lands', async () => {
    const { src, cache } = await staleAfterFirstRead();
    cache.peek(); // background re-read, made before the change
    cache.invalidate();
    const next = cache.get();
    expect(src.reads).toBe(3);
    await src.answer('old');
    expect(cache.peek()).toBeUndefined(); // the old answer did not land
    await src.answer('new');
    expect(await next).toBe('new');
    expect(cache.peek()).toBe('new');
  });

  it('reports a failed background read and keeps the old value; a failed first read rejects', async () => {
    const { clock, src, errors, cache } = setup();
    const first = expect(cache.get()).rejects.toThrow('down');
    await src.fail(new Error('down'));
    await first;
    expect(errors).toEqual([]);
    const second = cache.get();
    await src.answer('a');
    expect(await second).toBe('a');
    clock.advance(1000);
    expect(cache.peek()).toBe('a');
    await src.fail(new Error('still down'));
    expect(errors.map(String)).toEqual(['Error: still down']);
    expect(cache.peek()).toBe('a');
    clock.advance(999);
    expect(await cache.get()).toBe('a');
    expect(src.reads).toBe(3); // no retry within maxAgeMs of the failure
    clock.advance(1);
    cache.peek();
    expect(src.reads).toBe(4);
    await src.answer('b');
    expect(cache.peek()).toBe('b');
  });
});
