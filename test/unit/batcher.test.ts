import { afterEach, describe, expect, it, vi } from 'vitest';
import { Batcher, ItemFailure } from '../../src/util/batcher.js';
import { withTimeout } from '../helpers/wait.js';

/** A promise whose settlement the test controls. */
function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Every wait of this file is bounded, by a second unless it says otherwise. */
function within<T>(promise: Promise<T>, ms = 1000): Promise<T> {
  return withTimeout(promise, ms, 'the batcher');
}

/**
 * Lets `count` event-loop turns pass. The batcher flushes on the next turn (setImmediate), so a
 * batch that could start early has started after a few turns.
 */
async function turns(count = 3): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) await new Promise((r) => setImmediate(r));
}

/** A recording `run` that doubles numbers. */
function recorder(): { batches: number[][]; run: (items: number[]) => Promise<number[]> } {
  const batches: number[][] = [];
  return {
    batches,
    run: (items) => {
      batches.push([...items]);
      return Promise.resolve(items.map((n) => n * 2));
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Batcher', () => {
  it('puts items added in the same tick into one batch', async () => {
    const { batches, run } = recorder();
    const batcher = new Batcher<number, number>({ run });
    const results = await within(Promise.all([batcher.add(1), batcher.add(2), batcher.add(3)]));
    expect(results).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('gathers items added across microtasks of the same event-loop turn', async () => {
    const { batches, run } = recorder();
    const batcher = new Batcher<number, number>({ run });
    const first = batcher.add(1);
    await Promise.resolve();
    const second = batcher.add(2);
    await within(Promise.all([first, second]));
    expect(batches).toEqual([[1, 2]]);
  });

  it('does not run before the first item arrives and counts unfinished items', async () => {
    const { batches, run } = recorder();
    const batcher = new Batcher<number, number>({ run });
    expect(batcher.unfinished).toBe(0);
    const pending = batcher.add(5);
    expect(batcher.unfinished).toBe(1);
    expect(batches).toEqual([]);
    await within(pending);
    expect(batcher.unfinished).toBe(0);
  });

  it('splits at maxBatch, keeping order', async () => {
    const { batches, run } = recorder();
    const batcher = new Batcher<number, number>({ run, maxBatch: 2 });
    const results = await within(Promise.all([1, 2, 3, 4, 5].map((n) => batcher.add(n))));
    expect(results).toEqual([2, 4, 6, 8, 10]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('runs one batch at a time; items arriving meanwhile form the next batch', async () => {
    const gates: { resolve(): void }[] = [];
    const batches: number[][] = [];
    let active = 0;
    let maxActive = 0;
    const batcher = new Batcher<number, number>({
      run: async (items) => {
        batches.push([...items]);
        active += 1;
        maxActive = Math.max(maxActive, active);
        const gate = deferred();
        gates.push(gate);
        await gate.promise;
        active -= 1;
        return items;
      },
    });
    const a = batcher.add(1);
    const b = batcher.add(2);
    await vi.waitFor(() => expect(gates).toHaveLength(1), { timeout: 1000, interval: 1 });
    const c = batcher.add(3);
    const d = batcher.add(4);
    // give a second batch every chance to start early: it must not
    await turns();
    expect(gates).toHaveLength(1);
    expect(batcher.unfinished).toBe(4); // two in the running batch, two waiting
    gates[0]?.resolve();
    await within(Promise.all([a, b]));
    await vi.waitFor(() => expect(gates).toHaveLength(2), { timeout: 1000, interval: 1 });
    gates[1]?.resolve();
    await within(Promise.all([c, d]));
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(maxActive).toBe(1);
  });

  it('rejects only the item whose result is an ItemFailure', async () => {
    const boom = new Error('duplicate id');
    const batcher = new Batcher<string, string>({
      run: (items) =>
        Promise.resolve(items.map((s) => (s === 'bad' ? new ItemFailure(boom) : s.toUpperCase()))),
    });
    const results = await within(
      Promise.allSettled([batcher.add('a'), batcher.add('bad'), batcher.add('c')]),
    );
    expect(results).toEqual([
      { status: 'fulfilled', value: 'A' },
      { status: 'rejected', reason: boom },
      { status: 'fulfilled', value: 'C' },
    ]);
  });

  it('rejects every item of a batch whose run throws, and keeps working afterwards', async () => {
    const failure = new Error('connection lost');
    let calls = 0;
    const batcher = new Batcher<number, number>({
      maxBatch: 2,
      run: (items) => {
        calls += 1;
        if (calls === 1) return Promise.reject(failure);
        return Promise.resolve(items.map((n) => n + 100));
      },
    });
    const results = await within(Promise.allSettled([1, 2, 3].map((n) => batcher.add(n))));
    expect(results).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
      { status: 'fulfilled', value: 103 },
    ]);
    await expect(within(batcher.add(4))).resolves.toBe(104);
  });

  it('rejects the batch when run throws synchronously', async () => {
    const failure = new Error('sync');
    const batcher = new Batcher<number, number>({
      run: () => {
        throw failure;
      },
    });
    await expect(within(batcher.add(1))).rejects.toBe(failure);
  });

  it('drain waits for every item added so far, across batches', async () => {
    const settled: number[] = [];
    const batcher = new Batcher<number, number>({
      maxBatch: 3,
      run: async (items) => {
        await new Promise((r) => setTimeout(r, 5)); // each batch takes a while
        return items;
      },
    });
    for (let n = 1; n <= 7; n += 1) void batcher.add(n).then((v) => settled.push(v));
    await within(batcher.drain());
    // item callbacks run in the microtasks right after their batch; one more turn flushes them
    await Promise.resolve();
    expect(settled.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(batcher.unfinished).toBe(0);
  });

  it('resolves whenAtMost only once enough batches have finished', async () => {
    const gates: { resolve(): void }[] = [];
    const batcher = new Batcher<number, number>({
      maxBatch: 2,
      run: async (items) => {
        const gate = deferred();
        gates.push(gate);
        await gate.promise;
        return items;
      },
    });
    const items = [1, 2, 3, 4].map((n) => batcher.add(n));
    await within(batcher.whenAtMost(4)); // holds already
    let atMostTwo = false;
    let atMostZero = false;
    void batcher.whenAtMost(2).then(() => (atMostTwo = true));
    void batcher.whenAtMost(0).then(() => (atMostZero = true));
    await vi.waitFor(() => expect(gates).toHaveLength(1), { timeout: 1000, interval: 1 });
    await turns(); // nothing finished yet: neither waiter may resolve
    expect([atMostTwo, atMostZero]).toEqual([false, false]);
    gates[0]?.resolve();
    await vi.waitFor(() => expect(atMostTwo).toBe(true), { timeout: 1000, interval: 1 });
    expect(atMostZero).toBe(false);
    await vi.waitFor(() => expect(gates).toHaveLength(2), { timeout: 1000, interval: 1 });
    gates[1]?.resolve();
    await vi.waitFor(() => expect(atMostZero).toBe(true), { timeout: 1000, interval: 1 });
    await within(Promise.all(items));
  });

  it('drain flushes at once without waiting for the scheduled flush', async () => {
    const { batches, run } = recorder();
    const batcher = new Batcher<number, number>({ run });
    const item = batcher.add(1);
    await within(batcher.drain(), 500);
    await expect(within(item, 100)).resolves.toBe(2);
    expect(batches).toEqual([[1]]);
  });

  it('drain resolves at once when nothing was added', async () => {
    const { batches, run } = recorder();
    await within(new Batcher<number, number>({ run }).drain(), 100);
    expect(batches).toEqual([]);
  });
});
