import { describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import { toMs, type Duration } from '../../src/util/duration.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ChokaQError ? error.code : `not a ChokaQError: ${String(error)}`;
  }
  return undefined;
}

describe('toMs', () => {
  it('returns numbers as milliseconds', () => {
    expect(toMs(0)).toBe(0);
    expect(toMs(250)).toBe(250);
    expect(toMs(86_400_000)).toBe(86_400_000);
  });

  it('rounds fractional numbers to whole milliseconds', () => {
    expect(toMs(1.4)).toBe(1);
    expect(toMs(1.6)).toBe(2);
  });

  it.each<[Duration, number]>([
    ['250ms', 250],
    ['0ms', 0],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1.5s', 1500],
    ['0.5m', 30_000],
    ['2.5h', 9_000_000],
  ])('parses %s as %i ms', (input, expected) => {
    expect(toMs(input)).toBe(expected);
  });

  it('rounds decimal strings to whole milliseconds', () => {
    expect(toMs('1.4ms')).toBe(1);
    expect(toMs('0.0016s')).toBe(2);
  });

  it.each([-1, -0.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'rejects the number %d',
    (input) => {
      expect(codeOf(() => toMs(input))).toBe('CHOKAQ_INVALID_DURATION');
    },
  );

  it.each([
    '-1s',
    '-250ms',
    '',
    'abc',
    '10',
    '5 minutes',
    '1w',
    's',
    '1.s',
    '.5s',
    '1h30m',
    '1e3ms',
    'NaNs',
  ])('rejects the string %j', (input) => {
    expect(codeOf(() => toMs(input as Duration))).toBe('CHOKAQ_INVALID_DURATION');
  });

  it('rejects values that are neither numbers nor strings', () => {
    expect(codeOf(() => toMs(null as unknown as Duration))).toBe('CHOKAQ_INVALID_DURATION');
    expect(codeOf(() => toMs({} as unknown as Duration))).toBe('CHOKAQ_INVALID_DURATION');
  });

  it('names the option in the error message', () => {
    expect(() => toMs('soon' as Duration, 'retry.baseDelay')).toThrow(/retry\.baseDelay/);
    expect(() => toMs(-5, 'timeout')).toThrow(/timeout/);
  });

  it('throws a non-retryable ChokaQError', () => {
    let caught: unknown;
    try {
      toMs('x' as Duration);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ChokaQError);
    expect((caught as ChokaQError).retryable).toBe(false);
  });
});
