/**
 * The Prometheus side of the metrics: counters and histograms of this ChokaQ instance kept in
 * plain numbers, rendered in the text format at each scrape with the gauges read then. Named from
 * the catalogue with Prometheus' naming — dots become underscores, counters end in `_total`,
 * times are reported in seconds (`_seconds`).
 *
 * It is written here rather than over prom-client because it runs on every job: prom-client
 * validates and hashes the labels of every increment, while a series here is found by the
 * identity of the tag object the recorder reuses (cost measured by the bench's W7 workload).
 */
import { EVENT_METRICS, OBSERVED_METRICS, type MetricSpec } from './catalogue.js';
import {
  familyHeader,
  labelPairs,
  PROMETHEUS_CONTENT_TYPE,
  sampleLine,
} from './prometheus-text.js';
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

/** One labelled series of a counter or histogram. */
interface Series {
  /** Its label pairs as rendered. */
  pairs: string;
  /** The counter's total, or the histogram's sum. */
  sum: number;
  /** Observations (histograms). */
  count: number;
  /** Observations per bucket, not cumulative; the last is above every bound (histograms). */
  buckets: number[];
}

/** The series of one counter or histogram, found by tag object first and by labels after. */
class Family {
  readonly name: string;
  /** Upper bounds of the buckets, in Prometheus' unit (histograms). */
  readonly bounds: number[];
  readonly series = new Map<string, Series>();
  private readonly byTags = new WeakMap<Tags, Series>();

  constructor(readonly spec: MetricSpec) {
    this.name = prometheusName(spec);
    this.bounds = (spec.buckets ?? []).map((b) => scaled(spec, b));
    // A metric without labels is exposed from the start, at zero.
    if (spec.tags.length === 0) this.series.set('', this.newSeries(''));
  }

  private newSeries(pairs: string): Series {
    return { pairs, sum: 0, count: 0, buckets: new Array<number>(this.bounds.length + 1).fill(0) };
  }

  /** The series of `tags` (tag objects with the same values share one). */
  of(tags: Tags): Series {
    let series = this.byTags.get(tags);
    if (series !== undefined) return series;
    const pairs = labelPairs(this.spec.tags, tags);
    series = this.series.get(pairs);
    if (series === undefined) {
      series = this.newSeries(pairs);
      this.series.set(pairs, series);
    }
    this.byTags.set(tags, series);
    return series;
  }

  /**
   * Appends the family's lines to `lines`: header, then each series (histograms: cumulative
   * buckets, sum, count). Appended one by one: a spread of a large array overflows the stack.
   */
  appendTo(lines: string[]): void {
    const type = this.spec.kind === 'counter' ? 'counter' : 'histogram';
    for (const line of familyHeader(this.name, this.spec.description, type)) lines.push(line);
    for (const series of this.series.values()) {
      if (type === 'counter') {
        lines.push(sampleLine(this.name, series.pairs, series.sum));
        continue;
      }
      const prefix = series.pairs === '' ? '' : `${series.pairs},`;
      let cumulative = 0;
      series.buckets.forEach((n, k) => {
        cumulative += n;
        const le = k < this.bounds.length ? String(this.bounds[k]) : '+Inf';
        lines.push(sampleLine(`${this.name}_bucket`, `${prefix}le="${le}"`, cumulative));
      });
      lines.push(sampleLine(`${this.name}_sum`, series.pairs, series.sum));
      lines.push(sampleLine(`${this.name}_count`, series.pairs, series.count));
    }
  }
}

/** A {@link MetricSink} that {@link PrometheusSink.text} renders in the Prometheus text format. */
export class PrometheusSink implements MetricSink {
  private readonly families = new Map<MetricSpec, Family>();

  /** @param observe Read once per scrape for every gauge. */
  constructor(private readonly observe: () => Promise<Observation[]>) {
    for (const spec of Object.values(EVENT_METRICS) as MetricSpec[]) {
      this.families.set(spec, new Family(spec));
    }
  }

  /** The MIME type of {@link PrometheusSink.text}. */
  get contentType(): string {
    return PROMETHEUS_CONTENT_TYPE;
  }

  add(spec: MetricSpec, value: number, tags: Tags): void {
    const family = this.families.get(spec);
    if (family !== undefined) family.of(tags).sum += value;
  }

  /** Records one value; a non-finite one (NaN, ±Infinity) is skipped, as it would poison the sum. */
  record(spec: MetricSpec, value: number, tags: Tags): void {
    const family = this.families.get(spec);
    if (family === undefined || !Number.isFinite(value)) return;
    const series = family.of(tags);
    const v = scaled(spec, value);
    let k = 0;
    while (k < family.bounds.length && v > family.bounds[k]!) k += 1;
    series.buckets[k]! += 1;
    series.sum += v;
    series.count += 1;
  }

  /** Every metric in the Prometheus text format, with the gauges read now. */
  async text(): Promise<string> {
    const observations = await this.observe();
    const lines: string[] = [];
    for (const family of this.families.values()) family.appendTo(lines);
    for (const spec of Object.values(OBSERVED_METRICS) as MetricSpec[]) {
      const name = prometheusName(spec);
      for (const line of familyHeader(name, spec.description, 'gauge')) lines.push(line);
      for (const o of observations) {
        if (o.spec === spec)
          lines.push(sampleLine(name, labelPairs(spec.tags, o.tags), scaled(spec, o.value)));
      }
    }
    return `${lines.join('\n')}\n`;
  }
}
