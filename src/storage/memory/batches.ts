/**
 * The batches capability of the memory provider ({@link BatchStore}): a batch's rows written in
 * one atomic step; its counters change with each member's move (`Tables.countBatch`, called by
 * the moves themselves).
 *
 * @internal Reach it through `memory().batches`.
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
import { enqueueJobs } from './enqueue.js';
import { atomically, type MemoryState } from './state.js';
import { checkDependencies, linkJobs } from './workflows.js';

/** The memory {@link BatchStore}. */
export class MemoryBatches implements BatchStore {
  /** @param state The store's tables, clock and wake-ups. */
  constructor(private readonly state: MemoryState) {}

  /** {@inheritDoc BatchStore.enqueue} */
  enqueue(batch: NewBatch): Promise<EnqueueResult[]> {
    return atomically(() => {
      const { tables } = this.state;
      const now = this.state.time();
      if (tables.batches.has(batch.id)) {
        throw new ChokaQError(
          'CHOKAQ_DUPLICATE_JOB_ID',
          `A batch with id '${batch.id}' exists; nothing was enqueued`,
        );
      }
      const callbacks: [BatchCallbackKind, NewJob][] = BATCH_CALLBACK_KINDS.flatMap((kind) => {
        const job = batch.callbacks[kind];
        return job === undefined ? [] : [[kind, job] as [BatchCallbackKind, NewJob]];
      });
      const jobs = [...batch.members, ...callbacks.map(([, job]) => job)];
      const linked = batch.members.some(hasDependencies);
      if (linked) checkDependencies(tables, batch.members); // before anything is written
      const outcome = enqueueJobs(tables, jobs, now);
      for (const [, job] of callbacks) {
        const row = tables.hot.get(job.id);
        if (row !== undefined) row.state = 'awaiting';
      }
      tables.batches.insert(
        batch.id,
        batch.members.map((job) => job.id),
        Object.fromEntries(callbacks.map(([kind, job]) => [kind, job.id])),
        now,
      );
      if (linked) {
        const created = outcome.results.slice(0, batch.members.length);
        linkJobs(tables, linkedJobs(batch.members, created), now);
      }
      this.state.wake.notify([...new Set(batch.members.map((job) => job.queue))]);
      return outcome.results;
    });
  }

  /** {@inheritDoc BatchStore.get} */
  get(id: string): Promise<BatchInfo | null> {
    return atomically(() => this.state.tables.batches.get(id));
  }

  /** {@inheritDoc BatchStore.ofJob} */
  ofJob(jobId: string): Promise<BatchMembership | null> {
    return atomically(() => this.state.tables.batches.ofJob(jobId));
  }

  /** {@inheritDoc BatchStore.purge} */
  purge(limit: number): Promise<number> {
    return atomically(() => {
      const { tables } = this.state;
      const done = tables.batches.done(Math.max(1, Math.floor(limit)), (jobId) =>
        tables.hot.has(jobId),
      );
      for (const batch of done) {
        for (const jobId of batch.callbacks) {
          const row = tables.hot.get(jobId);
          if (row?.state === 'awaiting') tables.deleteHot(row);
        }
        tables.batches.delete(batch.id);
      }
      return done.length;
    });
  }
}
