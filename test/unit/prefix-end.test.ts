import { describe, expect, it } from 'vitest';
import { prefixEnd } from '../../src/storage/sql/job-query.js';

describe('prefixEnd (the upper bound of an id-prefix range)', () => {
  it('increments the last character', () => {
    expect(prefixEnd('0193ab')).toBe('0193ac');
    expect(prefixEnd('job-z')).toBe('job-{');
  });

  it('is above every text with the prefix and below the next prefix in byte order', () => {
    const prefix = 'ab';
    const end = prefixEnd(prefix)!;
    for (const id of ['ab', 'ab\u0000', 'abzzzz', 'ab\u{10ffff}x', 'ab日本']) {
      expect(Buffer.compare(Buffer.from(id), Buffer.from(end))).toBe(-1);
    }
    expect(Buffer.compare(Buffer.from('ac'), Buffer.from(end))).toBe(0);
  });

  it('handles characters outside the basic plane', () => {
    expect(prefixEnd('x\u{1f600}')).toBe('x\u{1f601}');
  });

  it('has no bound where the successor is not a character', () => {
    expect(prefixEnd('a\u{10ffff}')).toBeNull();
    expect(prefixEnd('a\ud7ff')).toBeNull();
  });
});
