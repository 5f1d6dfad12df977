import { localSteps } from '../../src/testing/local-steps.js';
import { describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../src/index.js';
import { ChokaQEvents } from '../../src/runtime/events.js';
import { RunAborted } from '../../src/runtime/active-runs.js';
import { RunContext } from '../../src/runtime/run-context.js';
import type { HotJob } from '../../src/storage/model.js';

const job: HotJob = {
  id: 'job-1',
  queue: 'mail',
  type: 'mail.send.v1',
  payload: '{}',
  tags: null,
  idempotencyKey: null,
  priority: 10,
  state: 'processing',
  attempts: 2,
  lostAttempts: 0,
  cancelRequestedAt: null,
  cancelRequestedBy: null,
  workerId: 'w1',
  leaseToken: 'lease',
  runAt: new Date(0),
  createdAt: new Date(1000),
  startedAt: new Date(2000),
  heartbeatAt: new Date(2000),
  updatedAt: new Date(2000),
  createdBy: null,
  lastModifiedBy: null,
  lastError: null,
  history: [],
  progress: null,
  traceParent: null,
  concurrencyKey: null,
  concurrencyLimit: null,
  hasDependents: false,
};

function context(logger: Logger = silentLogger): { ctx: RunContext; events: ChokaQEvents } {
  const events = new ChokaQEvents(silentLogger);
  const steps = localSteps({}, {}, {});
  return {
    ctx: new RunContext(job, events, logger, () => Promise.resolve([]), steps, null),
    events,
  };
}

describe('RunContext', () => {
  it('carries the job fields a handler sees, also in a spread copy', () => {
    const { ctx } = context();
    const copy = { ...ctx };
    expect(Object.keys(copy).sort()).toEqual(
      [
        'attempt',
        'batch',
        'createdAt',
        'dependencies',
        'id',
        'progress',
        'queue',
        'signal',
        'skip',
        'sleep',
        'step',
        'type',
        'waitForEvent',
      ].sort(),
    );
    expect(copy).toMatchObject({
      id: 'job-1',
      type: 'mail.send.v1',
      queue: 'mail',
      attempt: 2,
      createdAt: new Date(1000),
    });
    expect(copy.signal).toBe(ctx.signal);
  });

  it('fires a signal read before the abort', () => {
    const { ctx } = context();
    const { signal } = ctx;
    let fired: unknown;
    signal.addEventListener('abort', () => {
      fired = signal.reason as unknown;
    });
    expect(ctx.abort('cancel', 'Cancelled by ops')).toBe(true);
    expect(fired).toBeInstanceOf(RunAborted);
    expect((fired as RunAborted).why).toBe('cancel');
    expect(ctx.abortedBy).toBe(fired);
  });

  it('shows an abort on the signal even when it is read only afterwards', () => {
    const { ctx } = context();
    ctx.abort('timeout', 'Timeout: execution exceeded 10 ms');
    expect(ctx.signal.aborted).toBe(true);
    expect((ctx.signal.reason as RunAborted).why).toBe('timeout');
  });

  it('keeps the first abort cause', () => {
    const { ctx } = context();
    expect(ctx.abort('timeout', 'first')).toBe(true);
    expect(ctx.abort('shutdown', 'second')).toBe(false);
    expect(ctx.abortedBy?.why).toBe('timeout');
    expect((ctx.signal.reason as RunAborted).message).toBe('first');
  });

  it('works with destructured skip and progress', async () => {
    const { ctx, events } = context();
    const seen: number[] = [];
    events.on('job:progress', (e) => seen.push(e.percent));
    const { skip, progress } = ctx;
    await progress(150);
    await progress(Number.NaN);
    await progress(42);
    skip('duplicate');
    expect(seen).toEqual([100, 0, 42]);
    expect(ctx.skipNote).toBe('duplicate');
  });

  it('makes the scoped logger once, on first use', () => {
    const scopes: string[] = [];
    const logger: Logger = {
      ...silentLogger,
      child: (scope) => {
        scopes.push(scope);
        return silentLogger;
      },
    };
    const { ctx } = context(logger);
    expect(scopes).toEqual([]);
    ctx.log.info('one');
    ctx.log.info('two');
    expect(scopes).toEqual(['job:mail.send.v1']);
  });
});
