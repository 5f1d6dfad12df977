import { describe, expect, it } from 'vitest';
import { resolveHealth } from '../../src/config/health.js';
import { DEFAULT_LAG } from '../../src/observability/health/options.js';
import { FakeClock } from '../../src/index.js';
import { checkDb, checkSaturation, checkWorker } from '../../src/observability/health/checks.js';
import { EventLoopProbe } from '../../src/runtime/loop-probe.js';
import type { WorkerHealth } from '../../src/runtime/engine.js';
import type { QueueGauges } from '../../src/storage/model.js';

const T0 = Date.UTC(2026, 0, 1);

function gauge(queue: string, lagMs: number | null, extra: Partial<QueueGauges> = {}): QueueGauges {
  return {
    queue,
    paused: false,
    active: true,
    due: lagMs === null ? 0 : 1,
    scheduled: 0,
    awaiting: 0,
    fetched: 0,
    processing: 0,
    dead: 0,
    oldestDueAt: lagMs === null ? null : new Date(T0 - lagMs),
    succeededTotal: 0,
    failedTotal: 0,
    readAt: new Date(T0),
    ...extra,
  };
}

const running = (
  over: Partial<Extract<WorkerHealth, { state: 'running' }>> = {},
): WorkerHealth => ({
  state: 'running',
  loopFailure: undefined,
  claimSentAt: null,
  stopping: false,
  worstLoopDelayMs: 0,
  concurrency: 10,
  running: 2,
  ...over,
});

describe('chokaq_queue_saturation', () => {
  const settings = {
    lag: DEFAULT_LAG,
    queueLag: { slow: { degradedMs: 60_000, unhealthyMs: 600_000 } },
  };

  it('compares the worst lag strictly with the thresholds', () => {
    expect(checkSaturation([gauge('a', 30_000)], null, settings).status).toBe('ok');
    expect(checkSaturation([gauge('a', 30_001)], null, settings).status).toBe('degraded');
    expect(checkSaturation([gauge('a', 300_001)], null, settings).status).toBe('unhealthy');
    expect(checkSaturation([gauge('a', null)], null, settings)).toMatchObject({
      status: 'ok',
      data: { worstLagMs: 0 },
    });
  });

  it("uses a queue's own thresholds, and names the worst queue by status first", () => {
    const result = checkSaturation([gauge('slow', 50_000), gauge('a', 40_000)], null, settings);
    expect(result).toMatchObject({
      status: 'degraded',
      data: { worstQueue: 'a', worstLagMs: 40_000 },
    });
    expect(result.message).toContain('queue a');
  });

  it('skips paused, inactive and unserved queues', () => {
    const gauges = [
      gauge('paused', 900_000, { paused: true }),
      gauge('hidden', 900_000, { active: false }),
      gauge('other', 900_000),
      gauge('mine', 1000),
    ];
    expect(checkSaturation(gauges, new Set(['mine', 'paused', 'hidden']), settings).status).toBe(
      'ok',
    );
    expect(checkSaturation(gauges, null, settings).status).toBe('unhealthy');
    expect(checkSaturation(gauges, new Set(), settings)).toMatchObject({
      status: 'ok',
      message: 'no served queue',
    });
  });
});

describe('chokaq_worker', () => {
  it('reports the worker state, a dead or stuck claim loop and event-loop stalls', () => {
    const now = T0;
    expect(checkWorker({ state: 'off' }, now, 30_000).status).toBe('ok');
    expect(checkWorker({ state: 'not-started' }, now, 30_000).status).toBe('unhealthy');
    expect(checkWorker({ state: 'stopped' }, now, 30_000).status).toBe('unhealthy');
    expect(checkWorker(running(), now, 30_000).status).toBe('ok');
    expect(checkWorker(running({ stopping: true }), now, 30_000).status).toBe('unhealthy');
    const died = checkWorker(running({ loopFailure: new Error('boom') }), now, 30_000);
    expect(died).toMatchObject({ status: 'unhealthy', message: 'the claim loop ended: boom' });
    expect(checkWorker(running({ claimSentAt: now - 30_000 }), now, 30_000).status).toBe('ok');
    expect(checkWorker(running({ claimSentAt: now - 30_001 }), now, 30_000).status).toBe(
      'unhealthy',
    );
    expect(checkWorker(running({ worstLoopDelayMs: 15_001 }), now, 30_000).status).toBe('degraded');
    expect(checkWorker(running({ worstLoopDelayMs: 30_001 }), now, 30_000).status).toBe(
      'unhealthy',
    );
  });
});

describe('chokaq_db', () => {
  it('is unhealthy when the store fails or does not answer in time', async () => {
    const clock = new FakeClock(T0);
    expect((await checkDb(() => Promise.resolve(), clock, 2000)).status).toBe('ok');
    const failed = await checkDb(() => Promise.reject(new Error('refused')), clock, 2000);
    expect(failed).toMatchObject({ status: 'unhealthy', message: 'the store failed: refused' });
    const hanging = checkDb(() => new Promise(() => undefined), clock, 2000);
    await clock.advanceAsync(2000);
    expect(await hanging).toMatchObject({
      status: 'unhealthy',
      message: 'no answer within 2000 ms',
    });
  });
});

describe('event-loop probe', () => {
  /** A clock whose one timer fires only when the test says, as a blocked event loop would. */
  function manualClock() {
    let now = T0;
    let timer: (() => void) | undefined;
    return {
      clock: {
        now: () => now,
        schedule: (callback: () => void) => {
          timer = callback;
          return () => (timer = undefined);
        },
      },
      /** Moves time on; with `fire`, the tick runs at the new time. */
      move: (ms: number, fire: boolean) => {
        now += ms;
        if (fire) timer?.();
      },
    };
  }

  it('keeps a late tick for its window and counts a tick late right now', () => {
    const { clock, move } = manualClock();
    const probe = new EventLoopProbe(clock, 10_000);
    probe.start();
    move(100, true); // on time
    expect(probe.worstDelayMs()).toBe(0);
    move(3100, false); // blocked: the tick due at +100 has not run yet
    expect(probe.worstDelayMs()).toBe(3000);
    move(0, true); // it runs, 3 s late
    expect(probe.worstDelayMs()).toBe(3000);
    move(100, true);
    move(9000, true); // still in the 10 s window, and this tick was 8.9 s late
    expect(probe.worstDelayMs()).toBe(8900);
    probe.stop();
  });

  it('forgets a stall once its window has passed', () => {
    const { clock, move } = manualClock();
    const probe = new EventLoopProbe(clock, 10_000);
    probe.start();
    move(2100, true); // 2 s late
    expect(probe.worstDelayMs()).toBe(2000);
    for (let i = 0; i < 101; i++) move(100, true);
    expect(probe.worstDelayMs()).toBe(0);
    probe.stop();
  });
});

describe('health options', () => {
  it('take per-queue thresholds, falling back to the health ones', () => {
    const settings = resolveHealth(
      { lagDegraded: '10s', lagUnhealthy: '1m' },
      { a: { lagDegraded: '20s' }, b: {} },
    );
    expect(settings.lag).toEqual({ degradedMs: 10_000, unhealthyMs: 60_000 });
    expect(settings.queueLag).toEqual({ a: { degradedMs: 20_000, unhealthyMs: 60_000 } });
    expect(() => resolveHealth({ lagDegraded: '10m', lagUnhealthy: '1m' })).toThrow(
      expect.objectContaining({ code: 'CHOKAQ_INVALID_CONFIG', field: 'health.lagUnhealthy' }),
    );
  });
});
