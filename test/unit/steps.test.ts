/**
 * Durable steps' inputs and `performJob`'s steps: bad names, durations, topics, results and
 * events get coded errors naming the field; `performJob` replays given step results, hands
 * waits the events given by topic, and reports what the run recorded.
 */
import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, memory, silentLogger } from '../../src/index.js';
import { performJob } from '../../src/testing/index.js';

describe('durable steps in performJob', () => {
  const checkout = defineJob<{ cart: string }>({
    type: 'unit.checkout.v1',
    async handle({ cart }, ctx) {
      const total = await ctx.step('price', () => ({ cart, total: 30, at: new Date(0) }));
      await ctx.sleep('cool-off', '1h');
      const approval = await ctx.waitForEvent<{ by: string }>('approve', 'approval', {
        timeout: '1d',
      });
      return { total, approval };
    },
  });

  it('runs steps, reads them back from JSON, and reports what was recorded', async () => {
    const run = await performJob(checkout, { cart: 'c1' }, { events: { approval: { by: 'ann' } } });
    const total = { cart: 'c1', total: 30, at: '1970-01-01T00:00:00.000Z' };
    expect(run.result).toEqual({ total, approval: { received: true, data: { by: 'ann' } } });
    expect(run.steps).toEqual({ price: total, approve: { received: true, data: { by: 'ann' } } });
  });

  it('replays given step results without calling their functions; a wait without its event times out', async () => {
    const run = await performJob(checkout, { cart: 'c1' }, { steps: { price: { total: 1 } } });
    expect(run.result).toEqual({ total: { total: 1 }, approval: { received: false } });
  });

  it('refuses bad names, repeats, durations, topics and results with coded errors', async () => {
    const cases: [
      string,
      (ctx: Parameters<typeof checkout.handle>[1]) => Promise<unknown>,
      object,
    ][] = [
      [
        'blank name',
        (ctx) => ctx.step('', () => 1),
        { code: 'CHOKAQ_INVALID_ARGUMENT', field: 'name' },
      ],
      [
        'long name',
        (ctx) => ctx.step('x'.repeat(201), () => 1),
        { code: 'CHOKAQ_INVALID_ARGUMENT', field: 'name' },
      ],
      [
        'repeated name',
        async (ctx) => {
          await ctx.step('a', () => 1);
          await ctx.sleep('a', 1);
        },
        { code: 'CHOKAQ_STEP_REPEATED', field: 'name' },
      ],
      [
        'bad duration',
        (ctx) => ctx.sleep('s', 'soon' as '1h'),
        { code: 'CHOKAQ_INVALID_DURATION', field: 'duration' },
      ],
      [
        'sleep past a year',
        (ctx) => ctx.sleep('s', '400d'),
        { code: 'CHOKAQ_INVALID_DURATION', field: 'duration' },
      ],
      [
        'missing timeout',
        (ctx) => ctx.waitForEvent('w', 't', {} as { timeout: '1h' }),
        { code: 'CHOKAQ_INVALID_DURATION', field: 'options.timeout' },
      ],
      [
        'blank topic',
        (ctx) => ctx.waitForEvent('w', '', { timeout: '1h' }),
        { code: 'CHOKAQ_INVALID_ARGUMENT', field: 'topic' },
      ],
      [
        'result not JSON',
        (ctx) => ctx.step('big', () => 10n),
        { code: 'CHOKAQ_STEP_RESULT_INVALID', field: 'name' },
      ],
      [
        'result too large',
        (ctx) => ctx.step('big', () => 'x'.repeat(70_000)),
        { code: 'CHOKAQ_STEP_RESULT_INVALID', field: 'name' },
      ],
      [
        'an unknown step option',
        (ctx) => ctx.step('t', () => 1, { clinet: {} } as unknown as { client: unknown }),
        { code: 'CHOKAQ_UNKNOWN_OPTION', field: 'options.clinet' },
      ],
      [
        'a null client',
        (ctx) => ctx.step('t', () => 1, { client: null }),
        { code: 'CHOKAQ_INVALID_ARGUMENT', field: 'options.client' },
      ],
      [
        'a client outside a worker',
        (ctx) => ctx.step('t', () => 1, { client: {} }),
        { code: 'CHOKAQ_TRANSACTION_UNSUPPORTED', field: 'options.client' },
      ],
    ];
    for (const [what, body, error] of cases) {
      const job = defineJob({ type: `unit.bad.v1`, handle: (_payload, ctx) => body(ctx) });
      await expect(performJob(job, {}), what).rejects.toMatchObject(error);
    }
  });
});

describe('chokaq.sendEvent', () => {
  it('refuses bad ids, topics and data, and events for jobs that are not active', async () => {
    const chokaq = new ChokaQ({ storage: memory(), worker: false, logger: silentLogger });
    try {
      await expect(chokaq.sendEvent('', 't', 1)).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_JOB_ID',
      });
      await expect(chokaq.sendEvent('j', 't'.repeat(201), 1)).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
        field: 'topic',
      });
      await expect(chokaq.sendEvent('j', 't', 1n)).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
        field: 'data',
      });
      await expect(chokaq.sendEvent('j', 't', 'x'.repeat(70_000))).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
        field: 'data',
      });
      await expect(chokaq.sendEvent('j', 't', () => 1)).rejects.toMatchObject({
        code: 'CHOKAQ_INVALID_ARGUMENT',
        field: 'data',
      });
      await expect(chokaq.sendEvent('no-such-job', 't', 1)).rejects.toMatchObject({
        code: 'CHOKAQ_JOB_NOT_ACTIVE',
        field: 'id',
      });
    } finally {
      await chokaq.stop();
    }
  });
});
