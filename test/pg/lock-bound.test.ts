/**
 * No lock outlives its holder, and no statement hangs, on PostgreSQL.
 *
 * A holder that freezes inside a ChokaQ transaction (what the server sees of a host cut off the
 * network, a stopped or killed process: a session idle in transaction) holds the rescue lock, a
 * capped queue's row or a schedule's row; the server ends its session after
 * `idleInTransactionTimeout`, and another store rescues, claims and fires in its place. A
 * statement stuck behind another session's lock ends with the retryable `CHOKAQ_STORAGE_TIMEOUT`
 * after `statementTimeout` (engine statements) or `lockTimeout` (operator statements), and
 * nothing of it is kept. The frozen holder is ChokaQ's own transaction code (`pgExecutor`), so
 * what is bounded is what ChokaQ sends.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import { silentLogger } from '../../src/index.js';
import { postgres, type PostgresStore } from '../../src/storage/postgres/index.js';
import { DEFAULT_TIMEOUTS, type SessionTimeouts } from '../../src/storage/postgres/options.js';
import { pgExecutor } from '../../src/storage/postgres/pg-executor.js';
import type { Executor } from '../../src/storage/sql/executor.js';
import { validateSchema } from '../../src/storage/sql/schema.js';
import { leaseOf, newJob } from '../conformance/helpers.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';

const pgUp = await postgresAvailable();

/** The idle-in-transaction limit of these tests, in ms: short, so a test waits little. */
const IDLE_MS = 1500;
/** Longest any wait here may take, in ms: the limit plus generous slack for a busy machine. */
const BOUND_MS = 20_000;

/** A transaction held open by a frozen holder, and how to let it go. */
interface Frozen {
  /** Settles when the holder's transaction ended; to its error, if any. */
  ended: Promise<unknown>;
  /** Unfreezes the holder (it then tries its next statement). */
  thaw(): void;
}

/** Every holder frozen by the running test, thawed by `afterEach` whatever happened. */
const frozenHolders: Frozen[] = [];

/**
 * Runs `lock` in a ChokaQ transaction on its own pool, then freezes before its next statement,
 * as a process cut off mid-transaction does.
 */
async function freezeHolding(
  executor: Executor,
  lock: (tx: Executor) => Promise<unknown>,
): Promise<Frozen> {
  let thaw!: () => void;
  const thawed = new Promise<void>((resolve) => (thaw = resolve));
  let locked!: () => void;
  const holding = new Promise<void>((resolve) => (locked = resolve));
  const ended = executor
    .transaction(async (tx) => {
      await lock(tx);
      locked();
      await thawed;
      await tx.query('SELECT 1');
    })
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  await Promise.race([holding, ended]);
  const frozen = { ended, thaw };
  frozenHolders.push(frozen);
  return frozen;
}

describe.skipIf(!pgUp)('no lock outlives its holder (PostgreSQL)', { timeout: 60_000 }, () => {
  let schema: string;
  let store: PostgresStore;
  let holderPool: pg.Pool;
  let holder: Executor;
  let admin: pg.Client;
  const timeouts: SessionTimeouts = { ...DEFAULT_TIMEOUTS, idleInTransactionMs: IDLE_MS };

  beforeEach(async () => {
    schema = validateSchema(uniqueSchema('lockbound'));
    store = postgres({
      connectionString: TEST_DATABASE_URL,
      schema,
      logger: silentLogger,
      statementTimeout: '1s',
      lockTimeout: '500ms',
    });
    await store.open();
    holderPool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
    holderPool.on('error', () => undefined);
    holder = pgExecutor(holderPool, () => holderPool.end(), { timeouts });
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
  });

  afterEach(async () => {
    for (const frozen of frozenHolders.splice(0)) {
      frozen.thaw();
      await frozen.ended;
    }
    await admin.end().catch(() => undefined);
    await holder.close();
    try {
      await store.close();
    } finally {
      await dropSchema(schema);
    }
  });

  it('the rescue lock of a frozen holder goes after idleInTransactionTimeout; the others rescue', async () => {
    await store.jobs.enqueue([newJob({ queue: 'lb', type: 'lb.plain', payload: '{}' })]);
    const [job] = await store.jobs.claim({ workerId: 'w-gone', limit: 1, queues: ['lb'] });
    expect(job).toBeDefined();
    await store.jobs.start([leaseOf(job!)]);
    await admin.query(
      `UPDATE "${schema}".jobs_hot SET heartbeat_at = now() - interval '1 hour' WHERE id = $1`,
      [job!.id],
    );
    const options = { fetchedTimeoutMs: 60_000, processingTimeoutMs: 60_000, retryZombieTypes: {} };
    const frozen = await freezeHolding(holder, (tx) =>
      tx.query(`SELECT pg_try_advisory_xact_lock(hashtext('chokaq.rescue.' || $1::text))`, [
        schema,
      ]),
    );
    expect((await store.jobs.rescue(options)).skipped).toBe(true);
    const from = Date.now();
    const rescued = await waitFor(
      async () => {
        const result = await store.jobs.rescue(options);
        return result.skipped ? null : result;
      },
      { timeoutMs: BOUND_MS, intervalMs: 100, message: 'the rescue lock to be free' },
    );
    console.log(`rescue lock of a frozen holder: rescue again after ${Date.now() - from} ms`);
    expect(rescued.dead.map((j) => j.id)).toEqual([job!.id]);
    frozen.thaw();
    const error = await frozen.ended;
    expect(error).toBeInstanceOf(ChokaQError);
    expect((error as ChokaQError).retryable).toBe(true);
  });

  it("a capped queue's row locked by a frozen claimer goes; the others claim", async () => {
    await store.queues.updateQueue('lb-capped', { maxWorkers: 2 });
    await store.jobs.enqueue([newJob({ queue: 'lb-capped', type: 'lb.capped', payload: '{}' })]);
    const frozen = await freezeHolding(holder, (tx) =>
      tx.query(
        `SELECT name FROM "${schema}".queues WHERE name = ANY($1::text[]) ORDER BY name FOR NO KEY UPDATE`,
        [['lb-capped']],
      ),
    );
    // The store's claim waits behind the row lock, at most until the server ends the holder.
    const claimed = await waitFor(
      async () => {
        try {
          const jobs = await store.jobs.claim({
            workerId: 'w-here',
            limit: 1,
            queues: ['lb-capped'],
          });
          return jobs.length > 0 ? jobs : null;
        } catch (error) {
          // statementTimeout (1 s) may end a wait first: a retryable timeout, nothing claimed.
          expect((error as ChokaQError).code).toBe('CHOKAQ_STORAGE_TIMEOUT');
          return null;
        }
      },
      { timeoutMs: BOUND_MS, intervalMs: 100, message: 'the capped claim' },
    );
    expect(claimed).toHaveLength(1);
    frozen.thaw();
    expect(await frozen.ended).toBeInstanceOf(ChokaQError);
  });

  it("a schedule's row locked by a frozen firer goes; the others fire its tick", async () => {
    const saved = await store.schedules.save('lb-minutely', '{"cron":"* * * * *"}');
    const tickAt = new Date(saved.cursorAt.getTime() + 1);
    const job = newJob({ queue: 'lb', type: 'lb.tick', payload: '{}' });
    const frozen = await freezeHolding(holder, (tx) =>
      tx.query(`SELECT name FROM "${schema}".schedules WHERE name = $1 FOR UPDATE`, [
        'lb-minutely',
      ]),
    );
    const fired = await waitFor(
      async () => {
        try {
          const [result] = await store.schedules.fire({
            name: 'lb-minutely',
            ticks: [{ tickAt, manual: true, job }],
            advanceTo: null,
            overlap: 'allow',
          });
          return result;
        } catch (error) {
          expect((error as ChokaQError).code).toBe('CHOKAQ_STORAGE_TIMEOUT');
          return null;
        }
      },
      { timeoutMs: BOUND_MS, intervalMs: 100, message: 'the schedule to fire' },
    );
    expect(fired).toBe('enqueued');
    expect((await store.operator.getJob(job.id))?.where).toBe('hot');
    frozen.thaw();
    expect(await frozen.ended).toBeInstanceOf(ChokaQError);
  });

  it('a claim stuck behind a lock ends with CHOKAQ_STORAGE_TIMEOUT after statementTimeout; nothing is claimed', async () => {
    await store.queues.updateQueue('lb-stuck', { maxWorkers: 1 });
    await store.jobs.enqueue([newJob({ queue: 'lb-stuck', type: 'lb.stuck', payload: '{}' })]);
    await admin.query('BEGIN');
    await admin.query(`SELECT name FROM "${schema}".queues WHERE name = 'lb-stuck' FOR UPDATE`);
    const error = await store.jobs
      .claim({ workerId: 'w-stuck', limit: 1, queues: ['lb-stuck'] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ChokaQError);
    expect((error as ChokaQError).code).toBe('CHOKAQ_STORAGE_TIMEOUT');
    expect((error as ChokaQError).retryable).toBe(true);
    const { rows } = await admin.query<{ status: number }>(
      `SELECT status FROM "${schema}".jobs_hot WHERE queue = 'lb-stuck'`,
    );
    expect(rows.map((r) => r.status)).toEqual([0]);
    await admin.query('ROLLBACK');
    expect(
      await store.jobs.claim({ workerId: 'w-stuck', limit: 1, queues: ['lb-stuck'] }),
    ).toHaveLength(1);
  });

  it('an operator cancel stuck behind a row lock ends after lockTimeout; the job is untouched', async () => {
    const [created] = await store.jobs.enqueue([
      newJob({ queue: 'lb-op', type: 'lb.op', payload: '{}' }),
    ]);
    const id = created!.id;
    await admin.query('BEGIN');
    await admin.query(`SELECT id FROM "${schema}".jobs_hot WHERE id = $1 FOR UPDATE`, [id]);
    const error = await store.jobs.cancel([id], 'ops').then(
      () => null,
      (e: unknown) => e,
    );
    expect((error as ChokaQError).code).toBe('CHOKAQ_STORAGE_TIMEOUT');
    expect(((error as ChokaQError).cause as { code?: string }).code).toBe('55P03');
    await admin.query('ROLLBACK');
    expect((await store.operator.getJob(id))?.where).toBe('hot');
    expect((await store.jobs.cancel([id], 'ops')).cancelled).toEqual([id]);
  });
});
