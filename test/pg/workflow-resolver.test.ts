/**
 * The resolver on PostgreSQL locks only the awaiting jobs it has something to decide about
 * (workflow_lock.sql): the settle of each child of a fan-in but the last leaves the fan-in's row
 * untouched (a row lock writes the row: its `xmax`), and a pass decides the jobs that a crash
 * left undecided (a settle committed, its resolver never ran), a page at a time in id order.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/index.js';
import type { ClaimedJob, NewJob } from '../../src/storage/model.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { QUERIES } from '../../src/storage/sql/generated.js';
import { validateSchema, withSchema } from '../../src/storage/sql/schema.js';
import type { Store } from '../../src/storage/store.js';
import { leaseOf, newJob } from '../conformance/helpers.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';

const pgUp = await postgresAvailable();

describe.skipIf(!pgUp)('the resolver on PostgreSQL', { timeout: 60_000 }, () => {
  let schema: string;
  let store: Store;
  let client: pg.Client;

  beforeEach(async () => {
    schema = validateSchema(uniqueSchema('resolver'));
    store = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
    await store.open();
    client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
  });

  afterEach(async () => {
    await client.end().catch(() => undefined);
    try {
      await store.close();
    } finally {
      await dropSchema(schema);
    }
  });

  /** A job of `queue` that waits for `ids` (a death fails it). */
  function waiting(queue: string, ids: readonly string[]): NewJob {
    return newJob({ queue, dependsOn: ids.map((id) => ({ id, onDeath: 'fail' as const })) });
  }

  /** Claims and starts every due job of `queue`. */
  async function runAll(queue: string): Promise<ClaimedJob[]> {
    const claimed = await store.jobs.claim({ workerId: 'w', limit: 100, queues: [queue] });
    return store.jobs.start(claimed.map(leaseOf));
  }

  /** The hot row of job `id`: its state code and whether a transaction ever locked or changed it. */
  async function rowOf(id: string): Promise<{ status: number; touched: boolean }> {
    const { rows } = await client.query<{ status: number; xmax: string }>(
      `SELECT status, xmax::text FROM "${schema}".jobs_hot WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (row === undefined) throw new Error(`no hot row ${id}`);
    return { status: row.status, touched: row.xmax !== '0' };
  }

  it("leaves a fan-in's row alone until its last child settled", async () => {
    const children = [newJob({ queue: 'rs-c' }), newJob({ queue: 'rs-c' })];
    const fanIn = waiting(
      'rs-p',
      children.map((c) => c.id),
    );
    await store.jobs.enqueue([...children, fanIn]);
    const [first, second] = await runAll('rs-c');
    await store.jobs.settle([{ kind: 'archive', lease: leaseOf(first!), durationMs: 1 }]);
    expect(await rowOf(fanIn.id)).toEqual({ status: 4, touched: false });
    await store.jobs.settle([{ kind: 'archive', lease: leaseOf(second!), durationMs: 1 }]);
    expect((await rowOf(fanIn.id)).status).toBe(0);
  });

  it('a pass decides the jobs a crash left undecided, a page at a time', async () => {
    const child = newJob({ queue: 'rs-k' });
    const parents = [0, 1, 2].map(() => waiting('rs-q', [child.id]));
    await store.jobs.enqueue([child, ...parents]);
    const [running] = await runAll('rs-k');
    // The settle commits; the process dies before its resolver runs.
    const settled = await client.query(withSchema(QUERIES.settle_archive_plain, schema), [
      [running!.id],
      [running!.workerId],
      [running!.leaseToken],
      [1],
      null,
      null,
      null,
      null,
    ]);
    expect(settled.rowCount).toBe(1);
    for (const parent of parents) expect((await rowOf(parent.id)).status).toBe(4);

    const order = parents.map((p) => p.id).sort();
    const first = await store.workflows.resolve({ limit: 2 });
    expect(first.released.map((job) => job.id)).toEqual(order.slice(0, 2));
    expect(first.next).toBe(order[1]);
    const rest = await store.workflows.resolve({ limit: 2, after: first.next });
    expect(rest).toEqual({ released: [{ id: order[2], queue: 'rs-q' }], failed: [], next: null });
    for (const parent of parents) expect((await rowOf(parent.id)).status).toBe(0);
  });
});
