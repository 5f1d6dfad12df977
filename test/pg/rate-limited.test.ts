/**
 * A handler's RateLimitedError on PostgreSQL, with two workers (two ChokaQ instances on one
 * schema): the job goes back without using an attempt, and its bucket is blocked for both
 * workers, so no job of the bucket starts before the wait ends. Stores and engines share one
 * clock: the wait (ten minutes) ends by a jump, once both workers were refused a start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, RateLimitedError, silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import type { Store } from '../../src/storage/store.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { JumpingClock } from '../helpers/jumping-clock.js';
import { waitFor } from '../helpers/wait.js';
import { waitForJob } from '../../src/testing/index.js';

const available = await postgresAvailable();
const WAIT_MS = 10 * 60_000;
const FOLLOWERS = 10;

/**
 * Notes in `refusals` the clock time (when asked) of every draw of `store`'s rate buckets that
 * refused a start.
 */
function noteRefusals(store: Store, clock: JumpingClock, refusals: number[]): Store {
  const rates = store.rateLimits;
  const take = rates.take.bind(rates);
  rates.take = async (draw) => {
    const at = clock.now();
    const grant = await take(draw);
    if (grant.granted < draw.count) refusals.push(at);
    return grant;
  };
  return store;
}

describe.skipIf(!available)('RateLimitedError across workers (PostgreSQL)', () => {
  const schema = uniqueSchema('ratelimited');
  const clock = new JumpingClock();
  const starts = new Map<number, number[]>();
  const refusals: [number[], number[]] = [[], []];
  /** Waits until both workers were refused a start asked for at `since` or later. */
  const bothRefused = (since: number) =>
    waitFor(() => refusals.every((times) => times.some((at) => at >= since)), {
      timeoutMs: 20_000,
      message: 'both workers refused a start',
    });
  let blockedAt = 0;
  const call = defineJob<{ n: number }>({
    type: 'rl.call.v1',
    queue: 'rl',
    rateLimit: { limit: 1000, per: '1s' },
    handle: (payload) => {
      const runs = starts.get(payload.n) ?? [];
      runs.push(clock.now());
      starts.set(payload.n, runs);
      if (payload.n === 0 && runs.length === 1) {
        blockedAt = clock.now();
        throw new RateLimitedError('429 from the API', { retryAfter: WAIT_MS });
      }
    },
  });
  const workers: ChokaQ[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const store = postgres({
        connectionString: TEST_DATABASE_URL,
        schema,
        logger: silentLogger,
        clock,
      });
      workers.push(
        new ChokaQ({
          storage: noteRefusals(store, clock, refusals[i]!),
          jobs: [call],
          concurrency: 4,
          pollInterval: 50,
          logger: silentLogger,
          clock,
        }),
      );
    }
    for (const worker of workers) await worker.start();
  }, 60_000);

  afterAll(async () => {
    for (const worker of workers) await worker.stop().catch(() => undefined);
    if (available) await dropSchema(schema);
  }, 60_000);

  it('blocks the bucket for every worker and refunds the attempt', async () => {
    const [first, second] = workers as [ChokaQ, ChokaQ];
    const rates = first.storage.rateLimits;
    const { id } = await first.enqueue(call, { n: 0 });
    await waitFor(async () => (await rates.list(1))[0]?.blockedUntil, {
      timeoutMs: 10_000,
      message: 'the bucket blocked by the first run',
    });
    await second.enqueueMany(
      call,
      Array.from({ length: FOLLOWERS }, (_, i) => ({ payload: { n: i + 1 } })),
    );
    await bothRefused(0);
    expect([...starts.keys()]).toEqual([0]);
    // A minute before the wait ends the bucket is still blocked: both are refused again.
    clock.jump(WAIT_MS - 60_000);
    await bothRefused(clock.now());
    expect([...starts.keys()]).toEqual([0]);
    clock.jump(60_000);
    await waitForJob(first.storage, id, 'succeeded', { timeoutMs: 20_000, intervalMs: 50 });
    await waitFor(() => starts.size === FOLLOWERS + 1, {
      timeoutMs: 20_000,
      intervalMs: 50,
      message: 'every job to start',
    });
    const followerStarts = [...starts].filter(([n]) => n > 0).flatMap(([, at]) => at);
    expect(Math.min(...followerStarts)).toBeGreaterThanOrEqual(blockedAt + WAIT_MS);
    expect(starts.get(0)?.[1]).toBeGreaterThanOrEqual(blockedAt + WAIT_MS);
    const found = await first.storage.operator.getJob(id);
    expect(
      found?.where === 'archive' ? [found.job.attempts, found.job.lostAttempts] : null,
    ).toEqual([1, 1]);
    const [bucket] = await rates.list(1);
    expect(bucket?.name).toBe('rl.call.v1');
    expect(bucket?.throttledTotal).toBeGreaterThan(0);
  }, 60_000);
});
