import type { ChokaQEvents } from './events.js';

/** Lifetime counts of noteworthy events in this process since it started. */
export interface EngineCounters {
  /** Guarded writes that changed nothing (lease lost, job moved by someone else). */
  conflicts: number;
  /** Heartbeat writes that failed (the storage call threw). */
  heartbeatFailures: number;
  /** Runs lost without a handler outcome: zombies found by recovery (dead or retried). */
  lostRuns: number;
  /** Jobs skipped on purpose (`ctx.skip`, for example idempotency duplicates). */
  skipped: number;
}

/** Keeps {@link EngineCounters} up to date from the engine's own events. */
export function countEvents(events: ChokaQEvents): Readonly<EngineCounters> {
  const counters: EngineCounters = { conflicts: 0, heartbeatFailures: 0, lostRuns: 0, skipped: 0 };
  events.on('job:conflict', () => (counters.conflicts += 1));
  events.on('job:skipped', () => (counters.skipped += 1));
  events.on('job:rescued', (e) => {
    if (e.outcome !== 'cancelled') counters.lostRuns += 1;
  });
  events.on('worker:error', (e) => {
    if (e.where === 'heartbeat') counters.heartbeatFailures += 1;
  });
  return counters;
}
