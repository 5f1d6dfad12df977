import { afterEach, describe, expect, it, vi } from 'vitest';
import { consoleLogger, fromPino, type PinoLike } from '../../src/observability/logger.js';

describe('loggers', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('consoleLogger prints LEVEL [scope] message {meta} at or above its level only', () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      lines.push(String(text));
      return true;
    });
    const log = consoleLogger('warn', 'chokaq').child('worker');
    log.info('hidden');
    log.warn('claim failed', { delayMs: 250 });
    log.error('plain');
    expect(lines).toEqual([
      'WARN [chokaq:worker] claim failed {"delayMs":250}\n',
      'ERROR [chokaq:worker] plain\n',
    ]);
  });

  it('fromPino passes meta first and message second, and scopes children with a binding', () => {
    const calls: unknown[][] = [];
    const make = (bindings: object): PinoLike => ({
      debug: (obj, msg) => calls.push(['debug', bindings, obj, msg]),
      info: (obj, msg) => calls.push(['info', bindings, obj, msg]),
      warn: (obj, msg) => calls.push(['warn', bindings, obj, msg]),
      error: (obj, msg) => calls.push(['error', bindings, obj, msg]),
      child: (more) => make({ ...bindings, ...more }),
    });
    const log = fromPino(make({}));
    log.info('started', { workerId: 'w1' });
    log.child('rescue').warn('zombie');
    expect(calls).toEqual([
      ['info', {}, { workerId: 'w1' }, 'started'],
      ['warn', { scope: 'rescue' }, {}, 'zombie'],
    ]);
  });
});
