/**
 * What `chokaq status` and The Deck's overview show: per queue what it holds now (one gauge
 * query), its throughput and failure rate over the last minute and five minutes (the per-second
 * metric buckets), the largest DLQ error groups, the worker processes alive, and flow control:
 * the busiest concurrency keys and the most throttled rate buckets.
 */
import { PRESENCE_ALIVE_MS } from '../runtime/presence.js';
import type { ErrorGroup, KeyUsage, WorkerPresence } from '../storage/model.js';
import type { RateBucket } from '../storage/rate-limits.js';
import type { MetricBucket } from '../storage/queue-store.js';
import type { Store } from '../storage/store.js';

/** Finished jobs over a window. */
export interface Rate {
  succeeded: number;
  /** Jobs that went to the DLQ. */
  failed: number;
  /** (succeeded + failed) per second over the window. */
  jobsPerSecond: number;
  /** failed ÷ (succeeded + failed); `null` when nothing finished. */
  failureRate: number | null;
}

/** One queue in a {@link StatusReport}. */
export interface QueueStatus {
  queue: string;
  paused: boolean;
  active: boolean;
  due: number;
  scheduled: number;
  /** Claimed or running. */
  running: number;
  /** How long the longest-waiting due job has been due, in ms (0: none due). */
  lagMs: number;
  dead: number;
  lastMinute: Rate;
  lastFiveMinutes: Rate;
  /** Lifetime totals: jobs that ever succeeded, and that ever went to the DLQ. */
  succeededTotal: number;
  failedTotal: number;
}

/** The state of every queue, the top error groups and the workers alive. */
export interface StatusReport {
  /** When it was read (store clock). */
  at: Date;
  queues: QueueStatus[];
  /** The five largest DLQ error groups. */
  errorGroups: ErrorGroup[];
  /** Worker processes seen within the last 30 seconds. */
  workers: WorkerPresence[];
  /**
   * Circuits that are not closed in any of those workers, by job type and state (a circuit is
   * per process: one type may be open in one worker and closed in another), sorted by type.
   */
  circuits: CircuitStatus[];
  /** The five busiest concurrency keys (running, then pending), with their limits. */
  keys: KeyUsage[];
  /** The five most throttled rate buckets, with their limits, tokens and blocks. */
  rateBuckets: RateBucket[];
}

/** A circuit that is not closed, and the workers where it is in that state. */
export interface CircuitStatus {
  /** The job type key (in lower case, as circuits are keyed). */
  type: string;
  state: 'open' | 'half-open';
  /** Ids of the workers whose circuit of `type` is in `state`. */
  workers: string[];
}

/** The windows of a report, in seconds. */
const MINUTE_S = 60;
const FIVE_MINUTES_S = 300;

/** Reads a {@link StatusReport}. */
export async function statusReport(store: Store): Promise<StatusReport> {
  const gauges = await store.queues.queueGauges();
  const at = gauges[0]?.readAt ?? (await store.cluster.now());
  const [buckets, errorGroups, workers, keys, rateBuckets] = await Promise.all([
    store.queues.metricBuckets(new Date(at.getTime() - FIVE_MINUTES_S * 1000)),
    store.operator.errorGroups({ limit: 5 }),
    store.cluster.listWorkers(PRESENCE_ALIVE_MS),
    store.queues.keyUsage({ limit: 5 }),
    store.rateLimits.list(5),
  ]);
  const rate = (queue: string, seconds: number): Rate => rateOf(buckets, queue, at, seconds);
  return {
    at,
    queues: gauges.map((g) => ({
      queue: g.queue,
      paused: g.paused,
      active: g.active,
      due: g.due,
      scheduled: g.scheduled,
      running: g.fetched + g.processing,
      lagMs: g.oldestDueAt === null ? 0 : Math.max(0, g.readAt.getTime() - g.oldestDueAt.getTime()),
      dead: g.dead,
      lastMinute: rate(g.queue, MINUTE_S),
      lastFiveMinutes: rate(g.queue, FIVE_MINUTES_S),
      succeededTotal: g.succeededTotal,
      failedTotal: g.failedTotal,
    })),
    errorGroups,
    workers,
    circuits: circuitsOf(workers),
    keys,
    rateBuckets,
  };
}

/** A queue's finished jobs in the `seconds` before `at`. */
function rateOf(buckets: readonly MetricBucket[], queue: string, at: Date, seconds: number): Rate {
  const since = at.getTime() - seconds * 1000;
  let succeeded = 0;
  let failed = 0;
  for (const bucket of buckets) {
    if (bucket.queue !== queue || bucket.bucketStart.getTime() < since) continue;
    if (bucket.outcome === 'succeeded') succeeded += bucket.count;
    else failed += bucket.count;
  }
  const finished = succeeded + failed;
  return {
    succeeded,
    failed,
    jobsPerSecond: finished / seconds,
    failureRate: finished === 0 ? null : failed / finished,
  };
}

/** The circuits of `workers` that are not closed, one entry per type and state. */
function circuitsOf(workers: readonly WorkerPresence[]): CircuitStatus[] {
  const byKey = new Map<string, CircuitStatus>();
  for (const worker of workers) {
    for (const { type, state } of worker.circuits) {
      const key = `${type}\u0000${state}`;
      const entry = byKey.get(key) ?? { type, state, workers: [] };
      entry.workers.push(worker.id);
      byKey.set(key, entry);
    }
  }
  return [...byKey.values()].sort((a, b) =>
    a.type === b.type ? a.state.localeCompare(b.state) : a.type.localeCompare(b.type),
  );
}

/** Finished jobs of one interval of a {@link ThroughputSeries}. */
export interface ThroughputPoint {
  /** The interval's start. */
  at: Date;
  succeeded: number;
  /** Jobs that went to the DLQ. */
  failed: number;
}

/** Finished jobs per interval over a recent span: what The Deck charts. */
export interface ThroughputSeries {
  /** Length of each interval, in seconds. */
  stepSeconds: number;
  /** Oldest first, one per interval, intervals without jobs at zero. */
  points: ThroughputPoint[];
}

/** Most points of a series. */
const MAX_POINTS = 120;

/**
 * The finished jobs of the `minutes` before now (store clock), of every queue or of `queue`,
 * in at most 120 equal intervals, read from the per-second metric buckets.
 */
export async function throughputSeries(
  store: Store,
  minutes: number,
  queue?: string,
): Promise<ThroughputSeries> {
  const span = minutes * 60;
  const stepSeconds = Math.max(1, Math.ceil(span / MAX_POINTS));
  const now = (await store.cluster.now()).getTime();
  // The intervals end at the current second, so the newest point is the second now running.
  const end = Math.floor(now / 1000) * 1000 + 1000;
  const count = Math.ceil(span / stepSeconds);
  const start = end - count * stepSeconds * 1000;
  const points: ThroughputPoint[] = Array.from({ length: count }, (_, k) => ({
    at: new Date(start + k * stepSeconds * 1000),
    succeeded: 0,
    failed: 0,
  }));
  for (const bucket of await store.queues.metricBuckets(new Date(start))) {
    if (queue !== undefined && bucket.queue !== queue) continue;
    const point = points[Math.floor((bucket.bucketStart.getTime() - start) / (stepSeconds * 1000))];
    if (point === undefined) continue;
    if (bucket.outcome === 'succeeded') point.succeeded += bucket.count;
    else point.failed += bucket.count;
  }
  return { stepSeconds, points };
}
