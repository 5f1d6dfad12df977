/**
 * The promoter on a fake clock and the memory store: a scheduled job becomes claimable at its due
 * time (the worker is woken then, not at its next poll), a job scheduled after the promoter's
 * last pass within one poll interval, and a backlog of due jobs in passes that follow each other
 * at once.
 */
import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { ChokaQEvents } from '../../src/runtime/events.js';
import { Promoter } from '../../src/runtime/promoter.js';
import { MemoryStore } from '../../src/storage/memory/memory-store.js';
import { drain, FakeClock, memory } from '../../src/testing/index.js';
import { newJob } from '../conformance/helpers.js';

describe('the promoter', () => {
  it('wakes an idle worker at a scheduled job’s due time, not at its next poll', async () => {
    const clock = new FakeClock();
    const runs: number[] = [];
    const job = defineJob<{ n: number }>({
      type: 'promote.job.v1',
      handle: ({ n }) => {
        runs.push(n);
      },
    });
    const chokaq = new ChokaQ({
      storage: memory({ clock }),
      clock,
      jobs: [job],
      logger: silentLogger,
      pollInterval: '1h',
    });
    await chokaq.enqueue(job, { n: 1 }, { delay: 300 });
    await chokaq.start(); // the promoter's first pass reads when the job is due
    await drain(chokaq);
    await clock.advanceAsync(299);
    await drain(chokaq);
    expect(runs).toEqual([]);
    await clock.advanceAsync(1);
    await drain(chokaq);
    expect(runs).toEqual([1]);
    await chokaq.stop();
  });

  it('promotes a job scheduled after its last pass within one jittered poll interval', async () => {
    const clock = new FakeClock();
    const runs: number[] = [];
    const job = defineJob<{ n: number }>({
      type: 'promote.late.v1',
      handle: ({ n }) => {
        runs.push(n);
      },
    });
    const chokaq = new ChokaQ({
      storage: memory({ clock }),
      clock,
      jobs: [job],
      logger: silentLogger,
      pollInterval: '1s',
    });
    await chokaq.start();
    await drain(chokaq);
    await chokaq.enqueue(job, { n: 2 }, { delay: 100 });
    await clock.advanceAsync(100 + 1200); // due, plus the longest wait between passes
    await drain(chokaq);
    expect(runs).toEqual([2]);
    await chokaq.stop();
  });

  it('moves a backlog in full passes that follow each other without a wait', async () => {
    const clock = new FakeClock();
    const store = new MemoryStore(clock);
    await store.jobs.enqueue(Array.from({ length: 25 }, () => newJob({ delayMs: 10 })));
    await store.jobs.enqueue([newJob({ delayMs: 60_000 })]);
    clock.advance(10);
    const passes: number[] = [];
    const promoter = new Promoter({
      store: {
        jobs: new Proxy(store.jobs, {
          get(target, property, receiver) {
            if (property !== 'promote') return Reflect.get(target, property, receiver) as unknown;
            return async (limit: number) => {
              const result = await target.promote(limit);
              passes.push(result.promoted.reduce((n, p) => n + p.count, 0));
              return result;
            };
          },
        }),
      },
      intervalMs: 1000,
      batchSize: 10,
      events: new ChokaQEvents(silentLogger),
      logger: silentLogger,
      clock,
    });
    promoter.start();
    await clock.advanceAsync(0);
    // Three passes at once (10, 10, 5); the fourth waits for the job due in a minute.
    expect(passes).toEqual([10, 10, 5]);
    expect((await store.operator.listHot({ state: 'scheduled', limit: 100 })).length).toBe(1);
    await clock.advanceAsync(60_000);
    expect(passes.at(-1)).toBe(1);
    await promoter.stop();
  });

  it('reports a failed pass and tries again at the next one', async () => {
    const clock = new FakeClock();
    const store = new MemoryStore(clock);
    const events = new ChokaQEvents(silentLogger);
    const errors: string[] = [];
    events.on('worker:error', ({ where }) => errors.push(where));
    let failing = true;
    const promoter = new Promoter({
      store: {
        jobs: new Proxy(store.jobs, {
          get(target, property, receiver) {
            if (property === 'promote' && failing) return () => Promise.reject(new Error('down'));
            return Reflect.get(target, property, receiver) as unknown;
          },
        }),
      },
      intervalMs: 1000,
      events,
      logger: silentLogger,
      clock,
    });
    await store.jobs.enqueue([newJob({ id: 'p-1', delayMs: 5 })]);
    promoter.start();
    await clock.advanceAsync(0);
    expect(errors).toEqual(['promote']);
    failing = false;
    await clock.advanceAsync(1200);
    const found = await store.operator.getJob('p-1');
    expect(found?.where === 'hot' && found.job.state).toBe('pending');
    await promoter.stop();
  });
});
