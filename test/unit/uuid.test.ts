import { describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/util/uuid.js';

const FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('has the version 7 and RFC 9562 variant bits and carries the time in its first 48 bits', () => {
    const now = Date.UTC(2030, 0, 1);
    const id = uuidv7(now);
    expect(id).toMatch(FORMAT);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(now);
  });

  it('is unique and increasing within one millisecond, across many pool refills', () => {
    const now = Date.UTC(2031, 5, 1);
    const ids = Array.from({ length: 3000 }, () => uuidv7(now));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => FORMAT.test(id))).toBe(true);
  });

  it('keeps increasing when the clock moves forward', () => {
    const a = uuidv7(Date.UTC(2032, 0, 1));
    const b = uuidv7(Date.UTC(2032, 0, 1) + 1);
    expect(a < b).toBe(true);
  });
});
