/**
 * The Prometheus side of the metrics: a prom-client registry of this ChokaQ instance alone (not
 * prom-client's global one), made from the catalogue with Prometheus' naming — dots become
 * underscores, counters end in `_total`, times are reported in seconds (`_seconds`).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { EVENT_METRICS, OBSERVED_METRICS, type MetricSpec } from './catalogue.js';
import type { MetricSink, Observation, Tags } from './recorder.js';

/** The Prometheus name of a metric. */
export function prometheusName(spec: MetricSpec): string {
  const base = spec.name.replaceAll('.', '_');
  if (spec.kind === 'counter') return `${base}_total`;
  return spec.unit === 'ms' ? `${base}_seconds` : base;
}

/** A value in the unit Prometheus reports (seconds for times). */
function scaled(spec: MetricSpec, value: number): number {
  return spec.unit === 'ms' ? value / 1000 : value;
}

/** A {@link MetricSink} over a prom-client registry; {@link PrometheusSink.text} renders it. */
export class PrometheusSink implements MetricSink {
  private readonly registry = new Registry();
  private readonly counters = new Map<MetricSpec, Counter>();
  private readonly histograms = new Map<MetricSpec, Histogram>();
  private readonly gauges = new Map<string, Gauge>();

  /** @param observe Read once per scrape for every gauge. */
  constructor(private readonly observe: () => Promise<Observation[]>) {
    const registers = [this.registry];
    for (const spec of Object.values(EVENT_METRICS) as MetricSpec[]) {
      const common = {
        name: prometheusName(spec),
        help: spec.description,
        labelNames: [...spec.tags],
        registers,
      };
      if (spec.kind === 'counter') this.counters.set(spec, new Counter(common));
      else
        this.histograms.set(
          spec,
          new Histogram({
            ...common,
            ...(spec.buckets ? { buckets: spec.buckets.map((b) => scaled(spec, b)) } : {}),
          }),
        );
    }
    for (const spec of Object.values(OBSERVED_METRICS) as MetricSpec[]) {
      this.gauges.set(
        spec.name,
        new Gauge({
          name: prometheusName(spec),
          help: spec.description,
          labelNames: [...spec.tags],
          registers,
        }),
      );
    }
  }

  /** The MIME type of {@link PrometheusSink.text}. */
  get contentType(): string {
    return this.registry.contentType;
  }

  add(spec: MetricSpec, value: number, tags: Tags): void {
    this.counters.get(spec)?.inc(tags, value);
  }

  record(spec: MetricSpec, value: number, tags: Tags): void {
    this.histograms.get(spec)?.observe(tags, scaled(spec, value));
  }

  /** Every metric in the Prometheus text format, with the gauges read now. */
  async text(): Promise<string> {
    const observations = await this.observe();
    for (const gauge of this.gauges.values()) gauge.reset();
    for (const { spec, value, tags } of observations) {
      this.gauges.get(spec.name)?.set(tags, scaled(spec, value));
    }
    return this.registry.metrics();
  }
}
