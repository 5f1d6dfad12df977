/**
 * The enqueue algorithm shared by `SqlStore.enqueue` (pool, autocommit) and `enqueueWithin`
 * (caller's transaction): one bulk insert, then holder look-ups for skipped idempotency keys.
 */
import { ChokaQError } from '../../errors.js';
import type { EnqueueResult } from '../model.js';
import type { NewJob } from '../model.js';
import { driverError, errorCode, errorConstraint } from './errors.js';
import type { Executor } from './executor.js';
import type { BoundQueries } from './schema.js';
import * as run from './statements.js';
import type { EnqueueParams, EnqueuePlainParams, EnqueueUniformParams } from './statements.js';

/** Rounds of insert + holder look-up before giving up on a key whose holder keeps vanishing. */
const MAX_ROUNDS = 5;

/** The statements the algorithm needs, bound to a schema. */
export type EnqueueStatements = Pick<
  BoundQueries,
  'enqueue' | 'enqueue_plain' | 'enqueue_uniform' | 'enqueue_holders'
>;

/** The parallel array parameters of `enqueue.sql`. */
export function enqueueParams(jobs: readonly NewJob[], now: Date | null): EnqueueParams {
  return {
    ...plainParams(jobs, now),
    idempotencyKeys: jobs.map((j) => j.idempotencyKey),
    concurrencyKeys: jobs.map((j) => j.concurrencyKey ?? null),
    concurrencyLimits: jobs.map((j) => j.concurrencyLimit ?? null),
  };
}

/**
 * Inserts `jobs` and resolves every input to its own id (`created: true`) or to the id of the
 * hot job holding its idempotency key (`created: false`). A key whose holder finished between
 * the insert and the look-up is inserted again. `now` is the time the rows get (`null`: the
 * database's).
 *
 * @param wakeIn Asked for a channel only when one `enqueue_uniform.sql` inserts every job (all
 *   of one queue): the statement then notifies the queue on it, at its commit. `null`: it does not.
 * @throws `CHOKAQ_DUPLICATE_JOB_ID` when an id is already in the hot table (or twice in `jobs`).
 */
export async function enqueueJobs(
  db: Executor,
  sql: EnqueueStatements,
  jobs: readonly NewJob[],
  now: Date | null,
  wakeIn?: (queue: string) => string | null,
): Promise<EnqueueResult[]> {
  if (jobs.every((job) => job.idempotencyKey === null && (job.concurrencyKey ?? null) === null)) {
    const uniform = uniformParams(jobs, now, wakeIn);
    if (uniform) await insert(() => run.enqueueUniform(db, sql, uniform));
    else await insert(() => run.enqueuePlain(db, sql, plainParams(jobs, now)));
    return jobs.map((job) => ({ id: job.id, created: true }));
  }
  const results: (EnqueueResult | undefined)[] = new Array<EnqueueResult | undefined>(jobs.length);
  let todo = jobs.map((_, index) => index);
  for (let round = 0; round < MAX_ROUNDS && todo.length > 0; round++) {
    const batch = todo.map((index) => jobs[index] as NewJob);
    const rows = await insert(() => run.enqueue(db, sql, enqueueParams(batch, now)));
    const inserted = new Set(rows.map((row) => row.id));
    const skipped: number[] = [];
    for (const index of todo) {
      const job = jobs[index] as NewJob;
      if (inserted.has(job.id)) {
        inserted.delete(job.id); // a second input with the same id cannot also be "created"
        results[index] = { id: job.id, created: true };
      } else {
        skipped.push(index);
      }
    }
    todo = [];
    if (skipped.length === 0) break;
    const keys = [...new Set(skipped.map((index) => (jobs[index] as NewJob).idempotencyKey))];
    const found = await run.enqueueHolders(db, sql, { keys });
    const holders = new Map(found.map((row) => [row.idempotency_key, row.id]));
    for (const index of skipped) {
      const key = (jobs[index] as NewJob).idempotencyKey;
      const holder = key === null ? undefined : holders.get(key);
      if (holder === undefined) todo.push(index);
      else results[index] = { id: holder, created: false };
    }
  }
  if (todo.length > 0) {
    throw new ChokaQError(
      'CHOKAQ_STORAGE_UNAVAILABLE',
      'Enqueue could not settle an idempotency key whose holder kept finishing; retry the call.',
      { retryable: true },
    );
  }
  return results as EnqueueResult[];
}

/**
 * The parameters of `enqueue_plain.sql`: those of `enqueue.sql` without the idempotency and
 * concurrency keys.
 */
function plainParams(jobs: readonly NewJob[], now: Date | null): EnqueuePlainParams {
  return {
    ids: jobs.map((j) => j.id),
    queues: jobs.map((j) => j.queue),
    types: jobs.map((j) => j.type),
    payloads: jobs.map((j) => j.payload),
    priorities: jobs.map((j) => j.priority),
    delaysMs: jobs.map((j) => Math.max(0, j.delayMs)),
    tags: jobs.map((j) => j.tags),
    createdBy: jobs.map((j) => j.createdBy),
    traceParents: jobs.map((j) => j.traceParent ?? null),
    now,
  };
}

/**
 * The parameters of `enqueue_uniform.sql`, or `undefined` when the jobs differ in anything but
 * id and payload.
 */
function uniformParams(
  jobs: readonly NewJob[],
  now: Date | null,
  wakeIn: ((queue: string) => string | null) | undefined,
): EnqueueUniformParams | undefined {
  const first = jobs[0];
  if (first === undefined) return undefined;
  const delayMs = Math.max(0, first.delayMs);
  const shared = jobs.every(
    (j) =>
      j.queue === first.queue &&
      j.type === first.type &&
      j.priority === first.priority &&
      Math.max(0, j.delayMs) === delayMs &&
      j.tags === first.tags &&
      j.createdBy === first.createdBy &&
      (j.traceParent ?? null) === (first.traceParent ?? null),
  );
  if (!shared) return undefined;
  return {
    ids: textArray(jobs.map((j) => j.id)),
    payloads: JSON.stringify(jobs.map((j) => j.payload)),
    queue: first.queue,
    type: first.type,
    priority: first.priority,
    delayMs,
    tags: first.tags,
    createdBy: first.createdBy,
    traceParent: first.traceParent ?? null,
    wakeChannel: wakeIn?.(first.queue) ?? null,
    now,
  };
}

/**
 * `values` as the literal of a `text[]`, made in one join instead of the driver's escaped and
 * quoted string per element (enqueueMany sends an id per job); an element with a quote or a
 * backslash is escaped as the array syntax asks.
 */
function textArray(values: readonly string[]): string {
  const plain = values.every((v) => !v.includes('"') && !v.includes('\\'));
  const elements = plain ? values : values.map((v) => v.replace(/[\\"]/g, '\\$&'));
  return values.length === 0 ? '{}' : `{"${elements.join('","')}"}`;
}

async function insert<R>(send: () => Promise<R[]>): Promise<R[]> {
  try {
    return await send();
  } catch (error) {
    if (errorCode(error) === '23505' && errorConstraint(error)?.endsWith('_pkey') === true) {
      throw new ChokaQError('CHOKAQ_DUPLICATE_JOB_ID', 'A job with this id is already active.', {
        cause: driverError(error),
      });
    }
    throw error;
  }
}
