/**
 * The conformance suite's transition watch (test/conformance/transition-check.ts) must catch a
 * store that moves a job in a way the state machine does not list, and stay quiet for one that
 * keeps to it.
 */
import { describe, expect, it } from 'vitest';
import { memory } from '../../src/index.js';
import type { Settlement } from '../../src/storage/job-store.js';
import { claimAndStart, leaseOf, newJob } from '../conformance/helpers.js';
import { checkTransitions } from '../conformance/transition-check.js';

describe('transition watch', () => {
  it('accepts a job run through listed transitions', async () => {
    const violations: string[] = [];
    const store = checkTransitions(memory(), violations);
    await store.jobs.enqueue([newJob({ id: 'ok-1' })]);
    const [job] = await claimAndStart(store, { workerId: 'w', limit: 1, queues: null });
    if (!job) throw new Error('nothing claimed');
    await store.jobs.settle([{ kind: 'dead', lease: leaseOf(job), reason: 'Fatal', error: 'x' }]);
    await store.operator.resurrect(['ok-1'], { actor: 'ops' });
    expect(violations).toEqual([]);
  });

  it('reports a worker call that archives a job it never claimed', async () => {
    const violations: string[] = [];
    const raw = memory();
    // A broken provider: settling an archive claims another pending job on the side and archives it.
    const settle = raw.jobs.settle.bind(raw.jobs);
    raw.jobs.settle = async (items: readonly Settlement[]) => {
      const others = await raw.jobs.claim({ workerId: 'w', limit: 1, queues: null });
      return settle([
        ...items,
        ...others.map((job): Settlement => ({
          kind: 'archive',
          lease: leaseOf(job),
          durationMs: 1,
        })),
      ]).then((applied) => applied.slice(0, items.length));
    };
    const store = checkTransitions(raw, violations);
    await store.jobs.enqueue([newJob({ id: 'bad-1' })]);
    const [job] = await store.jobs.claim({ workerId: 'w', limit: 1, queues: null });
    if (!job) throw new Error('nothing claimed');
    await store.jobs.enqueue([newJob({ id: 'bad-2' })]);
    await store.jobs.settle([{ kind: 'archive', lease: leaseOf(job), durationMs: 1 }]);
    expect(violations).toEqual(['settle: pending → succeeded (worker) for bad-2']);
  });

  it('judges a change by the actor of the call that made it', async () => {
    const violations: string[] = [];
    const raw = memory();
    // A broken provider: cancel (an operator call) archives instead of cancelling.
    raw.jobs.cancel = async (ids) => {
      const claimed = await claimAndStart(raw, {
        workerId: 'op',
        limit: ids.length,
        queues: null,
      });
      await raw.jobs.settle(
        claimed.map((job) => ({ kind: 'archive', lease: leaseOf(job), durationMs: 0 })),
      );
      return { cancelled: [...ids], requested: [] };
    };
    const store = checkTransitions(raw, violations);
    await store.jobs.enqueue([newJob({ id: 'op-1' })]);
    await store.jobs.cancel(['op-1'], 'ops');
    expect(violations).toEqual(['cancel: pending → succeeded (operator) for op-1']);
  });
});
