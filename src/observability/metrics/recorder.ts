/**
 * Turns what the engine does into metrics: it listens to the engine's own events (and takes the
 * claim and settle batch sizes the worker reports), keeps every tag within its budget, and hands
 * the figures to its sinks — the OpenTelemetry instruments always, the Prometheus registry once
 * one is asked for. Gauges are observations read when a sink collects: the runs of this process,
 * its circuits, and what the queues hold (one store query, cached for a second).
 */
import { errorClassOf } from '../../job/fingerprint.js';
import type { FailureReason } from '../../job/state.js';
import type { CircuitStats } from '../../runtime/circuit-breaker.js';
import type { ChokaQEvents, JobEventBase } from '../../runtime/events.js';
import type { QueueGauges } from '../../storage/model.js';
import { EVENT_METRICS, OBSERVED_METRICS, type MetricSpec } from './catalogue.js';
import { tagBudgets, type TagBudgets } from './tag-budget.js';

/** Tag values by tag name, within their budgets. */
export type Tags = Readonly<Record<string, string>>;

/** The tags of metrics without any (one object, so sinks find its series by identity). */
const NO_TAGS: Tags = Object.freeze({});

/** Where figures go. */
export interface MetricSink {
  /** Adds `value` to a counter. */
  add(spec: MetricSpec, value: number, tags: Tags): void;
  /** Records one value of a histogram. */
  record(spec: MetricSpec, value: number, tags: Tags): void;
}

/** One gauge value, read at collection time. */
export interface Observation {
  spec: MetricSpec;
  value: number;
  tags: Tags;
}

/** What the recorder reads for its gauges. */
export interface GaugeSource {
  /** Queue names of the handlers running in this process, one per run. */
  runningQueues(): Iterable<string>;
  circuits(): CircuitStats[];
  queueGauges(): Promise<QueueGauges[]>;
}

/** Reasons of deaths that are not a failing handler (the run was stopped or lost). */
const NOT_A_FAILURE: ReadonlySet<FailureReason> = new Set([
  'Cancelled',
  'Zombie',
  'HeartbeatFailure',
]);

/** Value of `chokaq.circuits.state` per state. */
const CIRCUIT_STATE_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

/** Gauges whose values under one tag set are merged by their worst rather than their sum. */
const MERGED_BY_MAX: ReadonlySet<MetricSpec> = new Set([
  OBSERVED_METRICS.lag,
  OBSERVED_METRICS.circuitState,
]);

/** How long one read of the queue gauges serves further collections, in ms. */
const GAUGE_CACHE_MS = 1000;

/** Queue and type pairs whose tags are kept for reuse; further pairs get fresh tags each time. */
const MAX_CACHED_TAGS = 2000;

/** Records the metrics of one ChokaQ instance. */
export class MetricsRecorder {
  private readonly sinks: MetricSink[] = [];
  private readonly budgets: TagBudgets;
  /** Tags of the job events by queue and type (the hot path reuses them; sinks key on them). */
  private readonly tagCache = new Map<string, Map<string, Tags>>();
  private cachedTags = 0;
  /** Tags of `chokaq.idempotency.claims` by outcome (a handful, each made once). */
  private readonly outcomeTags = new Map<string, Tags>();
  private readonly now: () => number;
  private gaugeRead: { at: number; result: Promise<QueueGauges[]> } | undefined;

  /** Listens to `events` from its first sink on: without one, a run costs it nothing. */
  constructor(
    private readonly events: ChokaQEvents,
    private readonly source: GaugeSource,
    options: { budgets?: TagBudgets; now?: () => number } = {},
  ) {
    this.budgets = options.budgets ?? tagBudgets();
    this.now = options.now ?? Date.now;
  }

  /** Sends every later figure to `sink` too. */
  addSink(sink: MetricSink): void {
    if (this.sinks.length === 0) this.listen(this.events);
    this.sinks.push(sink);
  }

  /** A claim returned `count` jobs. */
  claimed(count: number): void {
    this.record(EVENT_METRICS.claimBatch, count, NO_TAGS);
  }

  /** `count` claimed jobs like `job` went back: their rate bucket had no token for them. */
  throttled(job: JobEventBase, count: number): void {
    this.add(EVENT_METRICS.throttled, count, this.jobTags(job));
  }

  /** A settle batch wrote `count` settlements. */
  settled(count: number): void {
    this.record(EVENT_METRICS.settleBatch, count, NO_TAGS);
  }

  /**
   * The gauges' current values, one per gauge and tags: values that share tags (queues or types
   * past their budget, reported as `other`) are added up, or their worst taken for lag and
   * circuit state.
   */
  async observe(): Promise<Observation[]> {
    const out = new Map<string, Observation>();
    const put = (spec: MetricSpec, value: number, tags: Tags) => {
      const key = `${spec.name} ${JSON.stringify(tags)}`;
      const seen = out.get(key);
      if (seen === undefined) out.set(key, { spec, value, tags });
      else seen.value = MERGED_BY_MAX.has(spec) ? Math.max(seen.value, value) : seen.value + value;
    };
    for (const queue of this.source.runningQueues()) {
      put(OBSERVED_METRICS.active, 1, { queue: this.budgets.queue.value(queue) });
    }
    for (const circuit of this.source.circuits()) {
      put(OBSERVED_METRICS.circuitState, CIRCUIT_STATE_VALUE[circuit.state], {
        type: this.budgets.type.value(circuit.key),
      });
    }
    for (const gauge of await this.queueGauges()) {
      const tags = { queue: this.budgets.queue.value(gauge.queue) };
      const lag =
        gauge.oldestDueAt === null ? 0 : gauge.readAt.getTime() - gauge.oldestDueAt.getTime();
      put(OBSERVED_METRICS.due, gauge.due, tags);
      put(OBSERVED_METRICS.scheduled, gauge.scheduled, tags);
      put(OBSERVED_METRICS.awaiting, gauge.awaiting, tags);
      put(OBSERVED_METRICS.running, gauge.fetched + gauge.processing, tags);
      put(OBSERVED_METRICS.deadSize, gauge.dead, tags);
      put(OBSERVED_METRICS.lag, Math.max(0, lag), tags);
    }
    return [...out.values()];
  }

  /** The queue gauges, read at most once a second however many sinks collect. */
  private queueGauges(): Promise<QueueGauges[]> {
    const now = this.now();
    if (this.gaugeRead === undefined || now - this.gaugeRead.at >= GAUGE_CACHE_MS) {
      const result = this.source.queueGauges();
      // A failed read is not cached: the next collection tries again.
      result.catch(() => (this.gaugeRead = undefined));
      this.gaugeRead = { at: now, result };
    }
    return this.gaugeRead.result;
  }

  private listen(events: ChokaQEvents): void {
    events.on('job:enqueued', (e) => {
      if (e.created) this.add(EVENT_METRICS.enqueued, 1, this.jobTags(e));
    });
    events.on('job:started', (e) => {
      const tags = this.jobTags(e);
      this.add(EVENT_METRICS.started, 1, tags);
      this.record(EVENT_METRICS.queueLag, e.queueLagMs, tags);
    });
    events.on('job:succeeded', (e) => {
      const tags = this.jobTags(e);
      this.add(EVENT_METRICS.completed, 1, tags);
      this.record(EVENT_METRICS.duration, e.durationMs, tags);
    });
    events.on('job:retrying', (e) => {
      const tags = this.jobTags(e);
      this.add(EVENT_METRICS.retried, 1, tags);
      if (!e.lost) this.failed(tags, e.error);
    });
    events.on('job:dead', (e) => {
      const tags = this.jobTags(e);
      this.add(EVENT_METRICS.dead, 1, { ...tags, reason: this.budgets.reason.value(e.reason) });
      if (!NOT_A_FAILURE.has(e.reason)) this.failed(tags, e.error);
    });
    events.on('job:suspended', (e) => {
      this.add(EVENT_METRICS.suspended, 1, this.jobTags(e));
    });
    events.on('job:conflict', (e) => {
      this.add(EVENT_METRICS.conflicts, 1, {
        ...this.jobTags(e),
        transition: this.budgets.reason.value(e.step),
      });
    });
    events.on('worker:error', (e) => {
      if (e.where === 'heartbeat') this.add(EVENT_METRICS.heartbeatFailures, 1, NO_TAGS);
    });
    events.on('retention:purged', (e) => {
      this.add(EVENT_METRICS.retentionPurged, e.rows, { table: e.table });
    });
    events.on('idempotency:outcome', (e) => {
      let tags = this.outcomeTags.get(e.outcome);
      if (tags === undefined) {
        tags = Object.freeze({ outcome: this.budgets.reason.value(e.outcome) });
        this.outcomeTags.set(e.outcome, tags);
      }
      this.add(EVENT_METRICS.idempotencyClaims, 1, tags);
    });
    events.on('circuit:changed', (e) => {
      this.add(EVENT_METRICS.circuitEvents, 1, {
        type: this.budgets.type.value(e.key),
        state: this.budgets.reason.value(e.state),
        event: this.budgets.reason.value(e.event),
      });
    });
  }

  private failed(tags: Tags, error: string): void {
    this.add(EVENT_METRICS.failed, 1, {
      ...tags,
      error: this.budgets.error.value(errorClassOf(error)),
    });
  }

  /** The queue and type tags of a job event: one frozen object per pair, made once. */
  private jobTags(e: JobEventBase): Tags {
    const cached = this.tagCache.get(e.queue)?.get(e.type);
    if (cached !== undefined) return cached;
    const tags = Object.freeze({
      queue: this.budgets.queue.value(e.queue),
      type: this.budgets.type.value(e.type),
    });
    if (this.cachedTags < MAX_CACHED_TAGS) {
      const byType = this.tagCache.get(e.queue) ?? new Map<string, Tags>();
      this.tagCache.set(e.queue, byType.set(e.type, tags));
      this.cachedTags += 1;
    }
    return tags;
  }

  private add(spec: MetricSpec, value: number, tags: Tags): void {
    for (const sink of this.sinks) sink.add(spec, value, tags);
  }

  private record(spec: MetricSpec, value: number, tags: Tags): void {
    for (const sink of this.sinks) sink.record(spec, value, tags);
  }
}
