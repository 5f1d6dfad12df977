/**
 * The OpenTelemetry side of the metrics: instruments of the meter `chokaq`, made from the
 * catalogue, on the given MeterProvider or the global one. Without an OpenTelemetry SDK the global
 * provider is the API's no-op, and there is no sink at all (see {@link otelSink}).
 */
import {
  createNoopMeter,
  metrics,
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  type Observable,
} from '@opentelemetry/api';
import { EVENT_METRICS, OBSERVED_METRICS, type MetricSpec } from './catalogue.js';
import type { MetricSink, Observation, Tags } from './recorder.js';

/** The meter's name. */
export const METER_NAME = 'chokaq';

/**
 * The sink of the meter `chokaq` (version `version`) on `provider`, or on the global provider;
 * `null` when that meter is the API's no-op (no SDK registered when ChokaQ was made): its
 * instruments would drop every figure, and they never change, as the metrics API has no
 * provider that delegates to one registered later.
 * @param observe Read once per collection for every gauge (see `MetricsRecorder.observe`).
 */
export function otelSink(
  provider: MeterProvider | undefined,
  version: string,
  observe: () => Promise<Observation[]>,
): OtelSink | null {
  const meter = (provider ?? metrics.getMeterProvider()).getMeter(METER_NAME, version);
  return meter === createNoopMeter() ? null : new OtelSink(meter, observe);
}

/** A {@link MetricSink} over OpenTelemetry instruments, with the gauges as observables. */
export class OtelSink implements MetricSink {
  private readonly counters = new Map<MetricSpec, Counter>();
  private readonly histograms = new Map<MetricSpec, Histogram>();

  /**
   * @param observe Read once per collection for every gauge (see `MetricsRecorder.observe`).
   */
  constructor(meter: Meter, observe: () => Promise<Observation[]>) {
    for (const spec of Object.values(EVENT_METRICS) as MetricSpec[]) {
      const options = { description: spec.description, unit: spec.unit };
      if (spec.kind === 'counter') this.counters.set(spec, meter.createCounter(spec.name, options));
      else
        this.histograms.set(
          spec,
          meter.createHistogram(spec.name, {
            ...options,
            ...(spec.buckets ? { advice: { explicitBucketBoundaries: [...spec.buckets] } } : {}),
          }),
        );
    }
    const gauges = new Map<string, Observable>();
    for (const spec of Object.values(OBSERVED_METRICS) as MetricSpec[]) {
      gauges.set(
        spec.name,
        meter.createObservableGauge(spec.name, { description: spec.description, unit: spec.unit }),
      );
    }
    meter.addBatchObservableCallback(
      async (result) => {
        for (const { spec, value, tags } of await observe()) {
          const gauge = gauges.get(spec.name);
          if (gauge) result.observe(gauge, value, tags);
        }
      },
      [...gauges.values()],
    );
  }

  add(spec: MetricSpec, value: number, tags: Tags): void {
    this.counters.get(spec)?.add(value, tags);
  }

  record(spec: MetricSpec, value: number, tags: Tags): void {
    this.histograms.get(spec)?.record(value, tags);
  }
}
