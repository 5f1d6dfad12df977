/**
 * Start marks in the completer's settle rounds: a start whose run succeeded in the same round is
 * written with the archive (no start statement), one whose run goes on is written first in its
 * round, and a start whose lease was lost answers `false`.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/index.js';
import { Completer } from '../../src/runtime/completer.js';
import { memory } from '../../src/testing/index.js';
import type { Lease } from '../../src/storage/job-store.js';
import { FakeClock } from '../../src/util/clock.js';
import { leaseOf, newJob } from '../conformance/helpers.js';

/** A memory store with two fetched jobs, a completer over it, and a count of start calls. */
async function setup(): Promise<{ completer: Completer; leases: Lease[]; starts: () => number }> {
  const store = memory();
  let starts = 0;
  const start = store.jobs.start.bind(store.jobs);
  store.jobs.start = (leases) => {
    starts += 1;
    return start(leases);
  };
  await store.jobs.enqueue([newJob({ id: 'a' }), newJob({ id: 'b' })]);
  const claimed = await store.jobs.claim({ workerId: 'w', limit: 2, queues: null });
  const completer = new Completer({ store, logger: silentLogger, clock: new FakeClock() });
  return { completer, leases: claimed.map(leaseOf), starts: () => starts };
}

describe('completer start marks', () => {
  it('writes a start with the archive of its run when both are in one round', async () => {
    const { completer, leases, starts } = await setup();
    const [a] = leases;
    if (!a) throw new Error('unreachable');
    const [started, archived] = await Promise.all([
      completer.recordStart(a),
      completer.settle({ kind: 'archive', lease: a, durationMs: 3 }),
    ]);
    expect({ started, archived, starts: starts() }).toEqual({
      started: true,
      archived: true,
      starts: 0,
    });
  });

  it('writes the start of a run that goes on, before the settlements of its round', async () => {
    const { completer, leases, starts } = await setup();
    const [a, b] = leases;
    if (!a || !b) throw new Error('unreachable');
    // b started earlier and now fails: its start and its retry are in one round, start first.
    const [startA, startB, retried] = await Promise.all([
      completer.recordStart(a),
      completer.recordStart(b),
      completer.settle({ kind: 'retry', lease: b, from: 'processing', delayMs: 0, error: 'x' }),
    ]);
    expect({ startA, startB, retried, starts: starts() }).toEqual({
      startA: true,
      startB: true,
      retried: true,
      starts: 1,
    });
    expect(await completer.settle({ kind: 'archive', lease: a, durationMs: 1 })).toBe(true);
  });

  it('answers false for a start whose lease was lost', async () => {
    const { completer, leases } = await setup();
    const [a] = leases;
    if (!a) throw new Error('unreachable');
    expect(await completer.recordStart({ ...a, leaseToken: 'another' })).toBe(false);
  });
});
