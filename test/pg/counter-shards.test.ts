/**
 * Lifetime counters and metric buckets spread over shards (schema 22) on PostgreSQL: a settle
 * writes the shard of its own server session, so it does not wait for another session that holds
 * its queue's counters in another shard (one row per queue made concurrent settles take turns,
 * each through its commit's WAL flush); reads sum every shard.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { validateSchema } from '../../src/storage/sql/schema.js';
import type { Store } from '../../src/storage/store.js';
import { leaseOf, newJob } from '../conformance/helpers.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';

const pgUp = await postgresAvailable();

/** Shards a session's pid maps to (`counter_shard()`). */
const SHARDS = 16;
/** How long a settle that is not blocked may take here, at most; a blocked one never ends. */
const UNBLOCKED_MS = 10_000;

describe.skipIf(!pgUp)('counter shards on PostgreSQL', { timeout: 60_000 }, () => {
  let schema: string;
  let store: Store;
  const clients: pg.Client[] = [];

  beforeEach(async () => {
    schema = validateSchema(uniqueSchema('shards'));
    store = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
    await store.open();
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.end().catch(() => undefined);
    try {
      await store.close();
    } finally {
      await dropSchema(schema);
    }
  });

  async function client(): Promise<pg.Client> {
    const made = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await made.connect();
    clients.push(made);
    return made;
  }

  /** Settles one new job of `queue` as succeeded through the store. */
  async function succeed(queue: string): Promise<void> {
    const [job] = await store.jobs
      .enqueue([newJob({ queue })])
      .then(async () => store.jobs.claim({ workerId: 'w', limit: 1, queues: [queue] }));
    const [started] = await store.jobs.start([leaseOf(job!)]);
    await store.jobs.settle([{ kind: 'archive', lease: leaseOf(started!), durationMs: 5 }]);
  }

  it("settles while another session holds the queue's counters in its own shard", async () => {
    await succeed('mail'); // the pool's sessions have run statements of this schema
    const poolShards = new Set(
      (
        await (
          await client()
        ).query<{ shard: number }>(
          `select pid % ${SHARDS} as shard from pg_stat_activity where query like $1`,
          [`%"${schema}".%`],
        )
      ).rows.map((row) => Number(row.shard)),
    );
    // A session whose shard no pool session writes (bounded: a few tries find one).
    let holder: pg.Client | undefined;
    for (let tries = 0; tries < 40 && holder === undefined; tries += 1) {
      const candidate = await client();
      const shard = Number(
        (await candidate.query<{ s: number }>(`select "${schema}".counter_shard() as s`)).rows[0]!
          .s,
      );
      if (!poolShards.has(shard)) holder = candidate;
    }
    expect(holder, 'a session in a shard of its own').toBeDefined();
    await holder!.query('begin');
    await holder!.query(
      `insert into "${schema}".stats_summary as s (queue, shard, succeeded_total)
       values ('mail', "${schema}".counter_shard(), 1)
       on conflict (queue, shard) do update set succeeded_total = s.succeeded_total + 1`,
    );
    // Held open: before schema 22 this row lock stopped every settle of the queue until commit.
    let timer: NodeJS.Timeout | undefined;
    const blocked = new Promise<'blocked'>((resolve) => {
      timer = setTimeout(() => resolve('blocked'), UNBLOCKED_MS);
    });
    const outcome = await Promise.race([succeed('mail').then(() => 'settled' as const), blocked]);
    clearTimeout(timer);
    expect(outcome).toBe('settled');
    await holder!.query('commit');
    const mail = (await store.queues.queueStats()).find((q) => q.queue === 'mail');
    expect(mail?.succeededTotal).toBe(3); // two settles and the held row, over two shards or more
    expect(mail?.archived).toBe(2);
  });

  it('sums every shard in queue stats and metric buckets', async () => {
    await succeed('mail');
    const admin = await client();
    const second = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    // Two shards the settle above did not write (it wrote its session's).
    const written = new Set(
      (
        await admin.query<{ shard: number }>(
          `select shard from "${schema}".stats_summary where queue = 'mail'`,
        )
      ).rows.map((row) => Number(row.shard)),
    );
    const free = [...Array(SHARDS).keys()].filter((shard) => !written.has(shard)).slice(0, 2);
    for (const shard of free) {
      await admin.query(
        `insert into "${schema}".stats_summary (queue, shard, succeeded_total, failed_total)
         values ('mail', $1, 10, 2)`,
        [shard],
      );
      await admin.query(
        `insert into "${schema}".metric_buckets (bucket_start, queue, outcome, failure_reason, shard,
                                                 completed_count, duration_count, total_duration_ms,
                                                 max_duration_ms)
         values ($1, 'mail', 0, -1, $2, 4, 4, 40, $3)`,
        [second, shard, shard === free[0] ? 30 : 70],
      );
    }
    const mail = (await store.queues.queueStats()).find((q) => q.queue === 'mail');
    expect(mail).toMatchObject({ succeededTotal: 21, failedTotal: 4 });
    const gauges = (await store.queues.queueGauges()).find((q) => q.queue === 'mail');
    expect(gauges).toMatchObject({ succeededTotal: 21, failedTotal: 4 });
    const buckets = (await store.queues.metricBuckets(new Date(second.getTime() - 1))).filter(
      (b) => b.bucketStart.getTime() === second.getTime(),
    );
    expect(buckets).toEqual([
      expect.objectContaining({
        count: 8,
        durationCount: 8,
        totalDurationMs: 80,
        maxDurationMs: 70,
      }),
    ]);
  });
});
