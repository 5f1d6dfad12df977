/**
 * Bad values of the throughput options (`prefetch`, a job type's `strictStart` and
 * `keepSucceeded`, a queue's `keepSucceeded` in the options and live): each is a coded error
 * naming the field and the value, and nothing is changed.
 */
import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, memory, silentLogger } from '../../src/index.js';
import { failure } from '../helpers/failure.js';

const noop = (): void => undefined;

describe('throughput options', () => {
  it.each([
    ['a word other than auto', 'lots', '"lots" (string)'],
    ['a negative number', -1, '-1'],
    ['a fraction', 2.5, '2.5'],
    ['more than the concurrency cap', 10_001, '10001'],
  ])('rejects a prefetch of %s, saying what it takes', async (_label, prefetch, shown) => {
    const error = await failure(
      () => new ChokaQ({ storage: memory(), prefetch: prefetch as number, logger: silentLogger }),
    );
    expect(error.code).toBe('CHOKAQ_INVALID_CONFIG');
    expect(error.field).toBe('prefetch');
    expect(error.message).toContain("'auto' or an integer from 0 to 10000");
    expect(error.message).toContain(shown);
  });

  it.each(['strictStart', 'keepSucceeded'])(
    'rejects a job type whose %s is not a boolean',
    async (name) => {
      const error = await failure(() =>
        defineJob({ type: 'opts.bad.v1', handle: noop, ...({ [name]: 'yes' } as object) }),
      );
      expect(error.code).toBe('CHOKAQ_INVALID_CONFIG');
      expect(error.field).toBe(`job 'opts.bad.v1'.${name}`);
      expect(error.message).toContain('"yes" (string)');
    },
  );

  it("rejects a queue's keepSucceeded that is not a boolean", async () => {
    const error = await failure(
      () =>
        new ChokaQ({
          storage: memory(),
          queues: { mail: { keepSucceeded: 0 as unknown as boolean } },
          logger: silentLogger,
        }),
    );
    expect(error.code).toBe('CHOKAQ_INVALID_CONFIG');
    expect(error.field).toBe('queues.mail.keepSucceeded');
    expect(error.message).toContain('0');
  });

  it('refuses a live keepSucceeded change that is not a boolean, changing nothing', async () => {
    const chokaq = new ChokaQ({ storage: memory(), worker: false, logger: silentLogger });
    await chokaq.storage.open();
    await chokaq.queues.setKeepSucceeded('mail', false);
    const error = await failure(() =>
      chokaq.queues.setKeepSucceeded('mail', 'no' as unknown as boolean),
    );
    expect(error.code).toBe('CHOKAQ_INVALID_ARGUMENT');
    expect(error.field).toBe('keep');
    expect((await chokaq.queues.list()).find((q) => q.name === 'mail')?.keepSucceeded).toBe(false);
    await chokaq.stop();
  });
});
