/**
 * Read models of the memory provider: job lists, per-queue stats and metric buckets. They return
 * stored rows or fresh aggregates; the store copies rows before handing them out.
 *
 * @internal
 */
import { FAILURE_REASON_CODE, type FailureReason, type HotState } from '../../job/state.js';
import type {
  ArchivedJob,
  DeadJob,
  DueTypeCount,
  HotJob,
  QueueGauges,
  QueueInfo,
  QueueStats,
} from '../model.js';
import type { MetricBucket } from '../queue-store.js';
import type { Tables } from './tables.js';

/** Newest first by `time`, then id descending, so equal times still list in a stable order. */
function newestFirst<T extends { id: string }>(time: (row: T) => Date): (a: T, b: T) => number {
  return (a, b) => {
    const byTime = time(b).getTime() - time(a).getTime();
    if (byTime !== 0) return byTime;
    return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
  };
}

/** The first `limit` rows of `rows` that pass `keep`, sorted by `order`. */
function pick<T>(
  rows: Iterable<T>,
  keep: (row: T) => boolean,
  order: (a: T, b: T) => number,
  limit: number,
): T[] {
  if (limit < 1) return [];
  const kept: T[] = [];
  for (const row of rows) if (keep(row)) kept.push(row);
  return kept.sort(order).slice(0, limit);
}

/** Hot rows, newest `createdAt` first. */
export function listHotRows(
  tables: Tables,
  filter: { queue?: string; state?: HotState; limit: number },
): HotJob[] {
  return pick(
    tables.hot.values(),
    (row) =>
      (filter.queue === undefined || row.queue === filter.queue) &&
      (filter.state === undefined || row.state === filter.state),
    newestFirst((row) => row.createdAt),
    filter.limit,
  );
}

/** Archive rows, newest `finishedAt` first. */
export function listArchiveRows(
  tables: Tables,
  filter: { queue?: string; limit: number },
): ArchivedJob[] {
  return pick(
    tables.archive.values(),
    (row) => filter.queue === undefined || row.queue === filter.queue,
    newestFirst((row) => row.finishedAt),
    filter.limit,
  );
}

/** DLQ rows, newest `failedAt` first. */
export function listDeadRows(
  tables: Tables,
  filter: { queue?: string; reason?: FailureReason; limit: number },
): DeadJob[] {
  return pick(
    tables.dead.values(),
    (row) =>
      (filter.queue === undefined || row.queue === filter.queue) &&
      (filter.reason === undefined || row.reason === filter.reason),
    newestFirst((row) => row.failedAt),
    filter.limit,
  );
}

/** Queue rows ordered by name (code-point order). */
export function sortedQueues(tables: Tables): QueueInfo[] {
  return [...tables.queues.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
}

/** Counts from the three tables plus lifetime counters, for every queue row, ordered by name. */
export function queueStatsOf(tables: Tables): QueueStats[] {
  const stats = new Map<string, QueueStats>();
  for (const queue of sortedQueues(tables)) {
    const counters = tables.counters.get(queue.name);
    stats.set(queue.name, {
      queue: queue.name,
      pending: 0,
      awaiting: 0,
      scheduled: 0,
      fetched: 0,
      processing: 0,
      archived: 0,
      dead: 0,
      succeededTotal: counters?.succeededTotal ?? 0,
      failedTotal: counters?.failedTotal ?? 0,
      retriedTotal: counters?.retriedTotal ?? 0,
      lastActivityAt: counters?.lastActivityAt ? new Date(counters.lastActivityAt) : null,
    });
  }
  for (const row of tables.hot.values()) {
    const entry = stats.get(row.queue);
    if (entry !== undefined) entry[row.state] += 1;
  }
  for (const row of tables.archive.values()) {
    const entry = stats.get(row.queue);
    if (entry !== undefined) entry.archived += 1;
  }
  for (const row of tables.dead.values()) {
    const entry = stats.get(row.queue);
    if (entry !== undefined) entry.dead += 1;
  }
  return [...stats.values()];
}

/** Sort rank of a bucket's reason: successes (`null`) first, then by stored reason code. */
function reasonRank(reason: FailureReason | null): number {
  return reason === null ? -1 : FAILURE_REASON_CODE[reason];
}

/** Buckets starting at or after `since`: newest first, then queue, outcome and reason. */
export function bucketsSince(tables: Tables, since: Date): MetricBucket[] {
  const from = since.getTime();
  const rows = [...tables.buckets.values()].filter((b) => b.bucketStart.getTime() >= from);
  return rows.sort((a, b) => {
    const byTime = b.bucketStart.getTime() - a.bucketStart.getTime();
    if (byTime !== 0) return byTime;
    if (a.queue !== b.queue) return a.queue < b.queue ? -1 : 1;
    if (a.outcome !== b.outcome) return a.outcome === 'succeeded' ? -1 : 1;
    return reasonRank(a.reason) - reasonRank(b.reason);
  });
}

/** Due pending jobs of `queues` by type, from at most `limit` rows (see `QueueStore.dueByType`). */
export function dueByTypeOf(
  tables: Tables,
  now: Date,
  queues: readonly string[],
  limit: number,
): DueTypeCount[] {
  const wanted = new Set(queues);
  const counts = new Map<string, DueTypeCount>();
  let read = 0;
  for (const row of tables.hot.values()) {
    if (read >= limit) break;
    if (row.state !== 'pending' || !wanted.has(row.queue) || row.runAt > now) continue;
    read += 1;
    const key = `${row.queue}\u0000${row.type}`;
    const entry = counts.get(key) ?? {
      queue: row.queue,
      type: row.type,
      due: 0,
      oldestDueAt: new Date(row.runAt),
    };
    entry.due += 1;
    if (row.runAt < entry.oldestDueAt) entry.oldestDueAt = new Date(row.runAt);
    counts.set(key, entry);
  }
  return [...counts.values()].sort((a, b) =>
    a.queue === b.queue ? (a.type < b.type ? -1 : 1) : a.queue < b.queue ? -1 : 1,
  );
}

/** What each queue holds now (see `QueueStore.queueGauges`), for every queue row, ordered by name. */
export function queueGaugesOf(tables: Tables, now: Date): QueueGauges[] {
  const gauges = new Map<string, QueueGauges>();
  for (const queue of sortedQueues(tables)) {
    gauges.set(queue.name, {
      queue: queue.name,
      paused: queue.paused,
      active: queue.active,
      due: 0,
      scheduled: 0,
      awaiting: 0,
      fetched: 0,
      processing: 0,
      dead: 0,
      oldestDueAt: null,
      succeededTotal: tables.counters.get(queue.name)?.succeededTotal ?? 0,
      failedTotal: tables.counters.get(queue.name)?.failedTotal ?? 0,
      readAt: new Date(now),
    });
  }
  for (const row of tables.hot.values()) {
    const entry = gauges.get(row.queue);
    if (entry === undefined) continue;
    if (row.state === 'fetched' || row.state === 'processing') entry[row.state] += 1;
    // An awaiting job is neither due nor scheduled (it is in no claim or promoter index).
    else if (row.state === 'awaiting') entry.awaiting += 1;
    else if (row.runAt.getTime() > now.getTime()) entry.scheduled += 1;
    else {
      entry.due += 1;
      if (entry.oldestDueAt === null || row.runAt < entry.oldestDueAt)
        entry.oldestDueAt = new Date(row.runAt);
    }
  }
  for (const group of tables.groups.values()) {
    const entry = gauges.get(group.queue);
    if (entry !== undefined) entry.dead += group.count;
  }
  return [...gauges.values()];
}
