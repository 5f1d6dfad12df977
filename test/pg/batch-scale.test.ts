/**
 * A batch of 100,000 members on PostgreSQL (docs/workflows.md, "Batches"): written in one call,
 * drained by claims and settles of 2,000 jobs at a time with four settlers at once, counted
 * exactly (one row of counters, updated by each settle's own statement), and its callbacks fired
 * once, by the settle of the last members. The counter update and the callback's move read one
 * row each by index, whatever the batch's size.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { validateSchema } from '../../src/storage/sql/schema.js';
import type { NewBatch } from '../../src/storage/batch-store.js';
import type { Store } from '../../src/storage/store.js';
import { uuidv7 } from '../../src/util/uuid.js';
import { leaseOf, newJob } from '../conformance/helpers.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';

const pgUp = await postgresAvailable();

const MEMBERS = 100_000;
/** Jobs claimed per settler and round. */
const ROUND = 500;
const SETTLERS = 4;
/** More rounds than the drain needs: the loop is bounded. */
const MAX_ROUNDS = Math.ceil(MEMBERS / (ROUND * SETTLERS)) + 10;

describe.skipIf(!pgUp)('a batch of 100,000 members on PostgreSQL', { timeout: 180_000 }, () => {
  let schema: string;
  let store: Store;
  let client: pg.Client;

  beforeAll(async () => {
    schema = validateSchema(uniqueSchema('btscale'));
    store = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
    await store.open();
    client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end().catch(() => undefined);
    await store?.close();
    if (pgUp) await dropSchema(schema);
  });

  it('counts every member once and fires each callback once', async () => {
    const batch: NewBatch = {
      id: uuidv7(),
      members: Array.from({ length: MEMBERS }, () => newJob({ queue: 'scale' })),
      callbacks: {
        success: newJob({ queue: 'scale-cb' }),
        complete: newJob({ queue: 'scale-cb' }),
        death: newJob({ queue: 'scale-cb' }),
      },
    };
    expect(await store.batches.enqueue(batch)).toHaveLength(MEMBERS + 3);
    await client.query(`ANALYZE "${schema}".jobs_hot`);

    // The counter update and the callback's move are lookups of one row by index.
    const plan = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN UPDATE "${schema}".batches b SET succeeded = b.succeeded + 1 WHERE b.id = $1`,
      [batch.id],
    );
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(
      /Index Scan using batches_pkey/,
    );
    const fire = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN UPDATE "${schema}".jobs_hot h SET status = 0
       WHERE h.status = 4 AND h.id IN (SELECT on_success_id FROM "${schema}".batches WHERE id = $1)`,
      [batch.id],
    );
    expect(fire.rows.map((r) => r['QUERY PLAN']).join('\n')).not.toMatch(/Seq Scan on jobs_hot/);

    let settled = 0;
    for (let round = 0; round < MAX_ROUNDS && settled < MEMBERS; round++) {
      const applied = await Promise.all(
        Array.from({ length: SETTLERS }, async (_, s) => {
          const claimed = await store.jobs.claim({
            workerId: `w${s}`,
            limit: ROUND,
            queues: ['scale'],
          });
          const started = await store.jobs.start(claimed.map(leaseOf));
          return store.jobs.settle(
            started.map((job) => ({ kind: 'archive', lease: leaseOf(job), durationMs: 1 })),
          );
        }),
      );
      settled += applied.flat().filter(Boolean).length;
    }
    expect(settled).toBe(MEMBERS);
    const read = await store.batches.get(batch.id);
    expect(read).toMatchObject({
      total: MEMBERS,
      succeeded: MEMBERS,
      died: 0,
      cancelled: 0,
      pending: 0,
    });
    expect(read?.callbacks.map((c) => [c.kind, c.firedAt !== null])).toEqual([
      ['success', true],
      ['complete', true],
      ['death', false],
    ]);
    const callbacks = await store.jobs.claim({ workerId: 'w', limit: 10, queues: ['scale-cb'] });
    expect(callbacks.map((job) => job.id).sort()).toEqual(
      [batch.callbacks.success?.id, batch.callbacks.complete?.id].sort(),
    );
  });
});
