/**
 * The one lifecycle of every background loop, driven by a fake clock: passes run on the clock,
 * one at a time; stop is idempotent, safe before start, and waits for a pass in flight; a
 * failing pass is reported and the loop goes on.
 */
import { describe, expect, it } from 'vitest';
import { ChokaQEvents } from '../../src/runtime/events.js';
import { LoopService, ReportingLoop } from '../../src/runtime/service.js';
import type { Logger, LogMeta } from '../../src/observability/logging/logger.js';
import { silentLogger } from '../../src/observability/logging/logger.js';
import { FakeClock } from '../../src/util/clock.js';

function loop(clock: FakeClock, pass: () => Promise<void>, errors: unknown[] = []): LoopService {
  return new LoopService({
    intervalMs: 1000,
    firstDelayMs: 100,
    pass,
    onError: (error) => errors.push(error),
    clock,
  });
}

describe('LoopService', () => {
  it('runs the first pass after firstDelayMs and then about every interval', async () => {
    const clock = new FakeClock();
    let passes = 0;
    const service = loop(clock, () => Promise.resolve(void passes++));
    expect(service.started).toBe(false);
    service.start();
    service.start(); // idempotent: one schedule
    expect(service.started).toBe(true);
    await clock.advanceAsync(99);
    expect(passes).toBe(0);
    const first = service.nextPass();
    await clock.advanceAsync(1);
    await first;
    expect(passes).toBe(1);
    await clock.advanceAsync(1200); // at most one interval + 20 % later
    expect(passes).toBe(2);
    await service.stop();
    await clock.advanceAsync(10_000);
    expect(passes).toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });

  it('waits what nextDelayMs says after each pass', async () => {
    const clock = new FakeClock();
    const at: number[] = [];
    const delays = [50, 3000, 10];
    const service = new LoopService({
      intervalMs: 1000,
      firstDelayMs: 0,
      nextDelayMs: () => delays.shift() ?? 1_000_000,
      pass: () => Promise.resolve(void at.push(clock.now())),
      onError: () => undefined,
      clock,
    });
    const start = clock.now();
    service.start();
    await clock.advanceAsync(5000);
    expect(at.map((t) => t - start)).toEqual([0, 50, 3050, 3060]);
    await service.stop();
  });

  it('stops safely before start and waits for the pass in flight', async () => {
    const clock = new FakeClock();
    await loop(clock, () => Promise.resolve()).stop();
    let release!: () => void;
    let finished = false;
    const service = loop(clock, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      finished = true;
    });
    service.start();
    await clock.advanceAsync(100);
    const stopped = service.stop();
    release();
    await stopped;
    expect(finished).toBe(true);
    expect(service.started).toBe(false);
  });

  it('reports a failing pass and keeps going; runNow waits for the pass in flight', async () => {
    const clock = new FakeClock();
    const errors: unknown[] = [];
    let calls = 0;
    let running = 0;
    let overlapped = false;
    const service = loop(
      clock,
      async () => {
        running += 1;
        overlapped ||= running > 1;
        calls += 1;
        await Promise.resolve();
        running -= 1;
        if (calls === 1) throw new Error('first pass fails');
      },
      errors,
    );
    service.start();
    await clock.advanceAsync(100);
    await Promise.all([service.runNow(), service.runNow()]);
    expect(calls).toBe(3);
    expect(overlapped).toBe(false);
    expect(errors).toEqual([new Error('first pass fails')]);
    await service.stop();
  });

  it('a reporting loop logs and reports each failed pass once, and goes on', async () => {
    const clock = new FakeClock();
    const warnings: [string, LogMeta | undefined][] = [];
    const logger: Logger = {
      ...silentLogger,
      warn: (message, meta) => warnings.push([message, meta]),
    };
    const events = new ChokaQEvents(silentLogger);
    const reported: string[] = [];
    events.on('worker:error', ({ where, error }) => reported.push(`${where}: ${String(error)}`));
    /** Fails its first two passes, then passes. */
    class Counting extends ReportingLoop {
      passes = 0;
      constructor() {
        super({
          intervalMs: 1000,
          firstDelayMs: 100,
          failure: { message: 'count pass failed', event: 'ResolverPassFailed', where: 'count' },
          events,
          logger,
          clock,
        });
      }
      protected pass(): Promise<void> {
        this.passes += 1;
        return this.passes <= 2
          ? Promise.reject(new Error(`pass ${this.passes}`))
          : Promise.resolve();
      }
    }
    const counting = new Counting();
    counting.start();
    await clock.advanceAsync(100);
    expect(counting.passes).toBe(1);
    await clock.advanceAsync(2400); // two more passes at least: each wait is at most 1.2 s
    expect(counting.passes).toBeGreaterThanOrEqual(3);
    expect(reported).toEqual(['count: Error: pass 1', 'count: Error: pass 2']);
    expect(warnings).toEqual([
      ['count pass failed', { event: 'ResolverPassFailed', eventId: 4008, error: 'Error: pass 1' }],
      ['count pass failed', { event: 'ResolverPassFailed', eventId: 4008, error: 'Error: pass 2' }],
    ]);
    await counting.stop();
    expect(clock.pendingTimers).toBe(0);
  });
});
