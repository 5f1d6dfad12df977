import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { arrayParam, statementValues } from '../../src/storage/postgres/array-param.js';

/** `pg`'s own conversion of a parameter (untyped: its internals have no declarations). */
const pgUtils = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(value: unknown): unknown;
};
const pgText = (value: unknown): unknown => pgUtils.prepareValue(value);

describe('arrayParam', () => {
  it('sends byte for byte what pg sends for strings, numbers and booleans', () => {
    const cases: unknown[][] = [
      ['0190f0c2-7a1e-7000-8000-000000000001', 'w-1', ''],
      [0, -0, 1.5, 1e-7, 12345678901234, Number.NaN],
      [true, false],
      ['é ☃ 🐢', "it's", 'a,b', '{x}', ' padded '],
      [],
    ];
    for (const value of cases) expect(arrayParam(value)).toBe(pgText(value));
  });

  it('leaves to pg what needs its escaping or conversion', () => {
    const cases: unknown[][] = [
      ['a"b'],
      ['back\\slash'],
      ['a', null],
      [undefined],
      [new Date(0)],
      [['nested']],
      [Buffer.from('x')],
    ];
    for (const value of cases) expect(arrayParam(value)).toBe(value);
  });

  it('converts only the array parameters of a statement', () => {
    const when = new Date(0);
    expect(statementValues(['x', 1, null, ['a', 'b'], when])).toEqual([
      'x',
      1,
      null,
      '{"a","b"}',
      when,
    ]);
  });
});
