import { describe, expect, it } from 'vitest';
import type { JobContext } from '../../src/job/context.js';
import { composeMiddleware, type Middleware } from '../../src/runtime/middleware.js';

const ctx = { id: 'job-1', type: 'test.v1', queue: 'default', attempt: 1 } as unknown as JobContext;

function logging(log: string[], name: string): Middleware {
  return async (_ctx, _payload, next) => {
    log.push(`${name}-in`);
    await next();
    log.push(`${name}-out`);
  };
}

describe('composeMiddleware', () => {
  it('runs the onion outermost first: M1-in, M2-in, handler, M2-out, M1-out', async () => {
    const log: string[] = [];
    const handler = (): Promise<void> => {
      log.push('handler');
      return Promise.resolve();
    };
    await composeMiddleware([logging(log, 'M1'), logging(log, 'M2')], handler, ctx, {})();
    expect(log).toEqual(['M1-in', 'M2-in', 'handler', 'M2-out', 'M1-out']);
  });

  it('runs just the handler without middleware', async () => {
    let runs = 0;
    await composeMiddleware(
      [],
      () => {
        runs += 1;
        return Promise.resolve();
      },
      ctx,
      null,
    )();
    expect(runs).toBe(1);
  });

  it('hands every layer the context and the payload', async () => {
    const seen: unknown[] = [];
    const payload = { to: 'a@example.com' };
    const spy: Middleware = async (c, p, next) => {
      seen.push(c, p);
      await next();
    };
    await composeMiddleware([spy, spy], () => Promise.resolve(), ctx, payload)();
    expect(seen).toEqual([ctx, payload, ctx, payload]);
    expect(seen[0]).toBe(ctx);
    expect(seen[1]).toBe(payload);
  });

  it('skips the handler and the inner layers when a layer does not call next', async () => {
    const log: string[] = [];
    const gate: Middleware = () => {
      log.push('gate');
      return Promise.resolve();
    };
    await expect(
      composeMiddleware(
        [logging(log, 'M1'), gate, logging(log, 'M3')],
        () => {
          log.push('handler');
          return Promise.resolve();
        },
        ctx,
        {},
      )(),
    ).resolves.toBeUndefined();
    expect(log).toEqual(['M1-in', 'gate', 'M1-out']);
  });

  it('rejects when an outer layer calls next twice', async () => {
    const log: string[] = [];
    const twice: Middleware = async (_c, _p, next) => {
      await next();
      await next();
    };
    const run = composeMiddleware(
      [twice, logging(log, 'M2')],
      () => {
        log.push('handler');
        return Promise.resolve();
      },
      ctx,
      {},
    );
    await expect(run()).rejects.toThrow('middleware called next() twice');
    expect(log).toEqual(['M2-in', 'handler', 'M2-out']);
  });

  it('rejects when the innermost layer calls next twice, running the handler once', async () => {
    let handlerRuns = 0;
    const twice: Middleware = async (_c, _p, next) => {
      await next();
      await next();
    };
    const run = composeMiddleware(
      [twice],
      () => {
        handlerRuns += 1;
        return Promise.resolve();
      },
      ctx,
      {},
    );
    // Known source bug (reported): the handler itself is not guarded, so it runs twice.
    await expect(run()).rejects.toThrow('middleware called next() twice');
    expect(handlerRuns).toBe(1);
  });

  it('propagates a handler error through the layers', async () => {
    const log: string[] = [];
    const failure = new Error('handler failed');
    const observer: Middleware = async (_c, _p, next) => {
      try {
        await next();
      } catch (error) {
        log.push(`saw ${(error as Error).message}`);
        throw error;
      }
    };
    const run = composeMiddleware(
      [observer, logging(log, 'M2')],
      () => Promise.reject(failure),
      ctx,
      {},
    );
    await expect(run()).rejects.toBe(failure);
    expect(log).toEqual(['M2-in', 'saw handler failed']);
  });

  it('propagates a middleware error and skips the handler', async () => {
    let handlerRuns = 0;
    const failure = new Error('auth failed');
    const guard: Middleware = () => Promise.reject(failure);
    const run = composeMiddleware(
      [guard],
      () => {
        handlerRuns += 1;
        return Promise.resolve();
      },
      ctx,
      {},
    );
    await expect(run()).rejects.toBe(failure);
    expect(handlerRuns).toBe(0);
  });

  it('lets a layer swallow the handler error so the run succeeds', async () => {
    const swallow: Middleware = async (_c, _p, next) => {
      await next().catch(() => undefined);
    };
    await expect(
      composeMiddleware([swallow], () => Promise.reject(new Error('x')), ctx, {})(),
    ).resolves.toBeUndefined();
  });
});
