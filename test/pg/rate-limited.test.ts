/**
 * A handler's RateLimitedError on PostgreSQL, with two workers (two ChokaQ instances on one
 * schema): the job goes back without using an attempt, and its bucket is blocked for both
 * workers, so no job of the bucket starts before the wait ends (checked with a margin for the
 * clocks of the process and the database).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, RateLimitedError, silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';
import { waitForJob } from '../../src/testing/index.js';

const available = await postgresAvailable();
const WAIT_MS = 1500;
/** Slack for timer and clock granularity between this process and the database. */
const MARGIN_MS = 100;
const FOLLOWERS = 10;

describe.skipIf(!available)('RateLimitedError across workers (PostgreSQL)', () => {
  const schema = uniqueSchema('ratelimited');
  const starts = new Map<number, number[]>();
  let blockedAt = 0;
  const call = defineJob<{ n: number }>({
    type: 'rl.call.v1',
    queue: 'rl',
    rateLimit: { limit: 1000, per: '1s' },
    handle: (payload) => {
      const runs = starts.get(payload.n) ?? [];
      runs.push(Date.now());
      starts.set(payload.n, runs);
      if (payload.n === 0 && runs.length === 1) {
        blockedAt = Date.now();
        throw new RateLimitedError('429 from the API', { retryAfter: WAIT_MS });
      }
    },
  });
  const workers: ChokaQ[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      workers.push(
        new ChokaQ({
          storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
          jobs: [call],
          concurrency: 4,
          pollInterval: 50,
          logger: silentLogger,
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
    const { id } = await first.enqueue(call, { n: 0 });
    await waitFor(() => blockedAt > 0, { timeoutMs: 10_000, intervalMs: 10, message: 'first run' });
    await second.enqueueMany(
      call,
      Array.from({ length: FOLLOWERS }, (_, i) => ({ payload: { n: i + 1 } })),
    );
    await waitForJob(first.storage, id, 'succeeded', { timeoutMs: 20_000, intervalMs: 50 });
    await waitFor(() => starts.size === FOLLOWERS + 1, {
      timeoutMs: 20_000,
      intervalMs: 50,
      message: 'every job to start',
    });
    const followerStarts = [...starts].filter(([n]) => n > 0).flatMap(([, at]) => at);
    expect(Math.min(...followerStarts)).toBeGreaterThanOrEqual(blockedAt + WAIT_MS - MARGIN_MS);
    expect(starts.get(0)?.[1]).toBeGreaterThanOrEqual(blockedAt + WAIT_MS - MARGIN_MS);
    const found = await first.storage.operator.getJob(id);
    expect(
      found?.where === 'archive' ? [found.job.attempts, found.job.lostAttempts] : null,
    ).toEqual([1, 1]);
    const [bucket] = await first.storage.rateLimits.list(1);
    expect(bucket?.name).toBe('rl.call.v1');
    expect(bucket?.throttledTotal).toBeGreaterThan(0);
  }, 60_000);
});
