import { defineJob } from '../../job/define-job.js';
import { FatalError, ThrottledError } from '../../job/errors.js';
import type { Schedule } from '../../schedule/definition.js';

/** Payload of every sample job: its sequence number, and how long a slow job takes. */
export interface SamplePayload {
  n: number;
  /** The slow job's run time in ms. Default: 20–120 ms by `n`. */
  ms?: number;
}

/** Short retries so a demo settles in seconds. */
const QUICK_RETRY = {
  maxAttempts: 3,
  baseDelay: 50,
  multiplier: 2,
  maxDelay: '2s',
  jitter: 25,
} as const;

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Succeeds at once. */
export const fastJob = defineJob<SamplePayload>({
  type: 'demo.fast.v1',
  queue: 'demo',
  retry: QUICK_RETRY,
  handle: () => undefined,
});

/** Takes `payload.ms` (default 20–120 ms) and reports progress. */
export const slowJob = defineJob<SamplePayload>({
  type: 'demo.slow.v1',
  queue: 'demo-slow',
  retry: QUICK_RETRY,
  async handle(payload, ctx) {
    await sleep(payload.ms ?? 20 + (payload.n % 5) * 25, ctx.signal);
    await ctx.progress(100);
  },
});

/** Fails its first run about a third of the time, then usually succeeds on a retry. */
export const flakyJob = defineJob<SamplePayload>({
  type: 'demo.flaky.v1',
  queue: 'demo',
  retry: QUICK_RETRY,
  handle(payload, ctx) {
    if (ctx.attempt === 1 && payload.n % 3 === 0)
      throw new Error(`flaky failure of job ${payload.n}`);
    if (Math.random() < 0.2) throw new Error('random hiccup');
  },
});

/** Always fails fatally: straight to the dead-letter queue, never retried. */
export const poisonJob = defineJob<SamplePayload>({
  type: 'demo.poison.v1',
  queue: 'demo',
  retry: QUICK_RETRY,
  handle(payload) {
    throw new FatalError(`payload ${payload.n} can never be processed`);
  },
});

/**
 * Asks to slow down on its first run (retry after 100 ms), then succeeds; at most 500 starts a
 * second, so The Deck's Flow control panel has a rate bucket to show.
 */
export const throttledJob = defineJob<SamplePayload>({
  type: 'demo.throttled.v1',
  queue: 'demo',
  retry: QUICK_RETRY,
  rateLimit: { limit: 500, per: '1s' },
  handle(_payload, ctx) {
    if (ctx.attempt === 1) throw new ThrottledError('429 from upstream', { retryAfter: 100 });
  },
});

/** All sample job types, and how many of every ten demo jobs use each. */
export const SAMPLE_MIX = [
  { job: fastJob, share: 5 },
  { job: slowJob, share: 2 },
  { job: flakyJob, share: 1 },
  { job: throttledJob, share: 1 },
  { job: poisonJob, share: 1 },
] as const;

/** The sample job for sequence number `n`, following {@link SAMPLE_MIX}. */
export function sampleJobFor(n: number): (typeof SAMPLE_MIX)[number]['job'] {
  let slot = n % 10;
  for (const { job, share } of SAMPLE_MIX) {
    if (slot < share) return job;
    slot -= share;
  }
  return fastJob;
}

/**
 * Recurring jobs of the interactive demo, so The Deck's Schedules panel has something to show:
 * a digest every 30 seconds, and a nightly report (Berlin time) that the demo pauses.
 */
export const SAMPLE_SCHEDULES = [
  { name: 'demo-digest', job: fastJob, every: '30s', payload: { n: 0 } },
  {
    name: 'demo-nightly-report',
    job: slowJob,
    cron: '0 3 * * *',
    timeZone: 'Europe/Berlin',
    payload: { n: 1 },
  },
] as const satisfies readonly Schedule[];

/** The sample schedule the demo shows paused. */
export const PAUSED_SAMPLE_SCHEDULE = 'demo-nightly-report';
