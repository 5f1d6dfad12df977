/**
 * ChokaQ's own Prometheus text against prom-client's, the ecosystem's reference: the same figures
 * recorded into both must expose the same families (HELP and TYPE lines) and the same samples.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  EVENT_METRICS,
  OBSERVED_METRICS,
  type MetricSpec,
} from '../../src/observability/metrics/catalogue.js';
import { prometheusName, PrometheusSink } from '../../src/observability/metrics/prometheus-sink.js';
import { PROMETHEUS_CONTENT_TYPE } from '../../src/observability/metrics/prometheus-text.js';
import type { Observation, Tags } from '../../src/observability/metrics/recorder.js';

const inSeconds = (spec: MetricSpec, value: number) => (spec.unit === 'ms' ? value / 1000 : value);

/** The same catalogue on a prom-client registry. */
class Reference {
  readonly registry = new Registry();
  private readonly counters = new Map<MetricSpec, Counter>();
  private readonly histograms = new Map<MetricSpec, Histogram>();
  private readonly gauges = new Map<MetricSpec, Gauge>();

  constructor() {
    const registers = [this.registry];
    for (const spec of Object.values(EVENT_METRICS) as MetricSpec[]) {
      const common = {
        name: prometheusName(spec),
        help: spec.description,
        labelNames: [...spec.tags],
        registers,
      };
      if (spec.kind === 'counter') this.counters.set(spec, new Counter(common));
      else {
        const buckets = (spec.buckets ?? []).map((b) => inSeconds(spec, b));
        this.histograms.set(spec, new Histogram({ ...common, buckets }));
      }
    }
    for (const spec of Object.values(OBSERVED_METRICS) as MetricSpec[]) {
      const name = prometheusName(spec);
      const labelNames = [...spec.tags];
      this.gauges.set(spec, new Gauge({ name, help: spec.description, labelNames, registers }));
    }
  }

  add(spec: MetricSpec, value: number, tags: Tags): void {
    this.counters.get(spec)!.inc(tags, value);
  }

  record(spec: MetricSpec, value: number, tags: Tags): void {
    this.histograms.get(spec)!.observe(tags, inSeconds(spec, value));
  }

  text(observations: Observation[]): Promise<string> {
    for (const o of observations) this.gauges.get(o.spec)!.set(o.tags, inSeconds(o.spec, o.value));
    return this.registry.metrics();
  }
}

/** A text's comment lines and its samples by name and (sorted) labels. */
function parse(text: string): { comments: Set<string>; samples: Map<string, number> } {
  const comments = new Set<string>();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      comments.add(line);
      continue;
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(match, `a sample line: ${line}`).not.toBeNull();
    const [, name, labels = '', value] = match!;
    const pairs = [...labels.matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((m) => m[0]);
    expect(pairs.join(','), `labels of ${line}`).toBe(labels);
    const key = `${name}{${pairs.sort().join(',')}}`;
    expect(samples.has(key), `one sample per series: ${key}`).toBe(false);
    samples.set(key, value === '+Inf' ? Infinity : Number(value));
  }
  return { comments, samples };
}

describe('PrometheusSink', () => {
  it('exposes what prom-client exposes for the same figures', async () => {
    const { enqueued, failed, duration, queueLag, claimBatch, heartbeatFailures } = EVENT_METRICS;
    const odd = { queue: 'we"ird\\name\nhere', type: 't.v1' };
    const observations: Observation[] = [
      { spec: OBSERVED_METRICS.due, value: 7, tags: { queue: 'a' } },
      { spec: OBSERVED_METRICS.lag, value: 1500, tags: { queue: 'a' } },
      { spec: OBSERVED_METRICS.due, value: 0, tags: { queue: odd.queue } },
    ];
    const ours = new PrometheusSink(() => Promise.resolve(observations));
    const reference = new Reference();
    const both = {
      add: (spec: MetricSpec, value: number, tags: Tags) => {
        ours.add(spec, value, tags);
        reference.add(spec, value, tags);
      },
      record: (spec: MetricSpec, value: number, tags: Tags) => {
        ours.record(spec, value, tags);
        reference.record(spec, value, tags);
      },
    };
    const shared = Object.freeze({ queue: 'a', type: 'x.v1' });
    for (let k = 0; k < 50; k++) {
      both.add(enqueued, 1, shared);
      // A fresh object with the same values lands in the same series.
      both.add(enqueued, 2, { queue: 'a', type: 'x.v1' });
      both.record(duration, k * 37, shared); // 0 … 1.8 s, many on a bucket's bound (le is ≤)
      both.record(queueLag, k === 49 ? 10 ** 9 : 5, { queue: 'b', type: 'y.v1' }); // and above all
    }
    both.add(failed, 1, { ...odd, error: 'TypeError' });
    both.add(heartbeatFailures, 3, {});
    both.record(claimBatch, 32, {});

    const text = await ours.text();
    const got = parse(text);
    const want = parse(await reference.text(observations));
    expect(got.comments).toEqual(want.comments);
    expect(got.samples).toEqual(want.samples);
    expect(text.endsWith('\n')).toBe(true);
    expect(got.samples.get('chokaq_jobs_enqueued_total{queue="a",type="x.v1"}')).toBe(150);
    expect(
      got.samples.get(
        'chokaq_jobs_failed_total{error="TypeError",queue="we\\"ird\\\\name\\nhere",type="t.v1"}',
      ),
    ).toBe(1);
    expect(ours.contentType).toBe(PROMETHEUS_CONTENT_TYPE);
    expect(ours.contentType).toBe(reference.registry.contentType);
  });

  it('exposes every family, and metrics without labels at zero, before anything happened', async () => {
    const ours = new PrometheusSink(() => Promise.resolve([]));
    const got = parse(await ours.text());
    const want = parse(await new Reference().text([]));
    expect(got.comments).toEqual(want.comments);
    expect(got.samples).toEqual(want.samples);
    expect(got.samples.get('chokaq_jobs_heartbeat_failures_total{}')).toBe(0);
    expect(got.samples.get('chokaq_worker_claim_batch_size_count{}')).toBe(0);
  });

  it('renders 10,000 series of one family without overflowing the stack', async () => {
    const ours = new PrometheusSink(() => Promise.resolve([]));
    for (let k = 0; k < 10_000; k++) {
      ours.record(EVENT_METRICS.duration, 20, { queue: 'q', type: `t${k}` });
      ours.add(EVENT_METRICS.enqueued, 1, { queue: 'q', type: `t${k}` });
    }
    // Checked line by line without parse(): its expect per line would take seconds here.
    const lines = (await ours.text()).split('\n');
    expect(lines).toContain('chokaq_jobs_enqueued_total{queue="q",type="t9999"} 1');
    expect(lines).toContain('chokaq_jobs_processing_duration_seconds_count{queue="q",type="t0"} 1');
    const counts = lines.filter((l) =>
      l.startsWith('chokaq_jobs_processing_duration_seconds_count'),
    );
    expect(counts).toHaveLength(10_000);
  });

  it('skips non-finite observations, which would poison the sum, without throwing', async () => {
    const ours = new PrometheusSink(() => Promise.resolve([]));
    const tags = { queue: 'q', type: 't' };
    for (const bad of [NaN, Infinity, -Infinity]) {
      expect(() => ours.record(EVENT_METRICS.duration, bad, tags)).not.toThrow();
    }
    ours.record(EVENT_METRICS.duration, 1500, tags);
    const samples = parse(await ours.text()).samples;
    const series = '{queue="q",type="t"}';
    expect(samples.get(`chokaq_jobs_processing_duration_seconds_sum${series}`)).toBe(1.5);
    expect(samples.get(`chokaq_jobs_processing_duration_seconds_count${series}`)).toBe(1);
  });
});
