import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { idempotency } from '../../src/idempotency/middleware.js';
import type { IdempotencyOutcome } from '../../src/runtime/idempotency-outcome.js';
import type { IdempotencyClaims } from '../../src/storage/idempotency.js';
import { postgres, type PostgresStore } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { FakeClock } from '../../src/util/clock.js';
import { waitFor } from '../helpers/wait.js';
import { waitForJob } from '../../src/testing/index.js';

const available = await postgresAvailable();
// One schema for the whole file: both describes use it, so it is dropped once both are done.
const schema = uniqueSchema('idem');

afterAll(async () => {
  if (available) await dropSchema(schema);
});

function open(clock?: FakeClock): PostgresStore {
  return postgres({
    connectionString: TEST_DATABASE_URL,
    schema,
    logger: silentLogger,
    ...(clock && { clock }),
  });
}

describe.skipIf(!available)('SqlIdempotencyClaims on PostgreSQL', () => {
  let store: PostgresStore;
  let claims: IdempotencyClaims;
  let pool: pg.Pool;
  /** The store's clock: expiry is judged by it, so the tests move it rather than wait. */
  const clock = new FakeClock(Date.now());

  beforeAll(async () => {
    store = open(clock);
    await store.open();
    claims = store.idempotencyClaims;
    pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  });

  afterAll(async () => {
    await store?.close();
    await pool?.end();
  });

  /** Moves the store's clock, which judges expiry, past the expiry of `key`'s claim. */
  async function untilExpired(key: string): Promise<void> {
    const { rows } = await pool.query<{ expires_at: Date | null }>(
      `select expires_at from "${schema}".idempotency_claims where key = $1`,
      [key],
    );
    const expiresAt = rows[0]?.expires_at;
    if (!expiresAt) throw new Error(`claim ${key} has no expiry`);
    // Strictly later: expires_at is read back cut to the millisecond.
    clock.advance(Math.max(0, expiresAt.getTime() + 1 - clock.now()));
  }

  it('hands one key to exactly one of 10 concurrent claimers', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => claims.begin('race', `job-${i}`, 60_000)),
    );
    const winners = results.flatMap((r, i) => (r.status === 'claimed' ? [`job-${i}`] : []));
    expect(winners).toHaveLength(1);
    for (const result of results) {
      if (result.status !== 'claimed')
        expect(result).toEqual({ status: 'in-progress', jobId: winners[0] });
    }
  });

  it('reports a completion with its job and time, and keeps a null TTL forever', async () => {
    expect(await claims.begin('done', 'job-a', 60_000)).toEqual({ status: 'claimed' });
    const before = await store.cluster.now();
    expect(await claims.complete('done', 'job-a', null)).toBe(true);
    const begun = await claims.begin('done', 'job-b', 60_000);
    expect(begun).toMatchObject({ status: 'completed', jobId: 'job-a' });
    const completedAt = begun.status === 'completed' ? begun.completedAt.getTime() : 0;
    expect(Math.abs(completedAt - before.getTime())).toBeLessThan(5000);
    const row = await pool.query(
      `select state, expires_at from "${schema}".idempotency_claims where key = 'done'`,
    );
    expect(row.rows).toEqual([{ state: 1, expires_at: null }]);
  });

  it('lets a new claim take over an expired one', async () => {
    // The store's clock stands still until untilExpired moves it: the second begin lands before
    // the first claim expires however loaded the machine is.
    expect(await claims.begin('short', 'job-1', 400)).toEqual({ status: 'claimed' });
    expect(await claims.begin('short', 'job-2', 60_000)).toEqual({
      status: 'in-progress',
      jobId: 'job-1',
    });
    await untilExpired('short');
    expect(await claims.begin('short', 'job-2', 60_000)).toEqual({ status: 'claimed' });
    // The former owner lost the key.
    expect(await claims.complete('short', 'job-1', null)).toBe(false);
    expect(await claims.release('short', 'job-1')).toBe(false);
    expect(await claims.complete('short', 'job-2', 400)).toBe(true);
    await untilExpired('short');
    expect(await claims.begin('short', 'job-3', 60_000)).toEqual({ status: 'claimed' });
  });

  it('completes and releases only for the in-progress owner; release frees the key', async () => {
    await claims.begin('owned', 'owner', 60_000);
    expect(await claims.complete('owned', 'other', null)).toBe(false);
    expect(await claims.release('owned', 'other')).toBe(false);
    expect(await claims.release('owned', 'owner')).toBe(true);
    expect(await claims.release('owned', 'owner')).toBe(false);
    expect(await claims.begin('owned', 'other', 60_000)).toEqual({ status: 'claimed' });
  });

  it('purges expired claims only', async () => {
    await claims.begin('purge-a', 'j', 10);
    await claims.begin('purge-b', 'j', 60_000);
    await untilExpired('purge-a');
    expect(await claims.purgeExpired()).toBeGreaterThanOrEqual(1);
    const keys = await pool.query<{ key: string }>(
      `select key from "${schema}".idempotency_claims where key like 'purge-%'`,
    );
    expect(keys.rows.map((r) => r.key)).toEqual(['purge-b']);
  });

  it('refuses an over-long key before reaching the database', async () => {
    await expect(claims.begin('k'.repeat(256), 'j', 1000)).rejects.toMatchObject({
      code: 'CHOKAQ_INVALID_IDEMPOTENCY_KEY',
    });
  });
});

describe.skipIf(!available)('idempotency middleware with ChokaQ on PostgreSQL', () => {
  let chokaq: ChokaQ | undefined;

  afterEach(async () => {
    await chokaq?.stop();
    chokaq = undefined;
  });

  it('runs the side effect of two jobs with one key once; the duplicate is archived with a note', async () => {
    const storage = open();
    const effects: string[] = [];
    const outcomes: IdempotencyOutcome[] = [];
    const charge = defineJob<{ key: string }>({
      type: 'idem.charge.v1',
      async handle(payload, ctx) {
        effects.push(`${payload.key}:${ctx.id}`);
        // Hold the key until the other job has found it in progress, whichever runs first.
        await waitFor(() => outcomes.includes('in_progress_duplicate'), {
          message: 'the duplicate to find the key in progress',
        });
      },
    });
    chokaq = new ChokaQ({
      storage,
      jobs: [charge],
      middleware: [
        idempotency({
          claims: storage.idempotencyClaims,
          key: (_ctx, p) => (p as { key: string }).key,
          // The deferred duplicate looks again after 1 s of the database clock (its run_at); the
          // winner completes long before its claim would expire.
          inProgressTtl: '1s',
          onOutcome: (outcome) => outcomes.push(outcome),
        }),
      ],
      logger: silentLogger,
      pollInterval: 50,
    });
    await chokaq.start();
    const first = await chokaq.enqueue(charge, { key: 'order-42' });
    const second = await chokaq.enqueue(charge, { key: 'order-42' });
    expect(first.id).not.toBe(second.id);

    // An archived row never changes: waiting for one job, then the other, waits for both.
    const rows = [
      await waitForJob(storage, first.id, 'succeeded', { timeoutMs: 15_000 }),
      await waitForJob(storage, second.id, 'succeeded', { timeoutMs: 15_000 }),
    ];
    expect(effects).toHaveLength(1);
    const winner = effects[0]?.split(':')[1];
    const duplicate = rows.find((row) => row.id !== winner);
    expect(duplicate?.note).toMatch(new RegExp(`^duplicate of job ${winner}, completed `));
    expect(rows.find((row) => row.id === winner)?.note ?? null).toBeNull();
    expect(outcomes).toContain('in_progress_duplicate');
    expect(outcomes).toContain('completed_duplicate');
    expect(outcomes.filter((o) => o === 'completed')).toHaveLength(1);
  });

  it('releases the claim when the first run fails, so its retry runs', async () => {
    const storage = open();
    const outcomes: IdempotencyOutcome[] = [];
    let runs = 0;
    const flaky = defineJob<{ key: string }>({
      type: 'idem.flaky.v1',
      retry: { baseDelay: 50, jitter: 0 },
      handle(_payload, ctx) {
        runs += 1;
        if (ctx.attempt === 1) throw new Error('first run fails');
      },
    });
    chokaq = new ChokaQ({
      storage,
      jobs: [flaky],
      middleware: [
        idempotency({
          claims: storage.idempotencyClaims,
          key: (_ctx, p) => (p as { key: string }).key,
          onOutcome: (outcome) => outcomes.push(outcome),
        }),
      ],
      logger: silentLogger,
      pollInterval: 50,
    });
    await chokaq.start();
    const { id } = await chokaq.enqueue(flaky, { key: 'flaky-1' });
    const row = await waitForJob(storage, id, 'succeeded', { timeoutMs: 15_000 });
    expect(row.attempts).toBe(2);
    expect(row.note).toBeNull();
    expect(runs).toBe(2);
    expect(outcomes).toEqual(['claimed', 'released', 'claimed', 'completed']);
    // The key is now completed by that job.
    expect(await storage.idempotencyClaims.begin('flaky-1', 'someone-else', 1000)).toMatchObject({
      status: 'completed',
      jobId: id,
    });
  });

  it('refuses a resultTtl outside [minResultTtl, maxResultTtl] when built', () => {
    const storage = open();
    const build = (resultTtl: string | null) => () =>
      new ChokaQ({
        storage,
        jobs: [],
        middleware: [
          idempotency({
            claims: storage.idempotencyClaims,
            key: (_ctx, p) => (p as { key: string }).key,
            resultTtl: resultTtl as '1h' | null,
            minResultTtl: '1m',
            maxResultTtl: '1h',
          }),
        ],
        logger: silentLogger,
      });
    expect(build('2h')).toThrow(expect.objectContaining({ code: 'CHOKAQ_INVALID_CONFIG' }));
    expect(build('30s')).toThrow(expect.objectContaining({ code: 'CHOKAQ_INVALID_CONFIG' }));
    expect(build(null)).toThrow(expect.objectContaining({ code: 'CHOKAQ_INVALID_CONFIG' }));
    expect(build('1h')).not.toThrow();
  });
});
