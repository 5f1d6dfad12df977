/**
 * Start marks in the completer's settle rounds: a start whose run succeeded in the same round is
 * written with the archive (no start statement), one whose run goes on is written first in its
 * round, and a start whose lease was lost aborts its run as `lost` (watched before or after the
 * answer came) and says so in the log.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../src/index.js';
import { Completer } from '../../src/runtime/completer.js';
import { memory } from '../../src/testing/index.js';
import type { ActiveRun } from '../../src/runtime/active-runs.js';
import type { StartRecord } from '../../src/runtime/start-record.js';
import type { ClaimedJob } from '../../src/storage/model.js';
import type { Lease } from '../../src/storage/job-store.js';
import { FakeClock } from '../../src/util/clock.js';
import { leaseOf, newJob } from '../conformance/helpers.js';

/** A run watching `record` (see `StartRecord.watch`); `lost()`: whether it was aborted as lost. */
function watch(record: StartRecord, job: ClaimedJob): { lost: () => boolean } {
  let lost = false;
  const run: ActiveRun = {
    job,
    lease: record.item.lease,
    progress: () => undefined,
    abort: (why) => {
      if (why === 'lost') lost = true;
    },
  };
  record.watch(run);
  return { lost: () => lost };
}

/**
 * A memory store with two fetched jobs, a completer over it (logging to `logger`), and a count
 * of start calls.
 */
async function setup(logger: Logger = silentLogger): Promise<{
  completer: Completer;
  jobs: ClaimedJob[];
  leases: Lease[];
  starts: () => number;
}> {
  const store = memory();
  let starts = 0;
  const start = store.jobs.start.bind(store.jobs);
  store.jobs.start = (leases) => {
    starts += 1;
    return start(leases);
  };
  await store.jobs.enqueue([newJob({ id: 'a' }), newJob({ id: 'b' })]);
  const claimed = await store.jobs.claim({ workerId: 'w', limit: 2, queues: null });
  const completer = new Completer({ store, logger, clock: new FakeClock() });
  return { completer, jobs: claimed, leases: claimed.map(leaseOf), starts: () => starts };
}

describe('completer start marks', () => {
  it('writes a start with the archive of its run when both are in one round', async () => {
    const { completer, jobs, leases, starts } = await setup();
    const [a] = leases;
    if (!a || !jobs[0]) throw new Error('unreachable');
    const run = watch(completer.recordStart(a), jobs[0]);
    const archived = await completer.settle({ kind: 'archive', lease: a, durationMs: 3 });
    await completer.drain();
    expect({ lost: run.lost(), archived, starts: starts() }).toEqual({
      lost: false,
      archived: true,
      starts: 0,
    });
  });

  it('writes the start of a run that goes on, before the settlements of its round', async () => {
    const { completer, jobs, leases, starts } = await setup();
    const [a, b] = leases;
    if (!a || !b || !jobs[0] || !jobs[1]) throw new Error('unreachable');
    // b started earlier and now fails: its start and its retry are in one round, start first.
    const runA = watch(completer.recordStart(a), jobs[0]);
    const runB = watch(completer.recordStart(b), jobs[1]);
    const retried = await completer.settle({
      kind: 'retry',
      lease: b,
      from: 'processing',
      delayMs: 0,
      error: 'x',
    });
    await completer.drain();
    expect({ lostA: runA.lost(), lostB: runB.lost(), retried, starts: starts() }).toEqual({
      lostA: false,
      lostB: false,
      retried: true,
      starts: 1,
    });
    expect(await completer.settle({ kind: 'archive', lease: a, durationMs: 1 })).toBe(true);
  });

  it('aborts the run of a start whose lease was lost, watched before or after the answer', async () => {
    const warnings: unknown[] = [];
    const { completer, jobs, leases } = await setup({
      ...silentLogger,
      warn: (_message, meta) => void warnings.push({ event: meta?.event, id: meta?.id }),
    });
    const [a, b] = leases;
    if (!a || !b || !jobs[0] || !jobs[1]) throw new Error('unreachable');
    const before = watch(completer.recordStart({ ...a, leaseToken: 'another' }), jobs[0]);
    const late = completer.recordStart({ ...b, leaseToken: 'another' });
    await completer.drain();
    const after = watch(late, jobs[1]);
    expect({ before: before.lost(), after: after.lost() }).toEqual({ before: true, after: true });
    expect(warnings).toEqual([
      { event: 'JobStartLeaseLost', id: jobs[0].id },
      { event: 'JobStartLeaseLost', id: jobs[1].id },
    ]);
  });
});
