/**
 * The queues capability over SQL ({@link QueueStore}): queue controls, counts and gauges per
 * queue, due jobs by type, concurrency-key usage and the per-second metric buckets.
 */
import type { DueTypeCount, KeyUsage, QueueGauges, QueueInfo, QueueStats } from '../model.js';
import type { MetricBucket, QueuePatch, QueueStore } from '../queue-store.js';
import {
  metricBucketOf,
  queueGaugesOf,
  queueInfoOf,
  queueStatsOf,
  toDate,
  toNumber,
} from './rows.js';
import { inOperatorTransaction, type SqlContext } from './sql-context.js';
import * as run from './statements.js';

/** Queue controls and what each queue holds, over SQL. */
export class SqlQueues implements QueueStore {
  constructor(private readonly context: SqlContext) {}

  async listQueues(): Promise<QueueInfo[]> {
    // Read every second by each worker (its paused queues): one kept connection, not the pool's.
    const db = await this.context.laneDb('upkeep');
    return (await run.listQueues(db, this.context.sql)).map(queueInfoOf);
  }

  async updateQueue(name: string, patch: QueuePatch): Promise<QueueInfo> {
    const db = await this.context.db();
    const [row] = await inOperatorTransaction(db, (tx) =>
      run.updateQueue(tx, this.context.sql, {
        name,
        setPaused: patch.paused !== undefined,
        paused: patch.paused ?? null,
        setActive: patch.active !== undefined,
        active: patch.active ?? null,
        setMaxWorkers: patch.maxWorkers !== undefined,
        maxWorkers: patch.maxWorkers ?? null,
        setZombieTimeout: patch.zombieTimeoutSeconds !== undefined,
        zombieTimeoutSeconds: patch.zombieTimeoutSeconds ?? null,
        setKeepSucceeded: patch.keepSucceeded !== undefined,
        keepSucceeded: patch.keepSucceeded ?? null,
        now: this.context.now(),
      }),
    );
    if (row === undefined) throw new Error(`updateQueue returned no row for ${name}`);
    // After the write, so a re-read that started before it never lands: the next claim re-reads.
    if (patch.maxWorkers !== undefined) this.context.capped.invalidate();
    return queueInfoOf(row);
  }

  async queueStats(): Promise<QueueStats[]> {
    const db = await this.context.db();
    return (await run.queueStats(db, this.context.sql)).map(queueStatsOf);
  }

  /** {@inheritDoc QueueStore.queueGauges} */
  async queueGauges(): Promise<QueueGauges[]> {
    const db = await this.context.db();
    return (await run.queueGauges(db, this.context.sql, { now: this.context.now() })).map(
      queueGaugesOf,
    );
  }

  /** {@inheritDoc QueueStore.dueByType} */
  async dueByType(queues: readonly string[], limit: number): Promise<DueTypeCount[]> {
    const db = await this.context.db();
    const rows = await run.dueByType(db, this.context.sql, {
      queues,
      limit,
      now: this.context.now(),
    });
    return rows.map((row) => ({
      queue: row.queue,
      type: row.type,
      due: toNumber(row.due),
      oldestDueAt: toDate(row.oldest_due_at),
    }));
  }

  /** {@inheritDoc QueueStore.keyUsage} */
  async keyUsage(filter: { queue?: string; limit: number }): Promise<KeyUsage[]> {
    const db = await this.context.db();
    const rows = await run.keyUsage(db, this.context.sql, {
      queue: filter.queue ?? null,
      limit: filter.limit,
    });
    return rows.map((row) => ({
      queue: row.queue,
      key: row.concurrency_key,
      limit: row.concurrency_limit,
      running: row.running,
      pending: row.pending,
    }));
  }

  async metricBuckets(since: Date): Promise<MetricBucket[]> {
    const db = await this.context.db();
    return (await run.metricBuckets(db, this.context.sql, { since })).map(metricBucketOf);
  }
}
