/**
 * Batches over SQL ({@link BatchStore}): one statement writes a batch (batch_enqueue.sql); the
 * counters and the callbacks they fire change in the statements that move jobs
 * (fragments/batch_counted.sql), so this part only writes, reads and retires batches.
 */
import { ChokaQError } from '../../errors.js';
import {
  BATCH_CALLBACK_KINDS,
  type BatchCallbackKind,
  type BatchInfo,
  type BatchMembership,
  type BatchStore,
  type NewBatch,
} from '../batch-store.js';
import { hasDependencies, linkedJobs } from '../dependency-links.js';
import type { EnqueueResult, NewJob } from '../model.js';
import { driverError, errorCode, errorConstraint } from './errors.js';
import type { Executor } from './executor.js';
import { toDate, toDateOrNull, toNumber } from './rows.js';
import type { SqlContext } from './sql-context.js';
import * as run from './statements.js';
import type { BatchGetRow } from './statements.js';
import { linkIn } from './workflows.js';

/** The role code of each callback kind in batch_enqueue.sql (0 is a member). */
const ROLE_CODE: Record<BatchCallbackKind, number> = { success: 1, complete: 2, death: 3 };

/** {@link BatchStore} over SQL. */
export class SqlBatches implements BatchStore {
  /** @param context The connection, statements and wake-ups shared by the store's parts. */
  constructor(protected readonly context: SqlContext) {}

  /** {@inheritDoc BatchStore.enqueue} */
  async enqueue(batch: NewBatch): Promise<EnqueueResult[]> {
    const db = await this.context.db();
    const results = await this.enqueueOn(db, batch);
    this.context.wake(queuesOf(batch.members));
    return results;
  }

  /** Writes `batch` on `db` (the pool, or a caller's transaction). */
  protected async enqueueOn(db: Executor, batch: NewBatch): Promise<EnqueueResult[]> {
    const jobs = jobsOf(batch);
    const roles = [
      ...batch.members.map(() => 0),
      ...BATCH_CALLBACK_KINDS.flatMap((kind) =>
        batch.callbacks[kind] === undefined ? [] : [ROLE_CODE[kind]],
      ),
    ];
    const now = this.context.now();
    const write = async (on: Executor): Promise<void> => {
      await insert(() =>
        run.batchEnqueue(on, this.context.sql, {
          ids: jobs.map((j) => j.id),
          queues: jobs.map((j) => j.queue),
          types: jobs.map((j) => j.type),
          payloads: jobs.map((j) => j.payload),
          priorities: jobs.map((j) => j.priority),
          delaysMs: jobs.map((j) => Math.max(0, j.delayMs)),
          tags: jobs.map((j) => j.tags),
          createdBy: jobs.map((j) => j.createdBy),
          traceParents: jobs.map((j) => j.traceParent ?? null),
          concurrencyKeys: jobs.map((j) => j.concurrencyKey ?? null),
          concurrencyLimits: jobs.map((j) => j.concurrencyLimit ?? null),
          roles,
          batchId: batch.id,
          now,
        }),
      );
      if (batch.members.some(hasDependencies)) {
        const created = batch.members.map((job) => ({ id: job.id, created: true }));
        await linkIn(on, this.context.sql, now, linkedJobs(batch.members, created));
      }
    };
    // One statement is atomic on its own; links need the insert's transaction.
    if (batch.members.some(hasDependencies)) await db.transaction(write);
    else await write(db);
    if (batch.members.some((job) => (job.concurrencyKey ?? null) !== null)) {
      this.context.capped.invalidate();
    }
    return jobs.map((job) => ({ id: job.id, created: true }));
  }

  /** {@inheritDoc BatchStore.get} */
  async get(id: string): Promise<BatchInfo | null> {
    const db = await this.context.db();
    const [row] = await run.batchGet(db, this.context.sql, { ids: [id], jobId: null });
    return row === undefined ? null : batchInfoOf(row);
  }

  /** {@inheritDoc BatchStore.ofJob} */
  async ofJob(jobId: string): Promise<BatchMembership | null> {
    const db = await this.context.db();
    const [row] = await run.batchGet(db, this.context.sql, { ids: null, jobId });
    if (row === undefined) return null;
    const batch = batchInfoOf(row);
    const callback = batch.callbacks.find((c) => c.jobId === jobId);
    return { batch, role: callback?.kind ?? 'member' };
  }

  /** {@inheritDoc BatchStore.purge} */
  async purge(limit: number): Promise<number> {
    const db = await this.context.db();
    const [row] = await run.retentionBatches(db, this.context.sql, {
      limit: Math.max(1, Math.floor(limit)),
    });
    return row === undefined ? 0 : toNumber(row.n);
  }
}

/**
 * The batches part of a store whose backend runs statements in a caller's transaction
 * (`SqlBackend.within`): {@link SqlBatches} plus `enqueueWithin`.
 */
export class SqlBatchesWithin extends SqlBatches {
  constructor(
    context: SqlContext,
    private readonly within: (transaction: unknown) => Executor,
  ) {
    super(context);
  }

  /**
   * {@inheritDoc BatchStore.enqueueWithin} Listeners are woken by a `pg_notify` in that
   * transaction, which PostgreSQL delivers only on commit.
   */
  async enqueueWithin(transaction: unknown, batch: NewBatch): Promise<EnqueueResult[]> {
    const db = this.within(transaction);
    await this.context.db(); // migrations, and a closed store fails here
    const results = await this.enqueueOn(db, batch);
    await run.notifyMany(db, this.context.sql, {
      channel: this.context.channel,
      queues: queuesOf(batch.members),
    });
    return results;
  }
}

/** The members, then the callbacks in kind order: the rows batch_enqueue.sql inserts. */
function jobsOf(batch: NewBatch): NewJob[] {
  return [
    ...batch.members,
    ...BATCH_CALLBACK_KINDS.flatMap((kind) => {
      const job = batch.callbacks[kind];
      return job === undefined ? [] : [job];
    }),
  ];
}

/** The distinct queues of `jobs`. */
function queuesOf(jobs: readonly NewJob[]): string[] {
  return [...new Set(jobs.map((job) => job.queue))];
}

/** A batch as the store hands it out, from its row. */
export function batchInfoOf(row: BatchGetRow): BatchInfo {
  const total = toNumber(row.total);
  const succeeded = toNumber(row.succeeded);
  const died = toNumber(row.died);
  const cancelled = toNumber(row.cancelled);
  const given: [BatchCallbackKind, string | null, unknown][] = [
    ['success', row.on_success_id, row.success_fired_at],
    ['complete', row.on_complete_id, row.complete_fired_at],
    ['death', row.on_death_id, row.death_fired_at],
  ];
  return {
    id: row.id,
    total,
    succeeded,
    died,
    cancelled,
    pending: Math.max(0, total - succeeded - died - cancelled),
    createdAt: toDate(row.created_at),
    callbacks: given.flatMap(([kind, jobId, firedAt]) =>
      jobId === null ? [] : [{ kind, jobId, firedAt: toDateOrNull(firedAt) }],
    ),
  };
}

/** Runs the insert; a job id already active is `CHOKAQ_DUPLICATE_JOB_ID`. */
async function insert<R>(send: () => Promise<R[]>): Promise<R[]> {
  try {
    return await send();
  } catch (error) {
    if (errorCode(error) === '23505' && errorConstraint(error)?.endsWith('_pkey') === true) {
      throw new ChokaQError(
        'CHOKAQ_DUPLICATE_JOB_ID',
        'A job of the batch has the id of an active job (or the batch id is in use).',
        { cause: driverError(error) },
      );
    }
    throw error;
  }
}
