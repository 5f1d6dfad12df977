/** `waitForJob`: wait, bounded in time, until a job reaches a state. */
import type { ChokaQ } from '../chokaq.js';
import type { JobState } from '../job/state.js';
import { stateOf } from '../operator/timeline.js';
import type { ArchivedJob, DeadJob, HotJob } from '../storage/model.js';
import type { Store } from '../storage/store.js';

/** The row of a job in `state`: archived when succeeded, dead-lettered when dead, hot otherwise. */
export type JobInState<S extends JobState> = S extends 'succeeded'
  ? ArchivedJob
  : S extends 'dead'
    ? DeadJob
    : HotJob;

/** Options of {@link waitForJob}. */
export interface WaitForJobOptions {
  /** Give up (reject) after this many ms. Default: `10_000`. */
  timeoutMs?: number;
  /** How often to look, in ms. Default: `10`. */
  intervalMs?: number;
}

/**
 * Resolves to the job's row once job `id` is in `state` (`'succeeded'`: archived, `'dead'`: in
 * the DLQ, else hot in that state), looking it up every `intervalMs` in a ChokaQ or a store.
 * @throws Error when the timeout passes first, naming the job, the state and the last state seen.
 */
export async function waitForJob<S extends JobState>(
  source: ChokaQ | Store,
  id: string,
  state: S,
  options: WaitForJobOptions = {},
): Promise<JobInState<S>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // By shape, not instanceof: the engine may come from another copy of the package.
    const found = await ('getJob' in source ? source : source.operator).getJob(id);
    // stateOf ties the state to the table, so the row is the one JobInState<S> names.
    if (found !== null && stateOf(found) === state) return found.job as JobInState<S>;
    if (Date.now() > deadline) {
      const seen = found === null ? 'not found' : stateOf(found);
      throw new Error(`waitForJob: job ${id} not ${state} after ${timeoutMs} ms (last: ${seen})`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
