/**
 * Batch handlers without a database: the definition's checks and types, how a handler's result
 * maps to each job's end, and how the worker gathers a batch from its local queue.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  defineJob,
  silentLogger,
  type BatchJob,
  type JobContext,
  type PayloadOf,
} from '../../src/index.js';
import { batchEnds, DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE } from '../../src/job/batch.js';
import { takeBatch, type Buffered } from '../../src/runtime/batch-group.js';
import type { ClaimedJob } from '../../src/storage/model.js';
import { failure } from '../helpers/failure.js';

describe('defineJob with handleBatch', () => {
  it('takes handleBatch with a batchSize of 1–1000 (default 100) instead of handle', () => {
    const noop = () => undefined;
    expect(defineJob({ type: 'b.v1', handleBatch: noop }).batchSize).toBe(DEFAULT_BATCH_SIZE);
    expect(defineJob({ type: 'b.v1', handleBatch: noop, batchSize: 1 }).batchSize).toBe(1);
    expect(defineJob({ type: 'b.v1', handleBatch: noop, batchSize: MAX_BATCH_SIZE })).toMatchObject(
      { batchSize: 1000, handleBatch: noop },
    );
    expect(defineJob({ type: 's.v1', handle: noop })).toMatchObject({
      batchSize: 1,
      handleBatch: undefined,
      handle: noop,
    });
  });

  const noop = (): undefined => undefined;
  const bad: [Record<string, unknown>, string, string][] = [
    [{ handleBatch: noop, batchSize: 0 }, 'batchSize', 'an integer from 1 to 1000'],
    [{ handleBatch: noop, batchSize: 1001 }, 'batchSize', 'an integer from 1 to 1000'],
    [{ handleBatch: noop, batchSize: 2.5 }, 'batchSize', 'an integer from 1 to 1000'],
    [{ handle: noop, batchSize: 10 }, 'batchSize', 'set with handleBatch'],
    [{ handle: noop, handleBatch: noop }, 'handle', 'left out'],
    [{ handleBatch: 'nope' }, 'handleBatch', 'a function'],
    [{}, 'handle', 'a function'],
  ];
  it.each(bad)(
    'refuses %o with a coded error naming the field',
    async (fields, field, expected) => {
      const error = await failure(() =>
        defineJob({ type: 'bad.v1', ...fields } as unknown as Parameters<typeof defineJob>[0]),
      );
      expect(error.code).toBe('CHOKAQ_INVALID_CONFIG');
      expect(error.field).toBe(`job 'bad.v1'.${field}`);
      expect(error.message).toContain(expected);
    },
  );

  it('types each job of the batch from the schema, and the enqueue payload with PayloadOf', () => {
    const typed = defineJob({
      type: 'typed.v1',
      payload: z.object({ to: z.string(), n: z.coerce.number() }),
      handleBatch(jobs, ctx) {
        expectTypeOf(jobs).toEqualTypeOf<readonly BatchJob<{ to: string; n: number }>[]>();
        expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
        return Promise.allSettled(jobs.map((job) => Promise.resolve(job.payload.n)));
      },
    });
    expectTypeOf<PayloadOf<typeof typed>>().toEqualTypeOf<{ to: string; n: unknown }>();
    expect(typed.batchSize).toBe(DEFAULT_BATCH_SIZE);
    const named = defineJob<{ id: number }>({ type: 'named.v1', handleBatch: () => undefined });
    expectTypeOf<PayloadOf<typeof named>>().toEqualTypeOf<{ id: number }>();
    expect(named.handleBatch).toBeTypeOf('function');
    // Never called: these only have to fail to type-check.
    const typeErrors = () => {
      // @ts-expect-error a job type has one handler
      defineJob({ type: 'both.v1', handle: () => undefined, handleBatch: () => undefined });
      // @ts-expect-error batchSize goes with handleBatch
      defineJob({ type: 'size.v1', handle: () => undefined, batchSize: 5 });
      // @ts-expect-error an outcome is in the shape Promise.allSettled returns
      defineJob({ type: 'shape.v1', handleBatch: (jobs) => jobs.map(() => 'ok') });
    };
    expect(typeof typeErrors).toBe('function');
  });

  it('gives handle a batch of one: its value is the result, a rejected outcome is thrown', async () => {
    const seen: unknown[] = [];
    const job = defineJob<{ n: number }>({
      type: 'one.v1',
      queue: 'q',
      handleBatch(jobs, ctx) {
        seen.push({ size: jobs.length, type: ctx.type, queue: ctx.queue, id: jobs[0]?.id });
        const n = jobs[0]?.payload.n ?? 0;
        return [
          n > 0
            ? { status: 'fulfilled', value: n * 2 }
            : { status: 'rejected', reason: new Error('no') },
        ];
      },
    });
    const ctx = {
      id: 'j1',
      type: 'one.v1',
      queue: 'q',
      attempt: 1,
      createdAt: new Date(),
      signal: new AbortController().signal,
      progress: () => Promise.resolve(),
      log: silentLogger,
      skip: () => undefined,
      dependencies: () => Promise.resolve([]),
      step: async <T>(_name: string, fn: () => T | Promise<T>) => fn(),
      sleep: () => Promise.resolve(),
      waitForEvent: () => Promise.resolve({ received: false as const }),
      batch: () => Promise.resolve(null),
    } satisfies JobContext;
    expect(await job.handle({ n: 4 }, ctx)).toBe(8);
    await expect(Promise.resolve(job.handle({ n: 0 }, ctx))).rejects.toThrow('no');
    expect(seen[0]).toEqual({ size: 1, type: 'one.v1', queue: 'q', id: 'j1' });
  });
});

describe('batchEnds', () => {
  const boom = new Error('boom');

  it('succeeds every job when the handler returns nothing', () => {
    expect(batchEnds('t', undefined, 2)).toEqual([{ value: undefined }, { value: undefined }]);
  });

  it('maps each outcome, in order, to its job', () => {
    expect(
      batchEnds(
        't',
        [
          { status: 'fulfilled', value: { ok: 1 } },
          { status: 'rejected', reason: boom },
          undefined,
        ],
        3,
      ),
    ).toEqual([{ value: { ok: 1 } }, { error: boom }, { value: undefined }]);
  });

  it('turns a rejection without a reason into an error', () => {
    const [end] = batchEnds('t', [{ status: 'rejected', reason: undefined }], 1);
    expect(end && 'error' in end && end.error).toBeInstanceOf(Error);
  });

  it.each([
    ['a value that is not an array', 'ok', '"ok" (string)'],
    ['too few outcomes', [undefined], '1 outcomes for 2 jobs'],
    ['an entry of another shape', [undefined, { ok: true }], 'an object at index 1'],
    ['a rejected entry without a reason', [undefined, { status: 'rejected' }], 'at index 1'],
  ])('fails every job with CHOKAQ_INVALID_BATCH_RESULT for %s', (_what, result, named) => {
    const ends = batchEnds('mail.v1', result, 2);
    expect(ends).toHaveLength(2);
    for (const end of ends) {
      expect(end).toMatchObject({ error: { code: 'CHOKAQ_INVALID_BATCH_RESULT' } });
      expect('error' in end && String(end.error)).toContain(named);
      expect('error' in end && String(end.error)).toContain("'mail.v1'");
    }
  });
});

describe('takeBatch', () => {
  let next = 0;
  const claimed = (type: string, queue = 'q'): Buffered => ({
    job: { id: `j${++next}`, type, queue } as ClaimedJob,
    claimedAt: next,
  });
  const ids = (items: readonly Buffered[]) => items.map((item) => item.job.id);

  it('takes the buffered jobs of the same type and queue, in order, up to the batch size', () => {
    const first = claimed('a');
    const buffer = [
      claimed('a'),
      claimed('b'),
      claimed('A'), // the registry ignores case
      claimed('a', 'other'),
      claimed('a'),
      claimed('a'),
    ];
    const [a2, b, a3, other, a4, a5] = ids(buffer);
    const batch = takeBatch(buffer, first, 4, () => true);
    expect(ids(batch)).toEqual([first.job.id, a2, a3, a4]);
    expect(ids(buffer)).toEqual([b, other, a5]);
  });

  it('takes a slot for every job it adds, and stops when none is left', () => {
    const first = claimed('a');
    const buffer = [claimed('a'), claimed('a'), claimed('a')];
    const [, , last] = ids(buffer);
    let slots = 2;
    let asked = 0;
    const batch = takeBatch(buffer, first, 10, () => (asked++, slots-- > 0));
    expect(batch).toHaveLength(3);
    expect(asked).toBe(3);
    expect(ids(buffer)).toEqual([last]);
  });

  it('waits for nothing: a lone job is a batch of one, and the buffer is left as it was', () => {
    const first = claimed('a');
    const buffer = [claimed('b'), claimed('c')];
    const before = ids(buffer);
    expect(ids(takeBatch(buffer, first, 100, () => true))).toEqual([first.job.id]);
    expect(ids(buffer)).toEqual(before);
  });
});
