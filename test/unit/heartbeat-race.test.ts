/**
 * A heartbeat on its way while a run settles: the run ended and its job moved to the archive,
 * so the heartbeat finds no lease. That is the run's own doing, not a lost lease: no warning,
 * no abort. Real memory store; only its heartbeat call is held back to open the race.
 */
import { describe, expect, it } from 'vitest';
import { memory } from '../../src/index.js';
import { ActiveRuns, type AbortCause } from '../../src/runtime/active-runs.js';
import type { ClaimedJob } from '../../src/storage/model.js';
import type { Lease } from '../../src/storage/job-store.js';
import type { Store } from '../../src/storage/store.js';
import { ChokaQEvents } from '../../src/runtime/events.js';
import { Heartbeater } from '../../src/runtime/heartbeater.js';
import type { Logger } from '../../src/observability/logging/logger.js';
import { FakeClock } from '../../src/util/clock.js';
import { claimAndStart, leaseOf, newJob } from '../conformance/helpers.js';

/** A logger that keeps its warnings. */
function recordingLogger(warnings: string[]): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => void warnings.push(message),
    error: (message) => void warnings.push(message),
    child: () => logger,
  };
  return logger;
}

/** A heartbeater over `store` for one run of `job` under `lease`, recording what it does. */
function watching(
  store: Store,
  job: ClaimedJob,
  lease: Lease,
): { runs: ActiveRuns; heartbeater: Heartbeater; aborts: AbortCause[]; warnings: string[] } {
  const aborts: AbortCause[] = [];
  const warnings: string[] = [];
  const runs = new ActiveRuns();
  runs.add({ job, lease, progress: () => undefined, abort: (why) => void aborts.push(why) });
  const logger = recordingLogger(warnings);
  const heartbeater = new Heartbeater({
    store,
    runs,
    intervalMs: 10_000,
    failureThreshold: 3,
    cancelOnFailure: false,
    events: new ChokaQEvents(logger),
    logger,
    clock: new FakeClock(),
  });
  return { runs, heartbeater, aborts, warnings };
}

describe('heartbeat racing a settle', () => {
  it('does not take a run that settled while its heartbeat was on the way for a lost lease', async () => {
    const store = memory();
    await store.jobs.enqueue([newJob({ id: 'race-1' })]);
    const [job] = await claimAndStart(store, { workerId: 'w', limit: 1, queues: null });
    if (!job) throw new Error('nothing claimed');
    const lease = leaseOf(job);

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const heartbeat = store.jobs.heartbeat.bind(store.jobs);
    store.jobs.heartbeat = async (leases) => {
      await held;
      return heartbeat(leases);
    };

    const { runs, heartbeater, aborts, warnings } = watching(store, job, lease);

    const beat = heartbeater.beat(); // takes the run, then waits for the store
    // Meanwhile the run ends as the executor ends it: out of the registry, archive written.
    runs.delete(job.id);
    expect(await store.jobs.settle([{ kind: 'archive', lease, durationMs: 1 }])).toEqual([true]);
    release();
    await beat;

    expect(aborts).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('still aborts a run that is running when its lease turns out to be gone', async () => {
    const store = memory();
    await store.jobs.enqueue([newJob({ id: 'lost-1' })]);
    const [job] = await claimAndStart(store, { workerId: 'w', limit: 1, queues: null });
    if (!job) throw new Error('nothing claimed');
    // The lease the run holds is not the stored one: someone else took the job over.
    const { heartbeater, aborts, warnings } = watching(store, job, {
      ...leaseOf(job),
      leaseToken: 'stale',
    });
    await heartbeater.beat();
    expect(aborts).toEqual(['lost']);
    expect(warnings).toEqual(['lease lost while running; aborting the run']);
  });
});
