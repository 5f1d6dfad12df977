import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ChokaQ,
  defineJob,
  FatalError,
  silentLogger,
  type JobContext,
  type Logger,
} from '../../src/index.js';
import { embedded } from '../../src/storage/embedded/index.js';
import type { Store } from '../../src/storage/store.js';
import {
  assertEnqueued,
  drain,
  FakeClock,
  memory,
  performJob,
  waitForJob,
} from '../../src/testing/index.js';
import { uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';

describe('chokaq/testing drain', () => {
  it('waits until every due job has settled and leaves delayed ones alone', async () => {
    const done: number[] = [];
    const job = defineJob<{ n: number }>({
      type: 'kit.v1',
      async handle(payload) {
        await new Promise((resolve) => setTimeout(resolve, 5)); // the run takes a while
        done.push(payload.n);
      },
    });
    const chokaq = new ChokaQ({
      storage: memory(),
      jobs: [job],
      logger: silentLogger,
      pollInterval: 20,
    });
    await chokaq.start();
    await chokaq.enqueueMany(
      job,
      [1, 2, 3, 4, 5].map((n) => ({ payload: { n } })),
    );
    await chokaq.enqueue(job, { n: 99 }, { delay: '1h' });
    await drain(chokaq, { timeoutMs: 5000 });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5]);
    expect((await chokaq.listJobs()).map((j) => j.state)).toEqual(['scheduled']);
    await chokaq.stop();
  });

  it('rejects when jobs stay busy past the timeout', async () => {
    const job = defineJob({
      type: 'kit.hang.v1',
      handle: () => new Promise<void>(() => undefined),
    });
    // The engine waits on a fake clock, so stop()'s grace periods pass when the test says so.
    const clock = new FakeClock(Date.now());
    const chokaq = new ChokaQ({
      storage: memory(),
      jobs: [job],
      logger: silentLogger,
      clock,
      shutdownGracePeriod: 10,
    });
    await chokaq.start();
    await chokaq.enqueue(job, {}); // the store's wake-up starts it, no poll needed
    await waitFor(() => chokaq.running === 1);
    await expect(drain(chokaq, { timeoutMs: 200 })).rejects.toThrow(/1 jobs still busy/);
    // stop() gives up on a handler that ignores its abort signal instead of hanging: within the
    // grace period and the few seconds it waits for aborted handlers.
    let stopped = false;
    const stopping = chokaq.stop().then(() => (stopped = true));
    for (let second = 0; second < 10 && !stopped; second += 1) await clock.advanceAsync(1000);
    expect(stopped).toBe(true);
    await stopping;
  });
});

describe('chokaq/testing performJob', () => {
  it('hands the handler the payload through JSON and the schema, and a context from the options', async () => {
    const seen: { payload: unknown; ctx: JobContext }[] = [];
    const job = defineJob({
      type: 'kit.perform.v1',
      queue: 'mail',
      payload: z.object({ count: z.coerce.number(), at: z.string() }),
      async handle(payload, ctx) {
        seen.push({ payload, ctx });
        await ctx.progress(140);
        await ctx.progress(40);
        return payload.count * 2;
      },
    });
    const performed = await performJob(job, { count: '21', at: new Date(0) as unknown as string });
    expect(performed).toEqual({ result: 42, progress: 40, skipped: undefined, steps: {} });
    expect(seen[0]?.payload).toEqual({ count: 21, at: '1970-01-01T00:00:00.000Z' });
    expect(seen[0]?.ctx).toMatchObject({
      id: 'perform-job',
      type: 'kit.perform.v1',
      queue: 'mail',
      attempt: 1,
    });
    expect(seen[0]?.ctx.signal.aborted).toBe(false);

    const createdAt = new Date('2026-01-02T03:04:05Z');
    await performJob(
      job,
      { count: 1, at: '' },
      { id: 'j-7', queue: 'other', attempt: 3, createdAt },
    );
    expect(seen[1]?.ctx).toMatchObject({ id: 'j-7', queue: 'other', attempt: 3, createdAt });
  });

  it('reports a skip, and logs through the given logger', async () => {
    const lines: string[] = [];
    const logger: Logger = {
      ...silentLogger,
      info: (message) => lines.push(message),
      child: () => logger,
    };
    const job = defineJob<{ n: number }>({
      type: 'kit.skip.v1',
      handle(payload, ctx) {
        ctx.log.info(`seen ${payload.n}`);
        ctx.skip('duplicate');
      },
    });
    expect(await performJob(job, { n: 5 }, { logger })).toEqual({
      result: undefined,
      progress: undefined,
      skipped: 'duplicate',
      steps: {},
    });
    expect(lines).toEqual(['seen 5']);
  });

  it('rejects a payload its schema refuses before the handler, and with what the handler throws', async () => {
    let runs = 0;
    const job = defineJob({
      type: 'kit.strict.v1',
      payload: z.object({ to: z.string() }),
      handle(payload) {
        runs += 1;
        throw new FatalError(`no mailbox ${payload.to}`);
      },
    });
    await expect(performJob(job, { to: 7 as unknown as string })).rejects.toMatchObject({
      code: 'CHOKAQ_PAYLOAD_INVALID',
    });
    expect(runs).toBe(0);
    await expect(performJob(job, { to: 'ada' })).rejects.toThrow(/no mailbox ada/);
    expect(runs).toBe(1);
  });

  it('aborts the context signal with the given signal, also one aborted already', async () => {
    const reasons: unknown[] = [];
    const job = defineJob({
      type: 'kit.abort.v1',
      async handle(_payload, ctx) {
        if (!ctx.signal.aborted) {
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        }
        reasons.push(ctx.signal.reason);
      },
    });
    const controller = new AbortController();
    const running = performJob(job, {}, { signal: controller.signal });
    controller.abort('test over');
    await running;
    await performJob(job, {}, { signal: AbortSignal.abort('before') });
    expect(reasons).toMatchObject([
      { name: 'RunAborted', why: 'cancel', message: 'test over' },
      { name: 'RunAborted', why: 'cancel', message: 'before' },
    ]);
  });
});

// The helpers that read storage, on the memory store and on PGlite (one instance, a schema each).
let pglite: PGlite;
beforeAll(async () => {
  pglite = new PGlite();
  await pglite.waitReady;
});
afterAll(() => pglite.close());

const PROVIDERS: [string, () => Store][] = [
  ['memory', () => memory()],
  ['embedded', () => embedded({ dataDir: 'memory://', schema: uniqueSchema('kit'), pglite })],
];

describe.each(PROVIDERS)('chokaq/testing on %s', (_name, makeStore) => {
  const mail = defineJob<{ to: string }>({ type: 'kit.mail.v1', handle: () => undefined });
  const sms = defineJob<{ to: string }>({ type: 'kit.sms.v1', handle: () => undefined });

  it('assertEnqueued finds the first waiting job of a type whose payload matches', async () => {
    const chokaq = new ChokaQ({ storage: makeStore(), jobs: [mail, sms], logger: silentLogger });
    const ada = await chokaq.enqueue(mail, { to: 'ada' });
    await chokaq.enqueue(mail, { to: 'ada' });
    const bob = await chokaq.enqueue(mail, { to: 'bob' }, { delay: '1h' });
    await chokaq.enqueue(sms, { to: 'cyd' });
    expect((await assertEnqueued(chokaq, mail)).id).toBe(ada.id);
    expect(await assertEnqueued(chokaq, mail, (p) => p.to === 'ada')).toMatchObject({
      id: ada.id,
      state: 'pending',
    });
    // Scheduled jobs wait too; the store itself serves as well as the ChokaQ.
    expect(await assertEnqueued(chokaq.storage, mail, (p) => p.to === 'bob')).toMatchObject({
      id: bob.id,
      state: 'scheduled',
    });
    await expect(assertEnqueued(chokaq, mail, (p) => p.to === 'cyd')).rejects.toThrow(
      "assertEnqueued: no waiting job of type 'kit.mail.v1' matches (3 of that type waiting)",
    );
    await chokaq.stop();
  });

  it('assertEnqueued does not count a job that ran', async () => {
    const chokaq = new ChokaQ({ storage: makeStore(), jobs: [mail], logger: silentLogger });
    await chokaq.start();
    const { id } = await chokaq.enqueue(mail, { to: 'ada' });
    await waitForJob(chokaq, id, 'succeeded');
    await expect(assertEnqueued(chokaq, mail)).rejects.toThrow(/\(0 of that type waiting\)/);
    await chokaq.stop();
  });

  it('waitForJob resolves to the row once the job is in the state', async () => {
    const broken = defineJob({
      type: 'kit.broken.v1',
      handle() {
        throw new FatalError('broken');
      },
    });
    const chokaq = new ChokaQ({ storage: makeStore(), jobs: [mail, broken], logger: silentLogger });
    const later = await chokaq.enqueue(mail, { to: 'ada' }, { delay: '1h' });
    expect(await waitForJob(chokaq, later.id, 'scheduled')).toMatchObject({ state: 'scheduled' });
    await chokaq.start();
    const ok = await chokaq.enqueue(mail, { to: 'bob' });
    const bad = await chokaq.enqueue(broken, {});
    const archived = await waitForJob(chokaq, ok.id, 'succeeded', { timeoutMs: 5000 });
    expect(archived).toMatchObject({ id: ok.id, attempts: 1 });
    const dead = await waitForJob(chokaq.storage, bad.id, 'dead', { intervalMs: 5 });
    expect(dead).toMatchObject({ id: bad.id, reason: 'Fatal', attempts: 1 });
    await chokaq.stop();
  });

  it('waitForJob rejects after its timeout, naming the job, the state and the last one seen', async () => {
    const chokaq = new ChokaQ({ storage: makeStore(), jobs: [mail], logger: silentLogger });
    const { id } = await chokaq.enqueue(mail, { to: 'ada' }); // never started: stays pending
    const started = Date.now();
    await expect(waitForJob(chokaq, id, 'succeeded', { timeoutMs: 100 })).rejects.toThrow(
      `waitForJob: job ${id} not succeeded after 100 ms (last: pending)`,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    await expect(waitForJob(chokaq, 'no-such-job', 'dead', { timeoutMs: 50 })).rejects.toThrow(
      'waitForJob: job no-such-job not dead after 50 ms (last: not found)',
    );
    await chokaq.stop();
  });
});
