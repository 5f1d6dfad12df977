import { beforeEach, describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import {
  MemoryIdempotencyClaims,
  PURGE_EVERY_OPERATIONS,
} from '../../src/storage/memory/idempotency-claims.js';
import { FakeClock } from '../../src/util/clock.js';

const START = Date.UTC(2026, 0, 1, 12, 0, 0);
const MINUTE = 60_000;

describe('MemoryIdempotencyClaims', () => {
  let clock: FakeClock;
  let claims: MemoryIdempotencyClaims;

  beforeEach(() => {
    clock = new FakeClock(START);
    claims = new MemoryIdempotencyClaims(clock);
  });

  it('claims an absent key', async () => {
    expect(await claims.begin('k', 'job-1', MINUTE)).toEqual({ status: 'claimed' });
  });

  it('reports a live in-progress claim to any job, the owner included', async () => {
    await claims.begin('k', 'job-1', MINUTE);
    expect(await claims.begin('k', 'job-2', MINUTE)).toEqual({
      status: 'in-progress',
      jobId: 'job-1',
    });
    expect(await claims.begin('k', 'job-1', MINUTE)).toEqual({
      status: 'in-progress',
      jobId: 'job-1',
    });
  });

  it('reports a completed key with its job and completion time', async () => {
    await claims.begin('k', 'job-1', MINUTE);
    clock.advance(1500);
    expect(await claims.complete('k', 'job-1', MINUTE)).toBe(true);
    clock.advance(10);
    expect(await claims.begin('k', 'job-2', MINUTE)).toEqual({
      status: 'completed',
      jobId: 'job-1',
      completedAt: new Date(START + 1500),
    });
  });

  it('lets a new claim take over an expired in-progress claim', async () => {
    await claims.begin('k', 'job-1', 50);
    clock.advance(49);
    expect((await claims.begin('k', 'job-2', MINUTE)).status).toBe('in-progress');
    clock.advance(1); // expiry is inclusive: at expiresAt the entry is gone
    expect(await claims.begin('k', 'job-2', MINUTE)).toEqual({ status: 'claimed' });
    // The former owner lost it: it can neither complete nor release.
    expect(await claims.complete('k', 'job-1', null)).toBe(false);
    expect(await claims.release('k', 'job-1')).toBe(false);
    expect(await claims.complete('k', 'job-2', null)).toBe(true);
  });

  it('lets a new claim take over an expired completion', async () => {
    await claims.begin('k', 'job-1', MINUTE);
    await claims.complete('k', 'job-1', 1000);
    clock.advance(999);
    expect((await claims.begin('k', 'job-2', MINUTE)).status).toBe('completed');
    clock.advance(1);
    expect(await claims.begin('k', 'job-2', MINUTE)).toEqual({ status: 'claimed' });
  });

  it('completes and releases only for the in-progress owner', async () => {
    await claims.begin('k', 'job-1', MINUTE);
    expect(await claims.complete('k', 'job-2', null)).toBe(false);
    expect(await claims.release('k', 'job-2')).toBe(false);
    expect(await claims.complete('missing', 'job-1', null)).toBe(false);
    expect(await claims.release('missing', 'job-1')).toBe(false);
    expect((await claims.begin('k', 'job-2', MINUTE)).status).toBe('in-progress');

    expect(await claims.complete('k', 'job-1', null)).toBe(true);
    // Completed: no second completion, and no release of a completed key.
    expect(await claims.complete('k', 'job-1', null)).toBe(false);
    expect(await claims.release('k', 'job-1')).toBe(false);
    expect((await claims.begin('k', 'job-2', MINUTE)).status).toBe('completed');
  });

  it('release deletes the claim so the key can be claimed again', async () => {
    await claims.begin('k', 'job-1', MINUTE);
    expect(await claims.release('k', 'job-1')).toBe(true);
    expect(await claims.release('k', 'job-1')).toBe(false);
    expect(await claims.begin('k', 'job-2', MINUTE)).toEqual({ status: 'claimed' });
  });

  it('keeps a completion with a null result TTL forever', async () => {
    await claims.begin('k', 'job-1', 10);
    await claims.complete('k', 'job-1', null);
    clock.advance(10 * 365 * 24 * 60 * MINUTE);
    expect(await claims.purgeExpired()).toBe(0);
    expect(await claims.begin('k', 'job-2', MINUTE)).toMatchObject({
      status: 'completed',
      jobId: 'job-1',
    });
  });

  it('purgeExpired deletes expired entries only and counts them', async () => {
    await claims.begin('short-progress', 'job-1', 100);
    await claims.begin('short-result', 'job-2', MINUTE);
    await claims.complete('short-result', 'job-2', 100);
    await claims.begin('long-progress', 'job-3', MINUTE);
    await claims.begin('forever', 'job-4', MINUTE);
    await claims.complete('forever', 'job-4', null);
    clock.advance(100);
    expect(await claims.purgeExpired()).toBe(2);
    expect(await claims.purgeExpired()).toBe(0);
    expect((await claims.begin('long-progress', 'x', MINUTE)).status).toBe('in-progress');
    expect((await claims.begin('forever', 'x', MINUTE)).status).toBe('completed');
    expect((await claims.begin('short-progress', 'x', MINUTE)).status).toBe('claimed');
  });

  it('purges expired entries opportunistically every 64 operations', async () => {
    expect(PURGE_EVERY_OPERATIONS).toBe(64);
    for (let i = 0; i < 10; i++) await claims.begin(`old-${i}`, `job-${i}`, 10);
    clock.advance(10);
    // 10 operations so far; 53 more leave the expired entries in place…
    for (let i = 0; i < 53; i++) await claims.release('none', 'nobody');
    expect(entryCount(claims)).toBe(10);
    // …and the 64th operation sweeps them.
    await claims.release('none', 'nobody');
    expect(entryCount(claims)).toBe(0);
  });

  it('refuses blank or over-long keys and negative TTLs with stable codes', async () => {
    await expect(claims.begin('', 'job-1', MINUTE)).rejects.toMatchObject({
      code: 'CHOKAQ_INVALID_IDEMPOTENCY_KEY',
    });
    await expect(claims.begin('x'.repeat(256), 'job-1', MINUTE)).rejects.toBeInstanceOf(
      ChokaQError,
    );
    expect(await claims.begin('x'.repeat(255), 'job-1', MINUTE)).toEqual({ status: 'claimed' });
    await expect(claims.begin('k', 'job-1', -1)).rejects.toMatchObject({
      code: 'CHOKAQ_INVALID_DURATION',
    });
    await expect(claims.complete('k', 'job-1', Number.NaN)).rejects.toMatchObject({
      code: 'CHOKAQ_INVALID_DURATION',
    });
  });

  it('keeps keys independent and case-sensitive', async () => {
    await claims.begin('Key', 'job-1', MINUTE);
    expect(await claims.begin('key', 'job-2', MINUTE)).toEqual({ status: 'claimed' });
  });
});

/** Number of stored entries, expired ones included (white-box: purges are otherwise invisible). */
function entryCount(claims: MemoryIdempotencyClaims): number {
  return (claims as unknown as { entries: Map<string, unknown> }).entries.size;
}
