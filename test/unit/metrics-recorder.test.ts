import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { EVENT_METRICS, type MetricSpec } from '../../src/observability/metrics/catalogue.js';
import { OtelSink, otelSink } from '../../src/observability/metrics/otel-sink.js';
import { prometheusName } from '../../src/observability/metrics/prometheus-sink.js';
import {
  MetricsRecorder,
  type MetricSink,
  type Tags,
} from '../../src/observability/metrics/recorder.js';
import { TagBudget, tagBudgets } from '../../src/observability/metrics/tag-budget.js';
import { silentLogger } from '../../src/index.js';
import { ChokaQEvents } from '../../src/runtime/events.js';

/** A sink that keeps every figure. */
class ListSink implements MetricSink {
  readonly added: { name: string; value: number; tags: Tags }[] = [];
  readonly recorded: { name: string; value: number; tags: Tags }[] = [];
  add(spec: MetricSpec, value: number, tags: Tags): void {
    this.added.push({ name: spec.name, value, tags });
  }
  record(spec: MetricSpec, value: number, tags: Tags): void {
    this.recorded.push({ name: spec.name, value, tags });
  }
}

const noGauges = {
  runningQueues: () => [],
  circuits: () => [],
  queueGauges: () => Promise.resolve([]),
};

describe('tag budgets', () => {
  it('let the first N distinct values through, then report other; trim, cut and name blanks', () => {
    const budget = new TagBudget(2);
    expect(budget.value(' emails ')).toBe('emails');
    expect(budget.value('reports')).toBe('reports');
    expect(budget.value('third')).toBe('other');
    expect(budget.value('emails')).toBe('emails');
    expect(budget.value('   ')).toBe('unknown');
    expect(new TagBudget(5).value('x'.repeat(300))).toHaveLength(128);
  });
});

describe('metrics recorder', () => {
  it('keeps each tag family within its budget', () => {
    const events = new ChokaQEvents(silentLogger);
    const recorder = new MetricsRecorder(events, noGauges, {
      budgets: tagBudgets({ queue: 1, type: 1, error: 1, reason: 1 }),
    });
    const sink = new ListSink();
    recorder.addSink(sink);
    const base = { attempt: 1, delayMs: 0, lost: false };
    events.emit('job:retrying', {
      id: '1',
      queue: 'a',
      type: 't1',
      ...base,
      error: 'TypeError: x',
    });
    events.emit('job:retrying', {
      id: '2',
      queue: 'b',
      type: 't2',
      ...base,
      error: 'RangeError: y',
    });
    events.emit('job:dead', {
      id: '3',
      queue: 'a',
      type: 't1',
      attempt: 1,
      reason: 'Fatal',
      error: 'E',
    });
    events.emit('job:dead', {
      id: '4',
      queue: 'a',
      type: 't1',
      attempt: 1,
      reason: 'Timeout',
      error: 'E',
    });
    const failed = sink.added.filter((f) => f.name === EVENT_METRICS.failed.name);
    expect(failed.map((f) => f.tags)).toEqual([
      { queue: 'a', type: 't1', error: 'TypeError' },
      { queue: 'other', type: 'other', error: 'other' },
      { queue: 'a', type: 't1', error: 'other' },
      { queue: 'a', type: 't1', error: 'other' },
    ]);
    const dead = sink.added.filter((f) => f.name === EVENT_METRICS.dead.name);
    expect(dead.map((f) => f.tags.reason)).toEqual(['Fatal', 'other']);
  });

  it('counts a refunded (lost) run as retried, not failed; a cancel or zombie death is no failure', () => {
    const events = new ChokaQEvents(silentLogger);
    const recorder = new MetricsRecorder(events, noGauges);
    const sink = new ListSink();
    recorder.addSink(sink);
    const job = { id: '1', queue: 'q', type: 't', attempt: 1 };
    events.emit('job:retrying', { ...job, delayMs: 0, error: 'Worker shutdown', lost: true });
    events.emit('job:dead', { ...job, reason: 'Cancelled', error: 'Cancelled by x' });
    events.emit('job:dead', { ...job, reason: 'Zombie', error: 'no heartbeat' });
    const names = sink.added.map((f) => f.name);
    expect(names).toEqual([
      EVENT_METRICS.retried.name,
      EVENT_METRICS.dead.name,
      EVENT_METRICS.dead.name,
    ]);
  });

  it('listens to the engine only from its first sink on', () => {
    const events = new ChokaQEvents(silentLogger);
    const recorder = new MetricsRecorder(events, noGauges);
    const job = { id: '1', queue: 'q', type: 't', attempt: 1 };
    events.emit('job:succeeded', { ...job, durationMs: 5 });
    const sink = new ListSink();
    recorder.addSink(sink);
    events.emit('job:succeeded', { ...job, durationMs: 7 });
    recorder.addSink(new ListSink());
    events.emit('job:succeeded', { ...job, durationMs: 9 });
    expect(sink.recorded.filter((f) => f.name === EVENT_METRICS.duration.name)).toEqual([
      { name: EVENT_METRICS.duration.name, value: 7, tags: { queue: 'q', type: 't' } },
      { name: EVENT_METRICS.duration.name, value: 9, tags: { queue: 'q', type: 't' } },
    ]);
  });

  it('has no OpenTelemetry sink on the no-op global provider, and one on a real provider', async () => {
    const observe = () => Promise.resolve([]);
    expect(otelSink(undefined, '1.0.0', observe)).toBeNull();
    const reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 60_000,
    });
    const provider = new MeterProvider({ readers: [reader] });
    try {
      expect(otelSink(provider, '1.0.0', observe)).toBeInstanceOf(OtelSink);
      metrics.setGlobalMeterProvider(provider);
      expect(otelSink(undefined, '1.0.0', observe)).toBeInstanceOf(OtelSink);
    } finally {
      metrics.disable();
      await provider.shutdown();
    }
    expect(otelSink(undefined, '1.0.0', observe)).toBeNull();
  });

  it('reads the queue gauges at most once a second however often it is observed', async () => {
    let reads = 0;
    let now = 0;
    const recorder = new MetricsRecorder(
      new ChokaQEvents(silentLogger),
      {
        ...noGauges,
        queueGauges: () => {
          reads += 1;
          return Promise.resolve([]);
        },
      },
      { now: () => now },
    );
    await recorder.observe();
    await recorder.observe();
    now = 999;
    await recorder.observe();
    expect(reads).toBe(1);
    now = 1000;
    await recorder.observe();
    expect(reads).toBe(2);
  });
});

describe('metrics recorder gauges', () => {
  it('give one value per tag set: counts past the budget added up, lag and circuit state the worst', async () => {
    const readAt = new Date(10_000);
    const gauge = (queue: string, due: number, oldestDueAt: Date | null) => ({
      queue,
      paused: false,
      active: true,
      due,
      scheduled: 1,
      awaiting: 4,
      fetched: 0,
      processing: 2,
      dead: 3,
      oldestDueAt,
      succeededTotal: 0,
      failedTotal: 0,
      readAt,
    });
    const circuit = (key: string, state: 'closed' | 'open') => ({
      key,
      state,
      failureCount: 0,
      resetAt: null,
    });
    const recorder = new MetricsRecorder(
      new ChokaQEvents(silentLogger),
      {
        runningQueues: () => ['a', 'b', 'c', 'a'],
        circuits: () => [circuit('t1', 'closed'), circuit('t2', 'open'), circuit('t3', 'closed')],
        queueGauges: () =>
          Promise.resolve([
            gauge('a', 1, new Date(9_000)),
            gauge('b', 10, new Date(4_000)),
            gauge('c', 100, null),
          ]),
      },
      { budgets: tagBudgets({ queue: 1, type: 1, error: 1, reason: 1 }) },
    );
    const values = new Map(
      (await recorder.observe()).map((o) => [`${o.spec.name} ${JSON.stringify(o.tags)}`, o.value]),
    );
    expect(Object.fromEntries(values)).toEqual({
      'chokaq.workers.active {"queue":"a"}': 2,
      'chokaq.workers.active {"queue":"other"}': 2,
      'chokaq.circuits.state {"type":"t1"}': 0,
      'chokaq.circuits.state {"type":"other"}': 2,
      'chokaq.queue.due {"queue":"a"}': 1,
      'chokaq.queue.due {"queue":"other"}': 110,
      'chokaq.queue.scheduled {"queue":"a"}': 1,
      'chokaq.queue.scheduled {"queue":"other"}': 2,
      'chokaq.queue.awaiting {"queue":"a"}': 4,
      'chokaq.queue.awaiting {"queue":"other"}': 8,
      'chokaq.queue.running {"queue":"a"}': 2,
      'chokaq.queue.running {"queue":"other"}': 4,
      'chokaq.queue.dead {"queue":"a"}': 3,
      'chokaq.queue.dead {"queue":"other"}': 6,
      'chokaq.queue.lag {"queue":"a"}': 1000,
      'chokaq.queue.lag {"queue":"other"}': 6000,
    });
  });
});

describe('Prometheus names', () => {
  it('end counters in _total and report times in seconds', () => {
    expect(prometheusName(EVENT_METRICS.completed)).toBe('chokaq_jobs_completed_total');
    expect(prometheusName(EVENT_METRICS.duration)).toBe('chokaq_jobs_processing_duration_seconds');
    expect(prometheusName(EVENT_METRICS.claimBatch)).toBe('chokaq_worker_claim_batch_size');
  });
});

describe('docs/observability.md', () => {
  it('lists every metric by its OpenTelemetry name', async () => {
    const { readFile } = await import('node:fs/promises');
    const { ALL_METRICS } = await import('../../src/observability/metrics/catalogue.js');
    const doc = await readFile(new URL('../../docs/observability.md', import.meta.url), 'utf8');
    for (const spec of ALL_METRICS) expect(doc).toContain(`\`${spec.name}\``);
  });
});
