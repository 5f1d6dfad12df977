import { describe, expect, it } from 'vitest';
import { Smallest } from '../../src/storage/memory/smallest.js';

const byValue = (a: number, b: number): number => a - b;

/** A deterministic pseudo-random sequence (LCG), so a failure can be replayed. */
function numbers(count: number, seed: number): number[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % 1000;
  });
}

describe('Smallest', () => {
  it.each([
    [0, 50],
    [1, 50],
    [7, 50],
    [50, 50],
    [80, 50],
    [32, 5000],
  ])('keeps the %i smallest of %i items, in order, duplicates included', (limit, count) => {
    for (const seed of [1, 2, 3]) {
      const items = numbers(count, seed);
      const best = new Smallest(limit, byValue);
      for (const item of items) best.offer(item);
      expect(best.sorted()).toEqual([...items].sort(byValue).slice(0, limit));
    }
  });
});
