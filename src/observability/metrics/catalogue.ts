/**
 * Every metric ChokaQ records, once: its OpenTelemetry name, kind, unit, description and tags.
 * The OpenTelemetry instruments and the Prometheus endpoint are both made from this list, so the
 * two never disagree; docs/observability.md lists it for users. Names are a stable contract.
 */

/** How a metric is recorded. */
export type MetricKind = 'counter' | 'histogram' | 'gauge';

/** One metric of the catalogue. */
export interface MetricSpec {
  /** OpenTelemetry instrument name (meter `chokaq`); Prometheus replaces dots by underscores. */
  name: string;
  kind: MetricKind;
  /** UCUM unit: `ms` for times (Prometheus reports seconds), `{job}` and such for counts. */
  unit: string;
  description: string;
  /** Tag (attribute, label) names, each limited by its family's budget (see tag-budget.ts). */
  tags: readonly string[];
  /** Histogram bucket boundaries, in the metric's unit. */
  buckets?: readonly number[];
}

/** Bucket boundaries of job times, in ms: 5 ms to 5 minutes. */
const TIME_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 300_000];

/** Bucket boundaries of batch sizes, in jobs. */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000];

/** Recorded as things happen in this process. */
export const EVENT_METRICS = {
  enqueued: {
    name: 'chokaq.jobs.enqueued',
    kind: 'counter',
    unit: '{job}',
    description: 'Jobs written by enqueue calls of this process',
    tags: ['queue', 'type'],
  },
  started: {
    name: 'chokaq.jobs.started',
    kind: 'counter',
    unit: '{job}',
    description: 'Handler runs started (one per attempt)',
    tags: ['queue', 'type'],
  },
  completed: {
    name: 'chokaq.jobs.completed',
    kind: 'counter',
    unit: '{job}',
    description: 'Jobs that succeeded and were archived',
    tags: ['queue', 'type'],
  },
  failed: {
    name: 'chokaq.jobs.failed',
    kind: 'counter',
    unit: '{run}',
    description: 'Handler runs that failed (threw or timed out), whether retried or dead',
    tags: ['queue', 'type', 'error'],
  },
  retried: {
    name: 'chokaq.jobs.retried',
    kind: 'counter',
    unit: '{job}',
    description: 'Jobs scheduled to run again (failed runs, and runs refunded at shutdown)',
    tags: ['queue', 'type'],
  },
  suspended: {
    name: 'chokaq.jobs.suspended',
    kind: 'counter',
    unit: '{run}',
    description: 'Runs that gave their job back in a durable sleep or event wait',
    tags: ['queue', 'type'],
  },
  dead: {
    name: 'chokaq.jobs.dlq',
    kind: 'counter',
    unit: '{job}',
    description: 'Jobs moved to the dead-letter queue by this process, by failure reason',
    tags: ['queue', 'type', 'reason'],
  },
  duration: {
    name: 'chokaq.jobs.processing_duration',
    kind: 'histogram',
    unit: 'ms',
    description: 'Handler time of succeeded runs',
    tags: ['queue', 'type'],
    buckets: TIME_BUCKETS_MS,
  },
  queueLag: {
    name: 'chokaq.jobs.queue_lag',
    kind: 'histogram',
    unit: 'ms',
    description: 'Time from when a job was due to when its run started',
    tags: ['queue', 'type'],
    buckets: TIME_BUCKETS_MS,
  },
  throttled: {
    name: 'chokaq.jobs.rate_throttled',
    kind: 'counter',
    unit: '{job}',
    description: 'Claimed jobs put back because their rate bucket had no token for them',
    tags: ['queue', 'type'],
  },
  conflicts: {
    name: 'chokaq.jobs.state_transition_conflicts',
    kind: 'counter',
    unit: '{write}',
    description: 'Guarded writes that changed nothing: the lease was lost or the job moved',
    tags: ['queue', 'type', 'transition'],
  },
  heartbeatFailures: {
    name: 'chokaq.jobs.heartbeat_failures',
    kind: 'counter',
    unit: '{write}',
    description: 'Heartbeat writes that failed',
    tags: [],
  },
  claimBatch: {
    name: 'chokaq.worker.claim_batch_size',
    kind: 'histogram',
    unit: '{job}',
    description: 'Jobs returned by each claim',
    tags: [],
    buckets: BATCH_BUCKETS,
  },
  settleBatch: {
    name: 'chokaq.worker.settle_batch_size',
    kind: 'histogram',
    unit: '{job}',
    description: 'Settlements written by each settle batch',
    tags: [],
    buckets: BATCH_BUCKETS,
  },
  retentionPurged: {
    name: 'chokaq.retention.purged',
    kind: 'counter',
    unit: '{row}',
    description: 'Rows deleted by retention passes of this process, by table',
    tags: ['table'],
  },
  idempotencyClaims: {
    name: 'chokaq.idempotency.claims',
    kind: 'counter',
    unit: '{decision}',
    description: 'Decisions of the idempotency middleware (claimed, completed, released, …)',
    tags: ['outcome'],
  },
  circuitEvents: {
    name: 'chokaq.circuits.events',
    kind: 'counter',
    unit: '{event}',
    description: 'Circuit breaker events (opened, closed, half_opened, rejected, …)',
    tags: ['type', 'state', 'event'],
  },
} as const satisfies Record<string, MetricSpec>;

/** Read when metrics are collected: this process's state, and what the queues hold. */
export const OBSERVED_METRICS = {
  active: {
    name: 'chokaq.workers.active',
    kind: 'gauge',
    unit: '{job}',
    description: 'Handlers running in this process',
    tags: ['queue'],
  },
  circuitState: {
    name: 'chokaq.circuits.state',
    kind: 'gauge',
    unit: '1',
    description:
      'State of each circuit breaker seen by this process: 0 closed, 1 half-open, 2 open',
    tags: ['type'],
  },
  due: {
    name: 'chokaq.queue.due',
    kind: 'gauge',
    unit: '{job}',
    description:
      'Waiting jobs that are due: pending, or scheduled and not yet promoted (all processes)',
    tags: ['queue'],
  },
  scheduled: {
    name: 'chokaq.queue.scheduled',
    kind: 'gauge',
    unit: '{job}',
    description: 'Scheduled jobs due later (all processes)',
    tags: ['queue'],
  },
  awaiting: {
    name: 'chokaq.queue.awaiting',
    kind: 'gauge',
    unit: '{job}',
    description: 'Jobs waiting for their dependencies, neither due nor scheduled (all processes)',
    tags: ['queue'],
  },
  running: {
    name: 'chokaq.queue.running',
    kind: 'gauge',
    unit: '{job}',
    description: 'Jobs claimed or running (all processes)',
    tags: ['queue'],
  },
  deadSize: {
    name: 'chokaq.queue.dead',
    kind: 'gauge',
    unit: '{job}',
    description: 'Jobs in the dead-letter queue',
    tags: ['queue'],
  },
  lag: {
    name: 'chokaq.queue.lag',
    kind: 'gauge',
    unit: 'ms',
    description: 'How long the longest-waiting due job has been due (0: none due)',
    tags: ['queue'],
  },
} as const satisfies Record<string, MetricSpec>;

/** Every metric, for documentation and tests. */
export const ALL_METRICS: readonly MetricSpec[] = [
  ...Object.values(EVENT_METRICS),
  ...Object.values(OBSERVED_METRICS),
];
