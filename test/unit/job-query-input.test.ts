import { describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import { decodeCursor, encodeCursor } from '../../src/operator/cursor.js';
import { checkJobQuery } from '../../src/operator/query-input.js';

/** The code and field of the error `call` throws. */
function failure(call: () => unknown): { code: string; field: string | undefined } {
  try {
    call();
  } catch (error) {
    if (error instanceof ChokaQError) return { code: error.code, field: error.field };
    throw error;
  }
  throw new Error('expected a throw');
}

describe('checkJobQuery', () => {
  it('asks every table newest first by default, and only the finished ones for finishedAt', () => {
    expect(checkJobQuery(undefined)).toMatchObject({
      tables: ['hot', 'archive', 'dlq'],
      base: { sort: 'createdAt', order: 'desc' },
      limit: 100,
    });
    expect(checkJobQuery({ sort: 'finishedAt' }).tables).toEqual(['archive', 'dlq']);
  });

  it('asks only the tables a filter can match', () => {
    expect(checkJobQuery({ reason: 'Fatal' }).tables).toEqual(['dlq']);
    expect(checkJobQuery({ errorGroup: 'abc' }).tables).toEqual(['dlq']);
    expect(checkJobQuery({ errorText: 'boom' }).tables).toEqual(['hot', 'dlq']);
    expect(checkJobQuery({ finished: { from: new Date(0) } }).tables).toEqual(['archive', 'dlq']);
    expect(checkJobQuery({ state: ['pending', 'fetched'] })).toMatchObject({
      tables: ['hot'],
      base: { states: ['pending', 'fetched'] },
    });
    expect(checkJobQuery({ state: 'succeeded', reason: 'Fatal' }).tables).toEqual([]);
  });

  it('accepts ISO times and single values for list filters', () => {
    const checked = checkJobQuery({
      created: { from: '2026-01-01T00:00:00Z' },
      queue: 'mail',
      tags: ' vip ',
    });
    expect(checked.base).toMatchObject({
      createdFrom: new Date('2026-01-01T00:00:00Z'),
      queues: ['mail'],
      tags: ['vip'],
    });
  });

  it('turns error text into words', () => {
    expect(checkJobQuery({ errorText: '  card   declined ' }).base.errorWords).toEqual([
      'card',
      'declined',
    ]);
    // Parts without a letter or digit are no words (a text index keeps none of them).
    expect(checkJobQuery({ errorText: 'card -- declined !!' }).base.errorWords).toEqual([
      'card',
      'declined',
    ]);
    expect(checkJobQuery({ errorText: 'é 7' }).base.errorWords).toEqual(['é', '7']);
  });

  it('refuses values that would widen a query: an error text without words, an empty list', () => {
    for (const errorText of ['!!!', ' -- ', '___', '"\'']) {
      expect(
        failure(() => checkJobQuery({ errorText })),
        errorText,
      ).toEqual({
        code: 'CHOKAQ_INVALID_FILTER',
        field: 'query.errorText',
      });
    }
    for (const key of ['tags', 'queue', 'type', 'state', 'reason'] as const) {
      expect(
        failure(() => checkJobQuery({ [key]: [] })),
        key,
      ).toEqual({
        code: 'CHOKAQ_INVALID_FILTER',
        field: `query.${key}`,
      });
    }
    expect(() => checkJobQuery({ errorText: '!!!' })).toThrow(/errorText.*!!!/);
  });

  it('refuses a cursor made by another filter or order, and a tampered one', () => {
    const first = checkJobQuery({ queue: 'a' });
    const cursor = encodeCursor({ micros: 1_700_000_000_000_000, id: 'job-1' }, first.signature);
    expect(checkJobQuery({ queue: 'a', cursor }).after).toEqual({
      micros: 1_700_000_000_000_000,
      id: 'job-1',
    });
    expect(checkJobQuery({ queue: 'a', cursor, limit: 5 }).after?.id).toBe('job-1');
    expect(failure(() => checkJobQuery({ queue: 'b', cursor }))).toEqual({
      code: 'CHOKAQ_INVALID_CURSOR',
      field: 'query.cursor',
    });
    expect(failure(() => checkJobQuery({ queue: 'a', order: 'asc', cursor })).code).toBe(
      'CHOKAQ_INVALID_CURSOR',
    );
    const tampered = Buffer.from('[1,1.5,"x","y"]').toString('base64url');
    expect(failure(() => decodeCursor(tampered, 'cursor', first.signature)).code).toBe(
      'CHOKAQ_INVALID_CURSOR',
    );
    expect(failure(() => decodeCursor('', 'cursor', first.signature)).code).toBe(
      'CHOKAQ_INVALID_CURSOR',
    );
  });

  it.each([
    [{ state: 'archived' }, 'CHOKAQ_INVALID_FILTER', 'query.state[0]'],
    [{ state: new Array(101).fill('dead') }, 'CHOKAQ_INVALID_ARGUMENT', 'query.state'],
    [{ order: 'newest' }, 'CHOKAQ_INVALID_ARGUMENT', 'query.order'],
    [{ limit: 0 }, 'CHOKAQ_INVALID_ARGUMENT', 'query.limit'],
    [{ created: { since: new Date() } }, 'CHOKAQ_UNKNOWN_OPTION', 'query.created.since'],
    [{ finished: { to: new Date(Number.NaN) } }, 'CHOKAQ_INVALID_FILTER', 'query.finished.to'],
    [{ attempts: { max: 1.5 } }, 'CHOKAQ_INVALID_FILTER', 'query.attempts.max'],
    [{ idPrefix: '' }, 'CHOKAQ_INVALID_JOB_ID', 'query.idPrefix'],
    [{ type: [''] }, 'CHOKAQ_INVALID_JOB_TYPE', 'query.type[0]'],
    [{ tags: [42] }, 'CHOKAQ_INVALID_FILTER', 'query.tags[0]'],
    [{ errorText: 'x'.repeat(201) }, 'CHOKAQ_INVALID_FILTER', 'query.errorText'],
    [{ errorGroup: 7 }, 'CHOKAQ_INVALID_FILTER', 'query.errorGroup'],
    [{ payload: { blob: 'x'.repeat(9000) } }, 'CHOKAQ_INVALID_FILTER', 'query.payload'],
    [{ payload: null }, 'CHOKAQ_INVALID_FILTER', 'query.payload'],
    [{ cursor: 42 }, 'CHOKAQ_INVALID_CURSOR', 'query.cursor'],
  ])('%j → %s at %s', (query, code, field) => {
    expect(failure(() => checkJobQuery(query as never))).toEqual({ code, field });
  });
});
