/**
 * The enqueue algorithm shared by `SqlStore.enqueue` (pool, autocommit) and `enqueueWithin`
 * (caller's transaction): one bulk insert, then holder look-ups for skipped idempotency keys.
 */
import { ChokaQError } from '../../errors.js';
import type { EnqueueResult } from '../model.js';
import type { NewJob } from '../model.js';
import { driverError, errorCode, errorConstraint } from './errors.js';
import type { Executor } from './executor.js';

/** Rounds of insert + holder look-up before giving up on a key whose holder keeps vanishing. */
const MAX_ROUNDS = 5;

/** The statements the algorithm needs, bound to a schema. */
export interface EnqueueStatements {
  enqueue: string;
  /** The cheaper insert for batches without idempotency keys. */
  plain: string;
  /** The cheapest: no keys, and every column but id and payload shared by all jobs. */
  uniform: string;
  holders: string;
}

/** The parallel array parameters of `enqueue.sql`, in order. */
export function enqueueParams(jobs: readonly NewJob[]): unknown[] {
  return [
    jobs.map((j) => j.id),
    jobs.map((j) => j.queue),
    jobs.map((j) => j.type),
    jobs.map((j) => j.payload),
    jobs.map((j) => j.priority),
    jobs.map((j) => Math.max(0, j.delayMs)),
    jobs.map((j) => j.idempotencyKey),
    jobs.map((j) => j.tags),
    jobs.map((j) => j.createdBy),
    jobs.map((j) => j.traceParent ?? null),
    jobs.map((j) => j.concurrencyKey ?? null),
    jobs.map((j) => j.concurrencyLimit ?? null),
  ];
}

/**
 * Inserts `jobs` and resolves every input to its own id (`created: true`) or to the id of the
 * hot job holding its idempotency key (`created: false`). A key whose holder finished between
 * the insert and the look-up is inserted again.
 *
 * @param wakeIn Asked for a channel only when one `enqueue_uniform.sql` inserts every job (all
 *   of one queue): the statement then notifies the queue on it, at its commit. `null`: it does not.
 * @throws `CHOKAQ_DUPLICATE_JOB_ID` when an id is already in the hot table (or twice in `jobs`).
 */
export async function enqueueJobs(
  db: Executor,
  statements: EnqueueStatements,
  jobs: readonly NewJob[],
  wakeIn?: (queue: string) => string | null,
): Promise<EnqueueResult[]> {
  if (jobs.every((job) => job.idempotencyKey === null && (job.concurrencyKey ?? null) === null)) {
    const uniform = uniformParams(jobs, wakeIn);
    if (uniform) await insert(db, statements.uniform, uniform);
    else await insert(db, statements.plain, plainParams(jobs));
    return jobs.map((job) => ({ id: job.id, created: true }));
  }
  const results: (EnqueueResult | undefined)[] = new Array<EnqueueResult | undefined>(jobs.length);
  let todo = jobs.map((_, index) => index);
  for (let round = 0; round < MAX_ROUNDS && todo.length > 0; round++) {
    const batch = todo.map((index) => jobs[index] as NewJob);
    const inserted = new Set(
      (await insert(db, statements.enqueue, enqueueParams(batch))).map((row) => String(row.id)),
    );
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
    const rows = await db.query<{ idempotency_key: unknown; id: unknown }>(statements.holders, [
      keys,
    ]);
    const holders = new Map(rows.map((row) => [String(row.idempotency_key), String(row.id)]));
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
function plainParams(jobs: readonly NewJob[]): unknown[] {
  const params = enqueueParams(jobs).slice(0, 10);
  params.splice(6, 1);
  return params;
}

/**
 * The parameters of `enqueue_uniform.sql`, or `undefined` when the jobs differ in anything but
 * id and payload.
 */
function uniformParams(
  jobs: readonly NewJob[],
  wakeIn: ((queue: string) => string | null) | undefined,
): unknown[] | undefined {
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
  return [
    textArray(jobs.map((j) => j.id)),
    JSON.stringify(jobs.map((j) => j.payload)),
    first.queue,
    first.type,
    first.priority,
    delayMs,
    first.tags,
    first.createdBy,
    first.traceParent ?? null,
    wakeIn?.(first.queue) ?? null,
  ];
}

/**
 * `values` as the array literal `pg` sends for a `text[]` parameter, made in one join instead of
 * an escaped and quoted string per element (enqueueMany sends an id per job). Values with a
 * quote or a backslash, which need escaping, are left to the driver.
 */
function textArray(values: readonly string[]): string | readonly string[] {
  if (values.length === 0 || values.some((v) => v.includes('"') || v.includes('\\'))) return values;
  return `{"${values.join('","')}"}`;
}

async function insert(db: Executor, sql: string, params: unknown[]): Promise<{ id: unknown }[]> {
  try {
    return await db.query<{ id: unknown }>(sql, params);
  } catch (error) {
    if (errorCode(error) === '23505' && errorConstraint(error)?.endsWith('_pkey') === true) {
      throw new ChokaQError('CHOKAQ_DUPLICATE_JOB_ID', 'A job with this id is already active.', {
        cause: driverError(error),
      });
    }
    throw error;
  }
}
