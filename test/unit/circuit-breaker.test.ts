import { describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import {
  CircuitBreakers,
  type CircuitEvent,
  type CircuitPermit,
  type CircuitState,
} from '../../src/runtime/circuit-breaker.js';
import type { CircuitPolicy } from '../../src/job/circuit-policy.js';
import { FakeClock } from '../../src/util/clock.js';

function setup(
  options: { defaultPolicy?: CircuitPolicy; policies?: Record<string, CircuitPolicy> } = {},
): { clock: FakeClock; breakers: CircuitBreakers; events: CircuitEvent[] } {
  const clock = new FakeClock();
  const events: CircuitEvent[] = [];
  const breakers = new CircuitBreakers({ clock, onEvent: (e) => events.push(e), ...options });
  return { clock, breakers, events };
}

/** Acquires a permit that must be granted. */
function take(breakers: CircuitBreakers, key: string): CircuitPermit {
  const permit = breakers.acquire(key);
  if (!permit) throw new Error(`expected a permit for ${key}`);
  return permit;
}

function fail(breakers: CircuitBreakers, key: string, times: number): void {
  for (let i = 0; i < times; i += 1) breakers.failure(take(breakers, key));
}

function stateOf(breakers: CircuitBreakers, key: string): CircuitState | undefined {
  return breakers.stats().find((s) => s.key === key.toLowerCase())?.state;
}

/** Opens circuit `key` with the default threshold of 5. */
function open(breakers: CircuitBreakers, key = 'email'): void {
  fail(breakers, key, 5);
  expect(stateOf(breakers, key)).toBe('open');
}

describe('CircuitBreakers — closed state', () => {
  it('stays closed after 4 failures, 1 success, 4 failures', () => {
    const { breakers } = setup();
    fail(breakers, 'email', 4);
    breakers.success(take(breakers, 'email'));
    fail(breakers, 'email', 4);
    expect(stateOf(breakers, 'email')).toBe('closed');
    expect(breakers.stats()[0]?.failureCount).toBe(4);
    expect(breakers.acquire('email')).not.toBeNull();
  });

  it('opens after 5 consecutive failures and then rejects', () => {
    const { breakers, events } = setup();
    fail(breakers, 'email', 4);
    expect(stateOf(breakers, 'email')).toBe('closed');
    fail(breakers, 'email', 1);
    expect(stateOf(breakers, 'email')).toBe('open');
    expect(events).toEqual([{ key: 'email', state: 'open', event: 'opened' }]);
    expect(breakers.acquire('email')).toBeNull();
  });

  it('restarts the count at 1 when a failure comes a full window after the previous one', () => {
    const { clock, breakers } = setup();
    fail(breakers, 'email', 4);
    clock.advance(59_999);
    fail(breakers, 'email', 1);
    expect(breakers.stats()[0]?.failureCount).toBe(5);
    expect(stateOf(breakers, 'email')).toBe('open');

    const second = setup();
    fail(second.breakers, 'email', 4);
    second.clock.advance(60_000);
    fail(second.breakers, 'email', 1);
    expect(second.breakers.stats()[0]?.failureCount).toBe(1);
    fail(second.breakers, 'email', 3);
    expect(stateOf(second.breakers, 'email')).toBe('closed');
    fail(second.breakers, 'email', 1);
    expect(stateOf(second.breakers, 'email')).toBe('open');
  });

  it('does not open on released permits (fatal payload errors are released, not failed)', () => {
    const { breakers } = setup();
    for (let i = 0; i < 10; i += 1) breakers.release(take(breakers, 'email'));
    expect(stateOf(breakers, 'email')).toBe('closed');
    expect(breakers.stats()[0]?.failureCount).toBe(0);
  });

  it('ignores outcomes of closed-state permits once the circuit has opened', () => {
    const { breakers } = setup({ defaultPolicy: { failureThreshold: 1 } });
    const late = take(breakers, 'email');
    fail(breakers, 'email', 1);
    expect(stateOf(breakers, 'email')).toBe('open');
    breakers.success(late);
    expect(stateOf(breakers, 'email')).toBe('open');
  });

  it('counts one outcome per permit, and none for a permit it did not hand out', () => {
    const { breakers } = setup({ defaultPolicy: { failureThreshold: 2 } });
    const once = take(breakers, 'email');
    breakers.failure(once);
    breakers.failure(once);
    breakers.failure({ key: 'email' });
    expect(stateOf(breakers, 'email')).toBe('closed');
    expect(breakers.stats()[0]?.failureCount).toBe(1);
  });
});

describe('CircuitBreakers — open and half-open', () => {
  it('rejects for the break duration, then grants one probe and rejects a second', () => {
    const { clock, breakers } = setup();
    open(breakers);
    clock.advance(29_999);
    expect(breakers.acquire('email')).toBeNull();
    clock.advance(1);
    expect(breakers.acquire('email')).not.toBeNull();
    expect(stateOf(breakers, 'email')).toBe('half-open');
    expect(breakers.acquire('email')).toBeNull();
  });

  it('closes on a probe success', () => {
    const { clock, breakers } = setup();
    open(breakers);
    clock.advance(30_000);
    breakers.success(take(breakers, 'email'));
    expect(stateOf(breakers, 'email')).toBe('closed');
    expect(breakers.stats()[0]?.failureCount).toBe(0);
    expect(breakers.acquire('email')).not.toBeNull();
    expect(breakers.acquire('email')).not.toBeNull();
  });

  it('needs halfOpenMaxCalls probe successes to close', () => {
    const { clock, breakers } = setup({ defaultPolicy: { halfOpenMaxCalls: 2 } });
    open(breakers);
    clock.advance(30_000);
    const a = take(breakers, 'email');
    const b = take(breakers, 'email');
    expect(breakers.acquire('email')).toBeNull();
    breakers.success(a);
    expect(stateOf(breakers, 'email')).toBe('half-open');
    breakers.success(b);
    expect(stateOf(breakers, 'email')).toBe('closed');
  });

  it('reopens at once on a probe failure, with a fresh break from that moment', () => {
    const { clock, breakers } = setup();
    open(breakers);
    clock.advance(40_000);
    const probe = take(breakers, 'email');
    clock.advance(5_000);
    breakers.failure(probe);
    expect(stateOf(breakers, 'email')).toBe('open');
    expect(breakers.stats()[0]?.resetAt?.getTime()).toBe(clock.now() + 30_000);
    clock.advance(29_999);
    expect(breakers.acquire('email')).toBeNull();
    clock.advance(1);
    expect(breakers.acquire('email')).not.toBeNull();
  });

  it('expires a leaked probe after probeTimeout; its late success is ignored', () => {
    const { clock, breakers, events } = setup();
    open(breakers);
    clock.advance(30_000);
    const leaked = take(breakers, 'email');
    clock.advance(29_999);
    expect(breakers.acquire('email')).toBeNull();
    clock.advance(1);
    events.length = 0;
    const fresh = take(breakers, 'email');
    expect(events.map((e) => e.event)).toEqual(['probe_expired', 'probe_acquired']);
    breakers.success(leaked);
    expect(stateOf(breakers, 'email')).toBe('half-open');
    expect(breakers.acquire('email')).toBeNull();
    breakers.success(fresh);
    expect(stateOf(breakers, 'email')).toBe('closed');
  });

  it('ignores a late failure from an expired probe', () => {
    const { clock, breakers } = setup();
    open(breakers);
    clock.advance(30_000);
    const leaked = take(breakers, 'email');
    clock.advance(30_000);
    take(breakers, 'email');
    breakers.failure(leaked);
    expect(stateOf(breakers, 'email')).toBe('half-open');
  });

  it('frees the probe slot on release without counting an outcome', () => {
    const { clock, breakers, events } = setup();
    open(breakers);
    clock.advance(30_000);
    const probe = take(breakers, 'email');
    expect(breakers.acquire('email')).toBeNull();
    events.length = 0;
    breakers.release(probe);
    expect(events).toEqual([{ key: 'email', state: 'half-open', event: 'permit_released' }]);
    expect(stateOf(breakers, 'email')).toBe('half-open');
    const next = take(breakers, 'email');
    breakers.release(probe); // second report of the same permit: ignored
    expect(breakers.acquire('email')).toBeNull();
    breakers.success(next);
    expect(stateOf(breakers, 'email')).toBe('closed');
  });
});

describe('CircuitBreakers — keys and policies', () => {
  it('applies a per-key policy to that key only', () => {
    const { breakers } = setup({ policies: { Sms: { failureThreshold: 2 } } });
    fail(breakers, 'sms', 2);
    fail(breakers, 'email', 2);
    expect(stateOf(breakers, 'sms')).toBe('open');
    expect(stateOf(breakers, 'email')).toBe('closed');
  });

  it('fills per-key policy gaps from the default policy', () => {
    const { clock, breakers } = setup({
      defaultPolicy: { breakDuration: '5s' },
      policies: { sms: { failureThreshold: 1 } },
    });
    fail(breakers, 'sms', 1);
    clock.advance(5_000);
    expect(breakers.acquire('sms')).not.toBeNull();
  });

  it('compares keys case-insensitively', () => {
    const { breakers } = setup();
    fail(breakers, 'Email', 2);
    fail(breakers, 'EMAIL', 2);
    fail(breakers, 'email', 1);
    expect(breakers.stats()).toHaveLength(1);
    expect(breakers.stats()[0]?.key).toBe('email');
    expect(breakers.acquire('eMaIl')).toBeNull();
  });

  it.each<[string, CircuitPolicy, string, string]>([
    ['failureThreshold 0', { failureThreshold: 0 }, 'failureThreshold', 'CHOKAQ_INVALID_CONFIG'],
    [
      'failureThreshold 1.5',
      { failureThreshold: 1.5 },
      'failureThreshold',
      'CHOKAQ_INVALID_CONFIG',
    ],
    ['halfOpenMaxCalls 0', { halfOpenMaxCalls: 0 }, 'halfOpenMaxCalls', 'CHOKAQ_INVALID_CONFIG'],
    [
      'halfOpenMaxCalls NaN',
      { halfOpenMaxCalls: Number.NaN },
      'halfOpenMaxCalls',
      'CHOKAQ_INVALID_CONFIG',
    ],
    ['breakDuration 0', { breakDuration: 0 }, 'breakDuration', 'CHOKAQ_INVALID_DURATION'],
    ['breakDuration -1', { breakDuration: -1 }, 'breakDuration', 'CHOKAQ_INVALID_DURATION'],
    ['probeTimeout 0s', { probeTimeout: '0s' }, 'probeTimeout', 'CHOKAQ_INVALID_DURATION'],
    [
      'failureWindow garbage',
      { failureWindow: 'soon' as unknown as '1s' },
      'failureWindow',
      'CHOKAQ_INVALID_DURATION',
    ],
    [
      'an unknown key',
      { failureTreshold: 3 } as unknown as CircuitPolicy,
      'failureTreshold',
      'CHOKAQ_UNKNOWN_OPTION',
    ],
  ])('rejects %s', (_label, policy, field, code) => {
    for (const options of [{ defaultPolicy: policy }, { policies: { email: policy } }]) {
      let caught: unknown;
      try {
        new CircuitBreakers({ clock: new FakeClock(), ...options });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ChokaQError);
      expect((caught as ChokaQError).code).toBe(code);
      expect((caught as ChokaQError).message).toContain(field);
    }
  });

  it('rejects two policy keys that differ only in case', () => {
    expect(
      () => new CircuitBreakers({ clock: new FakeClock(), policies: { sms: {}, SMS: {} } }),
    ).toThrow(expect.objectContaining({ code: 'CHOKAQ_INVALID_CONFIG' }) as Error);
  });
});

describe('CircuitBreakers — events and stats', () => {
  it('reports open → half-open → closed in order', () => {
    const { clock, breakers, events } = setup();
    open(breakers);
    expect(breakers.acquire('email')).toBeNull();
    clock.advance(30_000);
    const probe = take(breakers, 'email');
    breakers.success(probe);
    expect(events).toEqual([
      { key: 'email', state: 'open', event: 'opened' },
      { key: 'email', state: 'open', event: 'rejected' },
      { key: 'email', state: 'half-open', event: 'half_opened' },
      { key: 'email', state: 'half-open', event: 'probe_acquired' },
      { key: 'email', state: 'closed', event: 'closed' },
    ]);
  });

  it('keeps working when the listener throws', () => {
    const clock = new FakeClock();
    const breakers = new CircuitBreakers({
      clock,
      defaultPolicy: { failureThreshold: 1 },
      onEvent: () => {
        throw new Error('listener');
      },
    });
    breakers.failure(take(breakers, 'email'));
    clock.advance(30_000);
    breakers.success(take(breakers, 'email'));
    expect(stateOf(breakers, 'email')).toBe('closed');
  });

  it('lists every known key with resetAt only while open', () => {
    const { clock, breakers } = setup();
    expect(breakers.stats()).toEqual([]);
    take(breakers, 'sms');
    const openedAt = clock.now();
    open(breakers, 'email');
    expect(breakers.stats()).toEqual([
      { key: 'sms', state: 'closed', failureCount: 0, resetAt: null },
      { key: 'email', state: 'open', failureCount: 5, resetAt: new Date(openedAt + 30_000) },
    ]);
    clock.advance(30_000);
    take(breakers, 'email');
    expect(breakers.stats()[1]).toEqual({
      key: 'email',
      state: 'half-open',
      failureCount: 5,
      resetAt: null,
    });
  });
});
