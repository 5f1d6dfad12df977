/**
 * Enqueue for the memory provider: plan the whole batch first (dedupe by hot idempotency key,
 * reject duplicate hot ids), then write it, so a failing batch writes nothing.
 *
 * @internal
 */
import { ChokaQError } from '../../errors.js';
import type { EnqueueResult, HotJob } from '../model.js';
import type { NewJob } from '../model.js';
import { waitingStateOf } from './promote.js';
import type { Tables } from './tables.js';

/** What one enqueue wrote: the per-job results and the queues that received new rows. */
export interface EnqueueOutcome {
  results: EnqueueResult[];
  /** Distinct queues with at least one created row, in input order. */
  wokenQueues: string[];
}

/** The hot row a new job becomes. */
function toHotRow(job: NewJob, now: Date): HotJob {
  return {
    id: job.id,
    queue: job.queue,
    type: job.type,
    payload: job.payload,
    tags: job.tags,
    idempotencyKey: job.idempotencyKey,
    priority: job.priority,
    state: waitingStateOf(job.delayMs),
    attempts: 0,
    lostAttempts: 0,
    cancelRequestedAt: null,
    cancelRequestedBy: null,
    workerId: null,
    leaseToken: null,
    runAt: new Date(now.getTime() + job.delayMs),
    createdAt: new Date(now),
    startedAt: null,
    heartbeatAt: null,
    updatedAt: new Date(now),
    createdBy: job.createdBy,
    lastModifiedBy: null,
    lastError: null,
    history: [],
    progress: null,
    traceParent: job.traceParent ?? null,
    concurrencyKey: job.concurrencyKey ?? null,
    concurrencyLimit: job.concurrencyLimit ?? null,
    hasDependents: false,
  };
}

/**
 * Inserts `jobs` atomically. A job whose idempotency key is held by a hot row (or by an earlier
 * job of the same batch) is skipped with the holder's id; a job whose id is hot (or repeats an
 * earlier id of the batch) fails the whole call.
 *
 * @throws ChokaQError `CHOKAQ_DUPLICATE_JOB_ID`, with nothing written.
 */
export function enqueueJobs(tables: Tables, jobs: readonly NewJob[], now: Date): EnqueueOutcome {
  const results: EnqueueResult[] = [];
  const staged = new Map<string, HotJob>();
  const stagedKeys = new Map<string, string>();
  for (const job of jobs) {
    const key = job.idempotencyKey;
    const holder = key === null ? undefined : (tables.holderOf(key) ?? stagedKeys.get(key));
    if (holder !== undefined) {
      results.push({ id: holder, created: false });
      continue;
    }
    if (tables.hot.has(job.id) || staged.has(job.id)) {
      throw new ChokaQError(
        'CHOKAQ_DUPLICATE_JOB_ID',
        `A job with id '${job.id}' is already active; nothing was enqueued`,
      );
    }
    staged.set(job.id, toHotRow(job, now));
    if (key !== null) stagedKeys.set(key, job.id);
    results.push({ id: job.id, created: true });
  }

  for (const job of jobs) tables.ensureQueue(job.queue, now);
  const wokenQueues = new Set<string>();
  for (const row of staged.values()) {
    tables.insertHot(row);
    wokenQueues.add(row.queue);
  }
  return { results, wokenQueues: [...wokenQueues] };
}
