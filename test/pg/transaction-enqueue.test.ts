import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, memory, silentLogger } from '../../src/index.js';
import type { NewJob } from '../../src/storage/model.js';
import { postgres, type PostgresStore } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitForJob } from '../../src/testing/index.js';

const available = await postgresAvailable();
const schema = uniqueSchema('txenq');

function job(id: string, queue = 'tx'): NewJob {
  return {
    id,
    queue,
    type: 'test.v1',
    payload: JSON.stringify({ id }),
    priority: 10,
    delayMs: 0,
    idempotencyKey: null,
    tags: null,
    createdBy: null,
  };
}

describe.skipIf(!available)('postgres enqueueWithin', () => {
  let store: PostgresStore;
  let pool: pg.Pool;

  beforeAll(async () => {
    store = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
    await store.open();
    pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  });

  afterAll(async () => {
    try {
      await store?.close();
      await pool?.end();
    } finally {
      await dropSchema(schema);
    }
  });

  it('rolls the jobs back with the caller transaction', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const results = await store.jobs.enqueueWithin!(client, [
        job('rolled-back-1'),
        job('rolled-back-2'),
      ]);
      expect(results).toEqual([
        { id: 'rolled-back-1', created: true },
        { id: 'rolled-back-2', created: true },
      ]);
      // Visible inside the transaction, not outside it.
      const inside = await client.query(`select count(*)::int as n from "${schema}".jobs_hot`);
      expect(inside.rows[0]).toEqual({ n: 2 });
      expect(await store.operator.getJob('rolled-back-1')).toBeNull();
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await store.operator.getJob('rolled-back-1')).toBeNull();
    expect(await store.operator.getJob('rolled-back-2')).toBeNull();
  });

  it('commits the jobs with the caller transaction', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`create temp table caller_data (x int) on commit drop`);
      await client.query('insert into caller_data values (1)');
      const [result] = await store.jobs.enqueueWithin!(client, [
        job('committed-1', 'tx-new-queue'),
      ]);
      expect(result).toEqual({ id: 'committed-1', created: true });
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const found = await store.operator.getJob('committed-1');
    expect(found?.where).toBe('hot');
    expect(found?.job.queue).toBe('tx-new-queue');
    expect((await store.queues.listQueues()).map((q) => q.name)).toContain('tx-new-queue');
  });

  it('wakes listeners only when the caller commits', async () => {
    const woken: string[] = [];
    const unlisten = await store.cluster.listen!((queue) => woken.push(queue));
    try {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await store.jobs.enqueueWithin!(client, [job('wake-rolled-back', 'wake-rb')]);
        await client.query('ROLLBACK');
        await client.query('BEGIN');
        await store.jobs.enqueueWithin!(client, [job('wake-committed', 'wake-ok')]);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      await expect.poll(() => woken, { timeout: 5000 }).toContain('wake-ok');
      expect(woken).not.toContain('wake-rb');
    } finally {
      await unlisten();
    }
  });

  it('rejects something that is not a client', async () => {
    await expect(store.jobs.enqueueWithin!({}, [job('x')])).rejects.toMatchObject({
      code: 'CHOKAQ_INVALID_ARGUMENT',
      field: 'options.client',
    });
  });
});

describe.skipIf(!available)('ChokaQ.enqueue with a caller client', () => {
  const facadeSchema = uniqueSchema('txfacade');
  let pool: pg.Pool;
  let chokaq: ChokaQ;
  const ran: string[] = [];
  const welcome = defineJob<{ user: string }>({
    type: 'welcome.v1',
    handle(payload) {
      ran.push(payload.user);
    },
  });

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
    chokaq = new ChokaQ({
      storage: postgres({
        connectionString: TEST_DATABASE_URL,
        schema: facadeSchema,
        logger: silentLogger,
      }),
      jobs: [welcome],
      logger: silentLogger,
      pollInterval: 50,
    });
    await chokaq.start();
  });

  afterAll(async () => {
    try {
      await chokaq?.stop();
      await pool?.end();
    } finally {
      await dropSchema(facadeSchema);
    }
  });

  it('runs a job only when the caller commits, and never one that was rolled back', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const dropped = await chokaq.enqueue(welcome, { user: 'rolled-back' }, { client });
      await client.query('ROLLBACK');
      await client.query('BEGIN');
      const kept = await chokaq.enqueue(welcome, { user: 'committed' }, { client });
      await client.query('COMMIT');
      await waitForJob(chokaq, kept.id, 'succeeded');
      expect(await chokaq.getJob(dropped.id)).toBeNull();
      expect(ran).toEqual(['committed']);
    } finally {
      client.release();
    }
  });

  it('writes a workflow in the caller transaction: all of it on commit, none on rollback', async () => {
    const client = await pool.connect();
    let parent = '';
    let dropped = '';
    try {
      await client.query('BEGIN');
      await chokaq.enqueueWorkflow(
        (workflow) => {
          const first = workflow.add(welcome, { user: 'wf-dropped-child' });
          dropped = workflow.add(welcome, { user: 'wf-dropped' }, { dependsOn: [first] });
        },
        { client },
      );
      await client.query('ROLLBACK');
      await client.query('BEGIN');
      await chokaq.enqueueWorkflow(
        (workflow) => {
          const first = workflow.add(welcome, { user: 'wf-child' });
          parent = workflow.add(welcome, { user: 'wf-parent' }, { dependsOn: [first] });
        },
        { client },
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    await waitForJob(chokaq, parent, 'succeeded');
    expect(await chokaq.getJob(dropped)).toBeNull();
    expect(ran.filter((user) => user.startsWith('wf-'))).toEqual(['wf-child', 'wf-parent']);
  });

  it('writes a batch in the caller transaction: all of it on commit, none on rollback', async () => {
    const client = await pool.connect();
    let dropped = '';
    let kept: { id: string; callbacks: { success?: string } } = { id: '', callbacks: {} };
    try {
      await client.query('BEGIN');
      dropped = (
        await chokaq.enqueueBatch(
          (batch) => {
            batch.add(welcome, { user: 'bt-dropped' });
            batch.onSuccess(welcome, { user: 'bt-dropped-callback' });
          },
          { client },
        )
      ).id;
      await client.query('ROLLBACK');
      await client.query('BEGIN');
      kept = await chokaq.enqueueBatch(
        (batch) => {
          batch.add(welcome, { user: 'bt-member-1' });
          batch.add(welcome, { user: 'bt-member-2' });
          batch.onSuccess(welcome, { user: 'bt-callback' });
        },
        { client },
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    await waitForJob(chokaq, kept.callbacks.success ?? '', 'succeeded');
    expect(await chokaq.batches.get(dropped)).toBeNull();
    expect(await chokaq.batches.get(kept.id)).toMatchObject({ total: 2, succeeded: 2 });
    expect(ran.filter((user) => user.startsWith('bt-')).sort()).toEqual([
      'bt-callback',
      'bt-member-1',
      'bt-member-2',
    ]);
    // The callback ran after both members.
    expect(ran.filter((user) => user.startsWith('bt-')).at(-1)).toBe('bt-callback');
  });

  it('refuses a caller client on a provider without external transactions', async () => {
    const local = new ChokaQ({
      storage: memory(),
      jobs: [welcome],
      logger: silentLogger,
      worker: false,
    });
    await expect(local.enqueue(welcome, { user: 'x' }, { client: {} })).rejects.toMatchObject({
      code: 'CHOKAQ_TRANSACTION_UNSUPPORTED',
    });
    await local.stop();
  });
});
