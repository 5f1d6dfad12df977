/**
 * The queues capability of the memory provider: queue controls, counts, gauges, due jobs by type,
 * concurrency-key usage and metric buckets, over the store's shared tables.
 *
 * @internal Reach it through `memory().queues`.
 */
import type { DueTypeCount, KeyUsage, QueueGauges, QueueInfo, QueueStats } from '../model.js';
import type { MetricBucket, QueuePatch, QueueStore } from '../queue-store.js';
import { upsertQueue } from './admin.js';
import { copyBucket, copyQueue } from './copy.js';
import { keyUsageOf } from './key-usage.js';
import { bucketsSince, dueByTypeOf, queueGaugesOf, queueStatsOf, sortedQueues } from './reads.js';
import { atomically, type MemoryState } from './state.js';

/** The memory {@link QueueStore}. */
export class MemoryQueues implements QueueStore {
  /** @param state The store's tables and clock. */
  constructor(private readonly state: MemoryState) {}

  /** {@inheritDoc QueueStore.listQueues} */
  listQueues(): Promise<QueueInfo[]> {
    return atomically(() => sortedQueues(this.state.tables).map(copyQueue));
  }

  /** {@inheritDoc QueueStore.updateQueue} */
  updateQueue(name: string, patch: QueuePatch): Promise<QueueInfo> {
    return atomically(() =>
      copyQueue(upsertQueue(this.state.tables, name, patch, this.state.time())),
    );
  }

  /** {@inheritDoc QueueStore.queueStats} */
  queueStats(): Promise<QueueStats[]> {
    return atomically(() => queueStatsOf(this.state.tables));
  }

  /** {@inheritDoc QueueStore.queueGauges} */
  queueGauges(): Promise<QueueGauges[]> {
    return atomically(() => queueGaugesOf(this.state.tables, this.state.time()));
  }

  /** {@inheritDoc QueueStore.dueByType} */
  dueByType(queues: readonly string[], limit: number): Promise<DueTypeCount[]> {
    return atomically(() => dueByTypeOf(this.state.tables, this.state.time(), queues, limit));
  }

  /** {@inheritDoc QueueStore.keyUsage} */
  keyUsage(filter: { queue?: string; limit: number }): Promise<KeyUsage[]> {
    return atomically(() => keyUsageOf(this.state.tables, filter));
  }

  /** {@inheritDoc QueueStore.metricBuckets} */
  metricBuckets(since: Date): Promise<MetricBucket[]> {
    return atomically(() => bucketsSince(this.state.tables, since).map(copyBucket));
  }
}
