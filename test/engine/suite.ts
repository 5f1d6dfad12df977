import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChokaQ } from '../../src/index.js';
import {
  defineJob,
  FatalError,
  ThrottledError,
  type ChokaQOptions,
  type Clock,
  type JobContext,
} from '../../src/index.js';
import type { Store } from '../../src/storage/store.js';
import { JumpingClock } from '../helpers/jumping-clock.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { holdListen, watchClaims, type ClaimWatch } from '../helpers/watch-claims.js';
import { useEngines } from './engines.js';
import { waitForJob } from '../../src/testing/index.js';

/** What a test asks of a fresh store. */
export interface StoreRequest {
  /**
   * The clock every statement of the store reads (its `clock` option). A test that moves time
   * gives the same clock to the engine. Default: the database's own clock.
   */
  clock?: Clock;
}

/** How a test file provides fresh stores to the engine suite. */
export interface EngineStoreFactory {
  make(request?: StoreRequest): Promise<Store>;
  /**
   * A store over the same data as `store`, usable after `store` was closed; on the clock `store`
   * was made with.
   */
  reopen(store: Store): Promise<Store>;
  /** `false` skips every test (e.g. no PostgreSQL reachable). Default: always available. */
  available?(): Promise<boolean>;
  /**
   * `false` when the store cannot deliver wake-up notifications (behind a transaction-mode
   * pooler): the tests of wake-ups skip. Default: `true`.
   */
  notifications?: boolean;
}

/**
 * The engine's behaviour end to end (enqueue → worker → archive / retry / DLQ), run against every
 * storage provider so they all show the same semantics.
 */
export function describeEngine(name: string, factory: EngineStoreFactory): void {
  describe(`engine on ${name}`, () => {
    const engines = useEngines(name, factory);

    type EngineOptions = Omit<ChokaQOptions, 'storage'>;

    async function engineOn(
      storage: Store,
      options: EngineOptions,
      start: boolean,
    ): Promise<ChokaQ> {
      return start ? engines.started(storage, options) : engines.engineOn(storage, options);
    }

    /** A fresh store, on the engine's clock when the options give one. */
    function storeFor(options: EngineOptions): Promise<Store> {
      return factory.make(options.clock ? { clock: options.clock } : {});
    }

    /** An engine on a fresh store, started unless `start` is false. */
    async function engine(options: EngineOptions, start = true): Promise<ChokaQ> {
      return engineOn(await storeFor(options), options, start);
    }

    /** An engine not yet started whose claims can be awaited (see watchClaims). */
    async function watchedEngine(
      options: EngineOptions,
    ): Promise<{ chokaq: ChokaQ; nextClaim: ClaimWatch['nextClaim'] }> {
      const watch = watchClaims(await storeFor(options));
      return { chokaq: await engineOn(watch.store, options, false), nextClaim: watch.nextClaim };
    }

    it('runs a job and moves it to the archive with its duration and attempt', async () => {
      const seen: JobContext[] = [];
      const job = defineJob<{ to: string }>({
        type: 'mail.v1',
        queue: 'mail',
        async handle(payload, ctx) {
          expect(payload).toEqual({ to: 'a@b.c' });
          seen.push(ctx);
          await sleep(15); // the run's own work, so its measured duration is not zero
        },
      });
      const chokaq = await engine({ jobs: [job] });
      const { id, created } = await chokaq.enqueue(job, { to: 'a@b.c' });
      expect(created).toBe(true);
      const found = await waitForJob(chokaq, id, 'succeeded');
      expect(found.attempts).toBe(1);
      expect(found.durationMs).toBeGreaterThanOrEqual(10);
      expect(seen[0]).toMatchObject({ id, type: 'mail.v1', queue: 'mail', attempt: 1 });
      expect(seen[0]?.signal.aborted).toBe(false);
      const stats = (await chokaq.queues.stats()).find((s) => s.queue === 'mail');
      expect(stats).toMatchObject({ archived: 1, succeededTotal: 1, pending: 0, processing: 0 });
    });

    it('retries transient failures with backoff and archives on a later attempt', async () => {
      const attempts: number[] = [];
      const job = defineJob({
        type: 'flaky.v1',
        retry: { maxAttempts: 5, baseDelay: 20, jitter: 0 },
        handle(_p, ctx) {
          attempts.push(ctx.attempt);
          if (ctx.attempt < 3) throw new Error(`fail ${ctx.attempt}`);
        },
      });
      const chokaq = await engine({ jobs: [job] });
      const retries: number[] = [];
      chokaq.on('job:retrying', (e) => retries.push(e.delayMs));
      const { id } = await chokaq.enqueue(job, {});
      const archived = await waitForJob(chokaq, id, 'succeeded');
      expect(attempts).toEqual([1, 2, 3]);
      expect(archived.attempts).toBe(3);
      expect(retries).toEqual([20, 40]);
      const stats = (await chokaq.queues.stats()).find((s) => s.queue === 'default');
      expect(stats?.retriedTotal).toBe(2);
    });

    it('moves a job to the DLQ as Transient when attempts run out', async () => {
      let runs = 0;
      const job = defineJob({
        type: 'broken.v1',
        retry: { maxAttempts: 3, baseDelay: 10, jitter: 0 },
        handle() {
          runs++;
          throw new Error('always broken');
        },
      });
      const chokaq = await engine({ jobs: [job] });
      const { id } = await chokaq.enqueue(job, {});
      const dead = await waitForJob(chokaq, id, 'dead');
      expect(runs).toBe(3);
      expect(dead).toMatchObject({ reason: 'Transient', attempts: 3 });
      expect(dead.errorDetails).toContain('always broken');
    });

    it('sends a fatal error to the DLQ at once, without retry', async () => {
      const job = defineJob({
        type: 'poison.v1',
        handle() {
          throw new FatalError('bad address');
        },
      });
      const chokaq = await engine({ jobs: [job] });
      const { id } = await chokaq.enqueue(job, {});
      const dead = await waitForJob(chokaq, id, 'dead');
      expect(dead).toMatchObject({ reason: 'Fatal', attempts: 1 });
      expect(dead.errorDetails).toMatch(/^FATAL: FatalError: bad address/);
    });

    it('retries a throttled job after its retry-after, and records Throttled when it runs out', async () => {
      const job = defineJob({
        type: 'throttled.v1',
        retry: { maxAttempts: 2, baseDelay: 5000, jitter: 0 },
        handle() {
          throw new ThrottledError('429', { retryAfter: 30 });
        },
      });
      const chokaq = await engine({ jobs: [job] });
      const delays: number[] = [];
      chokaq.on('job:retrying', (e) => delays.push(e.delayMs));
      const { id } = await chokaq.enqueue(job, {});
      const dead = await waitForJob(chokaq, id, 'dead');
      expect(delays).toEqual([30]);
      expect(dead).toMatchObject({ reason: 'Throttled', attempts: 2 });
    });

    it('stops retrying when the retry would pass maxAge', async () => {
      const job = defineJob({
        type: 'aging.v1',
        retry: { maxAttempts: 10, baseDelay: 5000, jitter: 0, maxAge: 1000 },
        handle() {
          throw new Error('not yet');
        },
      });
      const chokaq = await engine({ jobs: [job] });
      const { id } = await chokaq.enqueue(job, {});
      const dead = await waitForJob(chokaq, id, 'dead');
      expect(dead).toMatchObject({ reason: 'RetryLifetimeExpired', attempts: 1 });
      expect(dead.errorDetails).toContain('not yet');
    });

    it('validates payloads with the job schema at enqueue and hands the parsed value to the handler', async () => {
      const received: unknown[] = [];
      const job = defineJob({
        type: 'typed.v1',
        payload: z.object({ count: z.coerce.number().int() }),
        handle(payload) {
          received.push(payload.count);
        },
      });
      const chokaq = await engine({ jobs: [job] });
      await expect(chokaq.enqueue(job, { count: 'abc' })).rejects.toMatchObject({
        code: 'CHOKAQ_PAYLOAD_INVALID',
      });
      const { id } = await chokaq.enqueue(job, { count: 7 });
      await waitForJob(chokaq, id, 'succeeded');
      expect(received).toEqual([7]);
      // The rejected enqueue wrote nothing: the only job ever stored is the valid one.
      expect(await chokaq.listJobs()).toEqual([]);
      expect((await chokaq.queues.stats()).find((s) => s.queue === 'default')?.archived).toBe(1);
    });

    it('runs pipe mode with the exact stored type and payload, retrying like bus mode', async () => {
      const calls: [string, string, number][] = [];
      const chokaq = await engine({
        retry: { baseDelay: 10, jitter: 0 },
        pipe: (type, payload, ctx) => {
          calls.push([type, payload, ctx.attempt]);
          if (ctx.attempt === 1) throw new Error('transient');
        },
      });
      const { id } = await chokaq.enqueue('Report.Build.v2', { b: 1, a: 'ü' });
      await waitForJob(chokaq, id, 'succeeded');
      expect(calls).toEqual([
        ['Report.Build.v2', '{"b":1,"a":"ü"}', 1],
        ['Report.Build.v2', '{"b":1,"a":"ü"}', 2],
      ]);
    });

    it('wraps runs in middleware, outermost first; a middleware may short-circuit', async () => {
      const log: string[] = [];
      const job = defineJob<{ skip: boolean }>({
        type: 'mw.v1',
        handle() {
          log.push('handler');
        },
      });
      const chokaq = await engine({
        jobs: [job],
        concurrency: 1,
        middleware: [
          async (_ctx, _p, next) => {
            log.push('m1-in');
            await next();
            log.push('m1-out');
          },
          async (_ctx, payload, next) => {
            log.push('m2-in');
            if (!(payload as { skip: boolean }).skip) await next();
            log.push('m2-out');
          },
        ],
      });
      const a = await chokaq.enqueue(job, { skip: false });
      await waitForJob(chokaq, a.id, 'succeeded');
      expect(log).toEqual(['m1-in', 'm2-in', 'handler', 'm2-out', 'm1-out']);
      log.length = 0;
      const b = await chokaq.enqueue(job, { skip: true });
      await waitForJob(chokaq, b.id, 'succeeded');
      expect(log).toEqual(['m1-in', 'm2-in', 'm2-out', 'm1-out']);
    });

    it('deduplicates by idempotency key while the first job is active', async () => {
      const job = defineJob({ type: 'dedupe.v1', handle: () => undefined });
      const chokaq = await engine({ jobs: [job] }, false);
      const first = await chokaq.enqueue(job, {}, { idempotencyKey: ' welcome-42 ' });
      const second = await chokaq.enqueue(job, {}, { idempotencyKey: 'welcome-42' });
      expect(second).toEqual({ id: first.id, created: false });
      expect(await chokaq.listJobs()).toHaveLength(1);
    });

    it('groups concurrent single enqueues, yet fails only the caller whose row is bad', async () => {
      const job = defineJob({ type: 'group.v1', handle: () => undefined });
      const chokaq = await engine({ jobs: [job] }, false);
      await chokaq.enqueue(job, {}, { id: 'taken' });
      const settled = await Promise.allSettled(
        ['a', 'b', 'taken', 'c'].map((id) => chokaq.enqueue(job, {}, { id })),
      );
      expect(settled.map((r) => r.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'rejected',
        'fulfilled',
      ]);
      expect(settled[2]).toMatchObject({ reason: { code: 'CHOKAQ_DUPLICATE_JOB_ID' } });
      const ids = (await chokaq.listJobs()).map((j) => j.id).sort();
      expect(ids).toEqual(['a', 'b', 'c', 'taken']);
    });

    it('holds delayed jobs until due and runs higher priority first', async () => {
      const clock = new JumpingClock();
      const order: string[] = [];
      const ranAt = new Map<string, number>();
      const job = defineJob<{ name: string }>({
        type: 'order.v1',
        queue: 'ordered',
        handle(payload) {
          order.push(payload.name);
          ranAt.set(payload.name, clock.now());
        },
      });
      const { chokaq, nextClaim } = await watchedEngine({
        jobs: [job],
        concurrency: 1,
        prefetch: 0,
        clock,
      });
      await chokaq.queues.pause('ordered');
      await chokaq.enqueue(job, { name: 'low' }, { priority: 1 });
      await chokaq.enqueue(job, { name: 'high' }, { priority: 50 });
      // Due in a minute of the clock the store and the engine share: only a jump gets there.
      const dueAt = clock.now() + 60_000;
      await chokaq.enqueue(job, { name: 'later' }, { priority: 99, delay: '1m' });
      const firstClaim = nextClaim();
      await chokaq.start();
      expect(await firstClaim).toEqual([]); // the paused queue is not claimed
      expect(order).toEqual([]);
      await chokaq.queues.resume('ordered');
      await waitFor(() => order.length >= 2, { timeoutMs: 10_000, message: 'two runs' });
      // One job a claim, highest priority first: a claimable delayed job would have come first.
      expect(order).toEqual(['high', 'low']);
      clock.jump(60_000);
      await waitFor(() => order.length === 3, { timeoutMs: 10_000, message: 'the delayed run' });
      expect(order).toEqual(['high', 'low', 'later']);
      expect(ranAt.get('later')).toBeGreaterThanOrEqual(dueAt);
    });

    it('times out a handler through its signal and moves the job to the DLQ as Timeout', async () => {
      const job = defineJob({
        type: 'hang.v1',
        timeout: 50,
        handle: (_p, ctx) =>
          new Promise<void>((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
          }),
      });
      const chokaq = await engine({ jobs: [job] });
      const { id } = await chokaq.enqueue(job, {});
      const dead = await waitForJob(chokaq, id, 'dead');
      expect(dead.reason).toBe('Timeout');
    });

    it('never runs more than the concurrency limit, and resizes at run time', async () => {
      let active = 0;
      let peak = 0;
      const job = defineJob({
        type: 'busy.v1',
        async handle() {
          active++;
          peak = Math.max(peak, active);
          await sleep(20); // long enough for runs to overlap
          active--;
        },
      });
      const chokaq = await engine({ jobs: [job], concurrency: 2 });
      await chokaq.enqueueMany(
        job,
        Array.from({ length: 20 }, () => ({ payload: {} })),
      );
      await waitFor(
        async () =>
          (await chokaq.queues.stats()).find((s) => s.queue === 'default')?.archived === 20,
      );
      expect(peak).toBe(2);
      peak = 0;
      chokaq.setConcurrency(5);
      await chokaq.enqueueMany(
        job,
        Array.from({ length: 30 }, () => ({ payload: {} })),
      );
      await waitFor(
        async () =>
          (await chokaq.queues.stats()).find((s) => s.queue === 'default')?.archived === 50,
      );
      expect(peak).toBeGreaterThan(2);
      expect(peak).toBeLessThanOrEqual(5);
    });

    it('claims no more jobs than it has free slots by default (no prefetch)', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const job = defineJob({ type: 'held.v1', handle: () => gate });
      const chokaq = await engine({ jobs: [job], concurrency: 2, pollInterval: 20 });
      const storage = chokaq.storage;
      await chokaq.enqueueMany(
        job,
        Array.from({ length: 5 }, () => ({ payload: {} })),
      );
      await waitFor(
        async () =>
          (await storage.operator.listHot({ state: 'processing', limit: 10 })).length === 2,
      );
      // Nothing signals a claim that does not happen: let ~5 poll intervals pass, then look.
      await sleep(100);
      const states = (await storage.operator.listHot({ limit: 10 })).map((j) => j.state).sort();
      expect(states).toEqual(['pending', 'pending', 'pending', 'processing', 'processing']);
      release();
      await chokaq.stop();
    });

    it('returns prefetched jobs to pending on stop and lets running ones finish', async () => {
      let finished = 0;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const job = defineJob({
        type: 'slow.v1',
        async handle() {
          await gate;
          finished++;
        },
      });
      const chokaq = await engine({ jobs: [job], concurrency: 1, prefetch: 5 });
      const storage = chokaq.storage;
      await chokaq.enqueueMany(
        job,
        Array.from({ length: 6 }, () => ({ payload: {} })),
      );
      // One job running and five claimed ahead: stop() must let the first finish and release the rest.
      await waitFor(async () => {
        const [running, fetched] = await Promise.all([
          storage.operator.listHot({ state: 'processing', limit: 10 }),
          storage.operator.listHot({ state: 'fetched', limit: 10 }),
        ]);
        return running.length === 1 && fetched.length === 5;
      });
      const stopped = chokaq.stop();
      // stop() hands the prefetched jobs back while the running one still runs, then waits for it.
      await waitFor(
        async () => (await storage.operator.listHot({ state: 'pending', limit: 10 })).length === 5,
      );
      expect(finished).toBe(0);
      release();
      await stopped;
      expect(finished).toBe(1);
      const view = await factory.reopen(storage);
      const left = await view.operator.listHot({ limit: 10 });
      expect(left.map((j) => j.state)).toEqual([
        'pending',
        'pending',
        'pending',
        'pending',
        'pending',
      ]);
      expect(left.every((j) => j.attempts === 0 && j.workerId === null)).toBe(true);
      await view.close();
    });

    it('wakes an idle worker on enqueue without waiting for the poll interval', async (ctx) => {
      if (factory.notifications === false) ctx.skip('no notifications through this store');
      const job = defineJob({ type: 'wake.v1', handle: () => undefined });
      const { chokaq, nextClaim } = await watchedEngine({ jobs: [job], pollInterval: '1m' });
      const firstClaim = nextClaim();
      await chokaq.start();
      // The first claim found nothing; the worker now sleeps for a minute unless woken.
      expect(await firstClaim).toEqual([]);
      const started = Date.now();
      const { id } = await chokaq.enqueue(job, {});
      await waitForJob(chokaq, id, 'succeeded', { timeoutMs: 5000 });
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('claims while it subscribes to wake-ups, and leaves no job enqueued before that for the poll', async (ctx) => {
      if (factory.notifications === false) ctx.skip('no notifications through this store');
      const job = defineJob({ type: 'early.v1', handle: () => undefined });
      const held = holdListen(await storeFor({}));
      const watch = watchClaims(held.store);
      const chokaq = await engineOn(watch.store, { jobs: [job], pollInterval: '1m' }, false);
      const firstClaim = watch.nextClaim();
      const starting = chokaq.start();
      // The first claim ran before the subscription was made.
      expect(await firstClaim).toEqual([]);
      const started = Date.now();
      // Its wake-up reaches no subscriber; the worker claims again once it has subscribed.
      const { id } = await chokaq.enqueue(job, {});
      held.release();
      await starting;
      await waitForJob(chokaq, id, 'succeeded', { timeoutMs: 5000 });
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('abandons a handler that ignores its timeout and finalises the job as Timeout', async () => {
      let finishedLate = false;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const job = defineJob({
        type: 'stubborn.v1',
        timeout: 50,
        async handle() {
          await gate; // ignores ctx.signal: runs until the test lets it end
          finishedLate = true;
        },
      });
      const chokaq = await engine({ jobs: [job], abortGracePeriod: 50, concurrency: 1 });
      const { id } = await chokaq.enqueue(job, {});
      const dead = await waitForJob(chokaq, id, 'dead');
      expect(dead.reason).toBe('Timeout'); // finalised while the handler still runs
      release();
      await waitFor(() => finishedLate, { timeoutMs: 2000 });
      // The late result changed nothing: the job stays in the DLQ.
      expect((await chokaq.getJob(id))?.where).toBe('dlq');
    });

    it('applies a per-queue timeout, while a job type timeout wins over it', async () => {
      const waitForAbort = (_p: unknown, ctx: JobContext): Promise<void> =>
        new Promise<void>((resolve, reject) => {
          // Runs 300 ms: far past the queue's 50 ms timeout, well within the type's 5 s.
          const timer = setTimeout(resolve, 300);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new Error('aborted'));
          });
        });
      const queued = defineJob({ type: 'q.timeout.v1', queue: 'tight', handle: waitForAbort });
      const own = defineJob({
        type: 'own.timeout.v1',
        queue: 'tight',
        timeout: '5s',
        handle: waitForAbort,
      });
      const chokaq = await engine({ jobs: [queued, own], queues: { tight: { timeout: 50 } } });
      const a = await chokaq.enqueue(queued, {});
      const b = await chokaq.enqueue(own, {});
      const dead = await waitForJob(chokaq, a.id, 'dead');
      expect(dead.reason).toBe('Timeout');
      await waitForJob(chokaq, b.id, 'succeeded');
    });

    it('cancels pending jobs at once and running jobs through their signal', async () => {
      const job = defineJob({
        type: 'cancellable.v1',
        handle: (_p, ctx) =>
          new Promise<void>((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => reject(new Error('stopped by signal')));
          }),
      });
      const chokaq = await engine({ jobs: [job], concurrency: 1, prefetch: 0 });
      const running = await chokaq.enqueue(job, {});
      await waitFor(async () => (await chokaq.listJobs({ state: 'processing' })).length === 1);
      const waiting = await chokaq.enqueue(job, {}, { delay: '1h' });
      const result = await chokaq.cancel([running.id, waiting.id, 'no-such-job'], {
        actor: 'alice',
      });
      expect(result).toEqual({ cancelled: [waiting.id], requested: [running.id] });
      const waitingDead = await chokaq.getJob(waiting.id);
      expect(waitingDead?.where === 'dlq' && waitingDead.job).toMatchObject({
        reason: 'Cancelled',
      });
      expect(waitingDead?.where === 'dlq' && waitingDead.job.errorDetails).toContain('alice');
      const runningDead = await waitForJob(chokaq, running.id, 'dead');
      expect(runningDead).toMatchObject({ reason: 'Cancelled', attempts: 1 });
    });

    it('cancels a job running in another process within one heartbeat interval', async () => {
      const job = defineJob({
        type: 'remote.cancel.v1',
        handle: (_p, ctx) =>
          new Promise<void>((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
          }),
      });
      const worker = await engine({ jobs: [job], heartbeatInterval: 100 });
      const { id } = await worker.enqueue(job, {});
      await waitFor(async () => (await worker.listJobs({ state: 'processing' })).length === 1);
      const operator = engines.engineOn(await factory.reopen(worker.storage), { worker: false });
      const asked = Date.now();
      expect(await operator.cancel([id], { actor: 'ops' })).toEqual({
        cancelled: [],
        requested: [id],
      });
      const dead = await waitForJob(operator, id, 'dead');
      expect(dead.reason).toBe('Cancelled');
      expect(Date.now() - asked).toBeLessThan(2000);
      // The requester crossed over with the request.
      expect(dead).toMatchObject({
        errorDetails: 'Cancelled by ops while running',
        lastModifiedBy: 'ops',
      });
      const detail = await operator.jobs.get(id);
      expect(detail?.timeline.find((e) => e.kind === 'cancel-requested')).toMatchObject({
        actor: 'ops',
      });
    });

    it('cancels in the name of the first requester when the owner is asked again', async () => {
      const job = defineJob({
        type: 'first.cancel.v1',
        handle: (_p, ctx) =>
          new Promise<void>((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
          }),
      });
      // No heartbeat before the second request: the owner learns of the first one from it.
      const worker = await engine({ jobs: [job], heartbeatInterval: 60_000, zombieTimeout: '5m' });
      const { id } = await worker.enqueue(job, {});
      await waitFor(async () => (await worker.listJobs({ state: 'processing' })).length === 1);
      const operator = engines.engineOn(await factory.reopen(worker.storage), { worker: false });
      expect((await operator.cancel([id], { actor: 'alice' })).requested).toEqual([id]);
      expect((await worker.cancel([id], { actor: 'bob' })).requested).toEqual([id]);
      const dead = await waitForJob(worker, id, 'dead');
      expect(dead).toMatchObject({
        reason: 'Cancelled',
        errorDetails: 'Cancelled by alice while running',
        lastModifiedBy: 'alice',
      });
    });

    it('reschedules a job interrupted by shutdown without using an attempt', async () => {
      const job = defineJob({
        type: 'interrupted.v1',
        handle: (_p, ctx) =>
          new Promise<void>((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => reject(new Error('shutting down')));
          }),
      });
      const chokaq = await engine({ jobs: [job], shutdownGracePeriod: 50 });
      const storage = chokaq.storage;
      const { id } = await chokaq.enqueue(job, {});
      await waitFor(async () => (await chokaq.listJobs({ state: 'processing' })).length === 1);
      await chokaq.stop();
      const view = await factory.reopen(storage);
      const found = await view.operator.getJob(id);
      expect(found?.where).toBe('hot');
      expect(found?.job).toMatchObject({ state: 'pending', attempts: 0, lostAttempts: 1 });
      await view.close();
    });

    it("keeps a long job alive with heartbeats and rescues a dead worker's job as a zombie", async () => {
      const clock = new JumpingClock();
      const rescued = new Set<string>();
      // Runs until the orphan was rescued, 70 s of the clock after its start, well past the
      // zombie timeout (1 min): only its heartbeats keep it from being rescued with it.
      const long = defineJob({
        type: 'long.v1',
        handle: () => waitFor(() => rescued.size > 0, { message: 'the rescue of the orphan' }),
      });
      const orphan = defineJob({ type: 'orphan.v1', handle: () => undefined });
      const chokaq = await engine(
        {
          jobs: [long, orphan],
          clock,
          heartbeatInterval: 60,
          zombieTimeout: '1m',
          rescueInterval: 100,
          workerQueues: ['long'],
        },
        false,
      );
      chokaq.on('job:rescued', (e) => rescued.add(e.id));
      const storage = chokaq.storage;
      // Counts the heartbeats whose statement read the time at or after `since`.
      let since = Number.POSITIVE_INFINITY;
      let beats = 0;
      const heartbeat = storage.jobs.heartbeat.bind(storage.jobs);
      storage.jobs.heartbeat = async (leases) => {
        const at = clock.now();
        const results = await heartbeat(leases);
        if (at >= since) beats++;
        return results;
      };
      // A job claimed and started by a worker that then "died": nobody heartbeats it.
      await chokaq.enqueue(orphan, {}, { queue: 'gone' });
      const [claimed] = await storage.jobs.claim({
        workerId: 'dead-worker',
        limit: 1,
        queues: ['gone'],
      });
      await storage.jobs.start([
        { id: claimed!.id, workerId: 'dead-worker', leaseToken: claimed!.leaseToken! },
      ]);
      const alive = await chokaq.enqueue(long, {}, { queue: 'long' });
      await chokaq.start();
      await waitFor(async () => (await chokaq.jobs.count({ state: 'processing' })).count === 2, {
        message: 'both runs started',
      });
      // 40 s: neither is a zombie yet. The long job heartbeats after it; the orphan cannot.
      since = clock.now() + 40_000;
      clock.jump(40_000);
      await waitFor(() => beats > 0, { message: 'a heartbeat after the jump' });
      expect(rescued.size).toBe(0);
      // 30 s more: the orphan has been silent for 70 s, the long job for about 30.
      clock.jump(30_000);
      const zombie = await waitForJob(chokaq, claimed!.id, 'dead');
      expect(zombie).toMatchObject({ reason: 'Zombie', attempts: 1 });
      // The rescue's event (and its count) follows its commit: wait for it, then count exactly.
      await waitFor(() => chokaq.counters.lostRuns > 0, { message: 'the rescue counted' });
      expect(chokaq.counters.lostRuns).toBe(1);
      const archived = await waitForJob(chokaq, alive.id, 'succeeded');
      expect(archived.attempts).toBe(1);
    });

    it('runs a zombie again when its job type opts in, refunding the lost run', async () => {
      let runs = 0;
      const safe = defineJob({
        type: 'safe.v1',
        retryZombies: true,
        handle() {
          runs++;
        },
      });
      const clock = new JumpingClock();
      const chokaq = await engine(
        { jobs: [safe], clock, zombieTimeout: '1m', heartbeatInterval: 50, rescueInterval: 100 },
        false,
      );
      const storage = chokaq.storage;
      const { id } = await chokaq.enqueue(safe, {}, { queue: 'elsewhere' });
      const [claimed] = await storage.jobs.claim({
        workerId: 'dead-worker',
        limit: 1,
        queues: ['elsewhere'],
      });
      await storage.jobs.start([{ id, workerId: 'dead-worker', leaseToken: claimed!.leaseToken! }]);
      await chokaq.start();
      clock.jump(61_000); // past the zombie timeout
      const archived = await waitForJob(chokaq, id, 'succeeded');
      expect(runs).toBe(1);
      expect(archived).toMatchObject({ attempts: 1, lostAttempts: 1 });
    });

    it('aborts a run rescued while its heartbeats could not reach the store, settling nothing', async () => {
      const clock = new JumpingClock();
      const aborts: string[] = [];
      // Runs until its signal aborts, then returns a value that must not be archived.
      const cut = defineJob({
        type: 'cut.off.v1',
        handle: (_p, ctx) =>
          new Promise<string>((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              aborts.push((ctx.signal.reason as { why?: string }).why ?? 'unknown');
              resolve('late');
            });
          }),
      });
      const chokaq = await engine(
        { jobs: [cut], clock, heartbeatInterval: 60, zombieTimeout: '1m', rescueInterval: 100 },
        false,
      );
      const succeeded: string[] = [];
      chokaq.on('job:succeeded', (e) => succeeded.push(e.id));
      // The cut: heartbeats wait until it heals, as a statement sent into a partition does.
      let heal!: () => void;
      const healed = new Promise<void>((resolve) => (heal = resolve));
      let cutOff = false;
      const storage = chokaq.storage;
      const heartbeat = storage.jobs.heartbeat.bind(storage.jobs);
      storage.jobs.heartbeat = async (leases) => {
        if (cutOff) await healed;
        return heartbeat(leases);
      };
      const { id } = await chokaq.enqueue(cut, {});
      await chokaq.start();
      await waitFor(async () => (await chokaq.jobs.count({ state: 'processing' })).count === 1, {
        message: 'the run started',
      });
      cutOff = true;
      clock.jump(61_000); // past the zombie timeout: the rescue buries the silent run
      const zombie = await waitForJob(chokaq, id, 'dead');
      expect(zombie).toMatchObject({ reason: 'Zombie', attempts: 1 });
      expect(aborts).toEqual([]);
      heal();
      await waitFor(() => aborts.length > 0, { message: 'the run aborted' });
      expect(aborts).toEqual(['lost']);
      // Its late result settled nothing: still the zombie, never archived.
      await sleep(200);
      expect((await chokaq.jobs.get(id))?.state).toBe('dead');
      expect(await waitForJob(chokaq, id, 'dead')).toMatchObject({ reason: 'Zombie', attempts: 1 });
      expect(succeeded).toEqual([]);
    });

    it('opens a job type circuit after repeated failures and reschedules without using attempts', async () => {
      let runs = 0;
      const fragile = defineJob({
        type: 'fragile.v1',
        retry: { maxAttempts: 1 },
        circuit: { failureThreshold: 2, breakDuration: '1h' },
        handle() {
          runs++;
          throw new Error('dependency down');
        },
      });
      const chokaq = await engine({
        jobs: [fragile],
        concurrency: 1,
        prefetch: 0,
        circuitBreakerDelay: '1h',
      });
      const first = await chokaq.enqueueMany(fragile, [{ payload: {} }, { payload: {} }]);
      await waitFor(async () => (await chokaq.dlq.list()).length === 2);
      // A failure counts once its settle's reply reached the worker, just after the row shows.
      await waitFor(() => chokaq.circuitStats()[0]?.failureCount === 2, {
        message: 'the second failure counted',
      });
      expect(chokaq.circuitStats()).toMatchObject([
        { key: 'fragile.v1', state: 'open', failureCount: 2 },
      ]);
      const { id } = await chokaq.enqueue(fragile, {});
      const parked = await waitFor(async () => {
        const f = await chokaq.getJob(id);
        return f?.where === 'hot' && f.job.lastError?.includes('Circuit breaker open')
          ? f.job
          : undefined;
      });
      expect(parked).toMatchObject({ state: 'scheduled', attempts: 0 });
      expect(runs).toBe(2);
      expect(first).toHaveLength(2);
    });

    it('sends a job parked by an open circuit to the DLQ once its retry lifetime would pass', async () => {
      const fragile = defineJob({
        type: 'fragile.aging.v1',
        retry: { maxAttempts: 1, maxAge: 2000 },
        circuit: { failureThreshold: 1, breakDuration: '1h' },
        handle() {
          throw new Error('dependency down');
        },
      });
      const chokaq = await engine({ jobs: [fragile], concurrency: 1, circuitBreakerDelay: '5s' });
      const first = await chokaq.enqueue(fragile, {});
      await waitForJob(chokaq, first.id, 'dead');
      const { id } = await chokaq.enqueue(fragile, {});
      const dead = await waitForJob(chokaq, id, 'dead');
      expect(dead).toMatchObject({ reason: 'RetryLifetimeExpired', attempts: 0 });
      expect(dead.errorDetails).toContain('Circuit breaker open');
    });

    it('does not open the circuit for fatal payload errors', async () => {
      const picky = defineJob<{ ok: boolean }>({
        type: 'picky.v1',
        circuit: { failureThreshold: 2 },
        handle(payload) {
          if (!payload.ok) throw new FatalError('bad payload');
        },
      });
      const chokaq = await engine({ jobs: [picky], concurrency: 1 });
      await chokaq.enqueueMany(
        picky,
        [1, 2, 3].map(() => ({ payload: { ok: false } })),
      );
      await waitFor(async () => (await chokaq.dlq.list()).length === 3);
      const { id } = await chokaq.enqueue(picky, { ok: true });
      await waitForJob(chokaq, id, 'succeeded');
      expect(chokaq.circuitStats()[0]?.state).toBe('closed');
    });

    it('resurrects a DLQ job with attempts reset, and it runs again', async () => {
      let fail = true;
      const job = defineJob({
        type: 'revive.v1',
        handle() {
          if (fail) throw new FatalError('not now');
        },
      });
      const chokaq = await engine({ jobs: [job] });
      const { id } = await chokaq.enqueue(job, {});
      await waitForJob(chokaq, id, 'dead');
      fail = false;
      expect(await chokaq.dlq.resurrect([id], { actor: 'test' })).toEqual([id]);
      const archived = await waitForJob(chokaq, id, 'succeeded');
      expect(archived.attempts).toBe(1);
      const stats = (await chokaq.queues.stats()).find((s) => s.queue === 'default');
      expect(stats).toMatchObject({ failedTotal: 1, succeededTotal: 1, dead: 0 });
    });

    it('keeps the handler result, the progress and every failed run, and shows them in the job detail', async () => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const job = defineJob<{ n: number }>({
        type: 'report.v1',
        retry: { maxAttempts: 3, baseDelay: 10, jitter: 0 },
        async handle(payload, ctx) {
          if (ctx.attempt === 1) throw new Error(`first try ${payload.n} failed`);
          await ctx.progress(60);
          await gate;
          return { rows: payload.n * 2 };
        },
      });
      const chokaq = await engine({ jobs: [job], heartbeatInterval: 30 });
      const { id } = await chokaq.enqueue(job, { n: 21 });
      const running = await waitFor(async () => {
        const detail = await chokaq.jobs.get(id);
        // The start is recorded with the next settle round: the progress can arrive first.
        return detail?.found.where === 'hot' &&
          detail.found.job.progress === 60 &&
          detail.state === 'processing'
          ? detail
          : undefined;
      });
      expect(running.timeline.map((e) => (e.kind === 'run' ? e.outcome : e.kind))).toEqual([
        'enqueued',
        'retried',
        'running',
      ]);
      release();
      const done = await waitFor(async () => {
        const detail = await chokaq.jobs.get(id);
        return detail?.state === 'succeeded' ? detail : undefined;
      });
      if (done.found.where !== 'archive') throw new Error('not archived');
      expect(JSON.parse(done.found.job.result ?? 'null')).toEqual({ rows: 42 });
      const [failed, succeeded] = done.timeline.filter((e) => e.kind === 'run');
      expect(failed).toMatchObject({ attempt: 1, outcome: 'retried', workerId: chokaq.workerId });
      expect(failed?.kind === 'run' && failed.error).toContain('first try 21 failed');
      expect(succeeded).toMatchObject({ attempt: 2, outcome: 'succeeded' });
      expect(done.runsNotKept).toBe(0);
    });

    it('finds jobs with the operator query, groups DLQ errors and edits a pending job', async () => {
      const charge = defineJob<{ customer: string; cents: number }>({
        type: 'charge.v1',
        queue: 'billing',
        handle(payload) {
          throw new FatalError(`card of ${payload.customer} declined for ${payload.cents}`);
        },
      });
      const chokaq = await engine({ jobs: [charge] });
      const failing = await chokaq.enqueueMany(charge, [
        { payload: { customer: 'c-1', cents: 100 } },
        { payload: { customer: 'c-2', cents: 250 } },
      ]);
      await waitFor(async () => (await chokaq.jobs.count({ state: 'dead' })).count === 2);
      const [group] = await chokaq.dlq.groups();
      if (!group) throw new Error('no error group');
      expect(group).toMatchObject({
        count: 2,
        errorClass: 'FatalError',
        message: 'card of c-<n> declined for <n>',
        queues: ['billing'],
        types: ['charge.v1'],
      });
      const page = await chokaq.jobs.query({ errorGroup: group.fingerprint, limit: 1 });
      expect(page.jobs).toHaveLength(1);
      const rest = await chokaq.jobs.query({
        errorGroup: group.fingerprint,
        limit: 1,
        cursor: page.nextCursor ?? '',
      });
      expect([...page.jobs, ...rest.jobs].map((j) => j.id).sort()).toEqual(
        failing.map((r) => r.id).sort(),
      );
      const byPayload = await chokaq.jobs.query({ payload: { customer: 'c-2' } });
      expect(byPayload.jobs.map((j) => j.id)).toEqual([failing[1]?.id]);

      await chokaq.queues.pause('billing');
      const { id } = await chokaq.enqueue(charge, { customer: 'c-3', cents: 1 });
      const edits: string[] = [];
      chokaq.on('job:edited', (e) => edits.push(`${e.id}:${e.actor}`));
      expect(
        await chokaq.jobs.edit(id, {
          payload: { customer: 'c-4', cents: 2 },
          priority: 50,
          actor: 'ops',
        }),
      ).toBe(true);
      const edited = await chokaq.jobs.get(id);
      expect(edited?.found.job).toMatchObject({
        payload: '{"customer":"c-4","cents":2}',
        lastModifiedBy: 'ops',
      });
      expect(edited?.timeline.at(-1)).toMatchObject({
        kind: 'action',
        action: 'edit',
        actor: 'ops',
      });
      expect(edits).toEqual([`${id}:ops`]);
      expect(await chokaq.jobs.edit(failing[0]?.id ?? '', { priority: 1 })).toBe(false);
    });

    it('claims the next job of a capped queue as soon as a slot frees, not at the next poll', async (ctx) => {
      if (factory.notifications === false) ctx.skip('no notifications through this store');
      const done: number[] = [];
      const job = defineJob<{ n: number }>({
        type: 'narrow.v1',
        queue: 'narrow',
        async handle({ n }) {
          await sleep(5);
          done.push(n);
        },
      });
      // A poll an hour apart: only the wake-up of a freed slot can start the next job in time.
      const chokaq = await engine(
        { jobs: [job], queues: { narrow: { maxWorkers: 1 } }, pollInterval: '1h' },
        false,
      );
      await chokaq.enqueueMany(
        job,
        [1, 2, 3, 4].map((n) => ({ payload: { n } })),
      );
      await chokaq.start();
      await waitFor(() => done.length === 4, { timeoutMs: 10_000, message: 'all four jobs' });
      expect(done.sort()).toEqual([1, 2, 3, 4]);
    });

    it("wakes another worker when the settling one cannot run the freed slot's next job", async (ctx) => {
      if (factory.notifications === false) ctx.skip('no notifications through this store');
      // Two workers of one capped queue, each running one of its two types; the jobs alternate
      // types in claim order, so every freed slot's next job is the other worker's: the settling
      // worker hands it on by waking the others. A poll an hour apart: only those wake-ups can
      // start the next job in time.
      const done: string[] = [];
      const kind = (type: string) =>
        defineJob<{ n: number }>({
          type,
          queue: 'mixed',
          async handle({ n }) {
            await sleep(5);
            done.push(`${type}:${n}`);
          },
        });
      const [a, b] = [kind('mixed.a'), kind('mixed.b')];
      const options = { queues: { mixed: { maxWorkers: 1 } }, pollInterval: '1h' } as const;
      const store = await factory.make();
      const first = await engineOn(store, { jobs: [a], ...options }, false);
      const second = await engineOn(await factory.reopen(store), { jobs: [b], ...options }, false);
      await first.enqueue(a, { n: 1 }, { priority: 6 });
      await second.enqueue(b, { n: 2 }, { priority: 5 });
      await first.enqueue(a, { n: 3 }, { priority: 4 });
      await second.enqueue(b, { n: 4 }, { priority: 3 });
      await Promise.all([first.start(), second.start()]);
      await waitFor(() => done.length === 4, { timeoutMs: 10_000, message: 'all four jobs' });
      expect(done.sort()).toEqual(['mixed.a:1', 'mixed.a:3', 'mixed.b:2', 'mixed.b:4']);
    });
  });
}
