/**
 * Transactional steps on PostgreSQL (docs/workflows.md#durable-steps): a step given the
 * application's `pg` client writes its record in the application's transaction, so the
 * application's own rows, the jobs it enqueues with `{ client }` and the record commit together
 * or not at all; a second record of the name fails with `CHOKAQ_STEP_RECORDED` and takes the
 * second transaction's writes down with it. Memory refuses the `client` option with a code.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, memory, silentLogger } from '../../src/index.js';
import { postgres, type PostgresStore } from '../../src/storage/postgres/index.js';
import { waitForJob } from '../../src/testing/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';

const available = await postgresAvailable();
const schema = uniqueSchema('txstep');

describe.skipIf(!available)('postgres transactional steps', () => {
  let store: PostgresStore;
  let pool: pg.Pool;
  let chokaq: ChokaQ | undefined;

  beforeAll(async () => {
    store = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
    await store.open();
    pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 4 });
    await pool.query(`CREATE TABLE "${schema}".orders (job_id text NOT NULL, note text NOT NULL)`);
  });

  afterAll(async () => {
    try {
      await chokaq?.stop();
      await store?.close();
      await pool?.end();
    } finally {
      await dropSchema(schema);
    }
  });

  /** Rows of the application's table for job `id`. */
  async function ordersOf(id: string): Promise<string[]> {
    const { rows } = await pool.query<{ note: string }>(
      `SELECT note FROM "${schema}".orders WHERE job_id = $1`,
      [id],
    );
    return rows.map((row) => row.note);
  }

  it('commits the app rows, the enqueued job and the record together; a rolled-back run leaves none', async () => {
    let runs = 0;
    const receipt = defineJob<{ order: string }>({
      type: 'txstep.receipt.v1',
      handle: () => 'sent',
    });
    const order = defineJob<{ order: string }>({
      type: 'txstep.order.v1',
      retry: { maxAttempts: 3, baseDelay: 1, jitter: 0 },
      async handle({ order: name }, ctx) {
        runs += 1;
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const next = await ctx.step(
            'book',
            async () => {
              await client.query(`INSERT INTO "${schema}".orders VALUES ($1, $2)`, [ctx.id, name]);
              const { id } = await (chokaq as ChokaQ).enqueue(receipt, { order: name }, { client });
              return id;
            },
            { client },
          );
          // The first run fails after its step, before its commit: nothing of it stays.
          if (ctx.attempt === 1) throw new Error('crashed before COMMIT');
          await client.query('COMMIT');
          return next;
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        } finally {
          client.release();
        }
      },
    });
    // The engine owns (and closes) a store of its own on the same schema.
    chokaq = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      jobs: [order, receipt],
      logger: silentLogger,
      pollInterval: 50,
    });
    await chokaq.start();
    const { id } = await chokaq.enqueue(order, { order: 'A-1' });
    const done = await waitForJob(chokaq, id, 'succeeded', { timeoutMs: 10_000 });
    expect(runs).toBe(2);
    expect(await ordersOf(id)).toEqual(['A-1']);
    const receiptId = JSON.parse(done.result ?? 'null') as string;
    await waitForJob(chokaq, receiptId, 'succeeded', { timeoutMs: 10_000 });
    // One receipt job: the first run's enqueue rolled back with its step.
    const receipts = await chokaq.jobs.query({ type: 'txstep.receipt.v1' });
    expect(receipts.jobs.map((job) => job.id)).toEqual([receiptId]);
    const detail = await chokaq.jobs.get(id);
    expect(detail?.steps.map((s) => [s.name, s.result])).toEqual([
      ['book', JSON.stringify(receiptId)],
    ]);
    await chokaq.stop();
    chokaq = undefined;
  });

  it('fails a second record of one step with CHOKAQ_STEP_RECORDED, rolling its writes back', async () => {
    const [job] = await store.jobs.enqueue([
      {
        id: 'txstep-race',
        queue: 'txstep',
        type: 'txstep.race.v1',
        payload: '{}',
        priority: 10,
        delayMs: 0,
        idempotencyKey: null,
        tags: null,
        createdBy: null,
      },
    ]);
    const id = job!.id;
    const first = await pool.connect();
    const second = await pool.connect();
    try {
      await first.query('BEGIN');
      await second.query('BEGIN');
      await first.query(`INSERT INTO "${schema}".orders VALUES ($1, 'first')`, [id]);
      await second.query(`INSERT INTO "${schema}".orders VALUES ($1, 'second')`, [id]);
      await store.steps.recordWithin!(first, id, { name: 'pay', result: '1' });
      // The second insert waits for the first transaction, then finds the name taken.
      // Its rejection is caught at once: it may come while the first COMMIT is awaited.
      const racing = store.steps.recordWithin!(second, id, { name: 'pay', result: '2' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      await first.query('COMMIT');
      expect(await racing).toMatchObject({ code: 'CHOKAQ_STEP_RECORDED', field: 'name' });
      // The failed statement aborted the second transaction: its COMMIT rolls back.
      await second.query('COMMIT');
    } finally {
      first.release();
      second.release();
    }
    expect(await ordersOf(id)).toEqual(['first']);
    expect((await store.steps.list(id)).map((s) => s.result)).toEqual(['1']);
  });

  it('refuses a step with a client on storage without caller transactions', async () => {
    const seen: unknown[] = [];
    const job = defineJob({
      type: 'txstep.memory.v1',
      retry: { maxAttempts: 1 },
      async handle(_payload, ctx) {
        try {
          await ctx.step('x', () => 1, { client: {} });
        } catch (error) {
          seen.push(error);
          throw error;
        }
      },
    });
    const local = new ChokaQ({
      storage: memory(),
      jobs: [job],
      logger: silentLogger,
      pollInterval: 20,
    });
    await local.start();
    try {
      const { id } = await local.enqueue(job, {});
      await waitForJob(local, id, 'dead', { timeoutMs: 10_000 });
      expect(seen[0]).toMatchObject({
        code: 'CHOKAQ_TRANSACTION_UNSUPPORTED',
        field: 'options.client',
      });
    } finally {
      await local.stop();
    }
  });
});
