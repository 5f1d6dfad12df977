import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ChokaQ,
  defineJob,
  FatalError,
  silentLogger,
  type ChokaQOptions,
} from '../../src/index.js';
import { ALL_METRICS } from '../../src/monitoring/metrics/catalogue.js';
import { prometheusName } from '../../src/monitoring/metrics/prometheus-sink.js';
import type { Store } from '../../src/storage/store.js';
import { waitFor } from '../helpers/wait.js';
import type { EngineStoreFactory } from './suite.js';

/** A metric reader the test collects from when it wants (cumulative, like Prometheus). */
class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }

  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }

  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }

  /** Every metric of meter `chokaq`, by instrument name. */
  async metrics(): Promise<Map<string, MetricData>> {
    const { resourceMetrics, errors } = await this.collect();
    expect(errors).toEqual([]);
    const scope = resourceMetrics.scopeMetrics.find((s) => s.scope.name === 'chokaq');
    return new Map((scope?.metrics ?? []).map((m) => [m.descriptor.name, m]));
  }
}

/** The sum of a counter's points whose attributes contain `match`. */
function total(metric: MetricData | undefined, match: Record<string, string> = {}): number {
  const points = (metric?.dataPoints ?? []) as DataPoint<number>[];
  return points
    .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
    .reduce((sum, p) => sum + p.value, 0);
}

/** How many values a histogram recorded. */
function histogramCount(metric: MetricData | undefined): number {
  const points = (metric?.dataPoints ?? []) as DataPoint<Histogram>[];
  return points.reduce((sum, p) => sum + p.value.count, 0);
}

const okJob = defineJob({
  type: 'metrics.ok.v1',
  queue: 'metrics',
  handle: () => Promise.resolve(),
});
let flakyRuns = 0;
const flakyJob = defineJob({
  type: 'metrics.flaky.v1',
  queue: 'metrics',
  retry: { maxAttempts: 3, baseDelay: 1, jitter: 0 },
  handle: () => {
    flakyRuns += 1;
    if (flakyRuns === 1) throw new RangeError('first run fails');
  },
});
const fatalJob = defineJob({
  type: 'metrics.fatal.v1',
  queue: 'metrics',
  handle: () => {
    throw new FatalError('never works');
  },
});

/** Metrics recorded by a running engine, on every provider (OpenTelemetry and Prometheus). */
export function describeMetrics(name: string, factory: EngineStoreFactory): void {
  describe(`metrics on ${name}`, () => {
    const engines: ChokaQ[] = [];
    let available = true;

    beforeAll(async () => {
      available = factory.available ? await factory.available() : true;
    });

    beforeEach((context) => {
      if (!available) context.skip(`${name} storage is not available`);
      flakyRuns = 0;
    });

    afterEach(async () => {
      await Promise.all(engines.splice(0).map((engine) => engine.stop()));
    });

    async function engineOn(storage: Store, options: Omit<ChokaQOptions, 'storage'>) {
      const chokaq = new ChokaQ({ storage, logger: silentLogger, pollInterval: 50, ...options });
      engines.push(chokaq);
      await chokaq.start();
      return chokaq;
    }

    /** Runs 2 good jobs, one that fails once, one fatal, and one due in an hour; waits for them. */
    async function runMix(chokaq: ChokaQ): Promise<void> {
      await chokaq.enqueue(okJob, undefined);
      await chokaq.enqueue(okJob, undefined);
      await chokaq.enqueue(flakyJob, undefined);
      await chokaq.enqueue(fatalJob, undefined);
      await chokaq.enqueue(okJob, undefined, { delay: '1h' });
      await waitFor(
        async () => (await chokaq.jobs.count({ state: ['succeeded', 'dead'] })).count === 4,
        { timeoutMs: 15_000, message: 'the mix to settle' },
      );
    }

    it('records enqueues, starts, outcomes, times, batches and queue gauges to OpenTelemetry', async () => {
      const reader = new TestReader();
      const meterProvider = new MeterProvider({ readers: [reader] });
      const chokaq = await engineOn(await factory.make(), {
        jobs: [okJob, flakyJob, fatalJob],
        telemetry: { meterProvider },
      });
      await runMix(chokaq);
      // Archive writes trail the events by a batch; the counters are read once they are in.
      const metrics = await waitFor(
        async () => {
          const m = await reader.metrics();
          return total(m.get('chokaq.jobs.completed')) === 3 ? m : undefined;
        },
        { message: 'three completions counted' },
      );
      const q = { queue: 'metrics' };
      expect(total(metrics.get('chokaq.jobs.enqueued'), q)).toBe(5);
      expect(total(metrics.get('chokaq.jobs.started'), q)).toBe(5);
      expect(total(metrics.get('chokaq.jobs.completed'), { type: 'metrics.ok.v1' })).toBe(2);
      expect(total(metrics.get('chokaq.jobs.failed'), { error: 'RangeError' })).toBe(1);
      expect(total(metrics.get('chokaq.jobs.failed'), { error: 'FatalError' })).toBe(1);
      expect(total(metrics.get('chokaq.jobs.retried'), { type: 'metrics.flaky.v1' })).toBe(1);
      expect(total(metrics.get('chokaq.jobs.dlq'), { reason: 'Fatal' })).toBe(1);
      expect(histogramCount(metrics.get('chokaq.jobs.processing_duration'))).toBe(3);
      expect(histogramCount(metrics.get('chokaq.jobs.queue_lag'))).toBe(5);
      expect(metrics.get('chokaq.jobs.processing_duration')?.descriptor.unit).toBe('ms');
      expect(histogramCount(metrics.get('chokaq.worker.claim_batch_size'))).toBeGreaterThan(0);
      expect(histogramCount(metrics.get('chokaq.worker.settle_batch_size'))).toBeGreaterThan(0);
      expect(total(metrics.get('chokaq.queue.scheduled'), q)).toBe(1);
      expect(total(metrics.get('chokaq.queue.due'), q)).toBe(0);
      expect(total(metrics.get('chokaq.queue.dead'), q)).toBe(1);
      expect(total(metrics.get('chokaq.queue.lag'), q)).toBe(0);
      await meterProvider.shutdown();
    });

    it('serves the Prometheus text format, with gauges read at the scrape', async () => {
      const chokaq = await engineOn(await factory.make(), { jobs: [okJob, flakyJob, fatalJob] });
      const handler = chokaq.metrics.prometheus(); // counting starts here
      await runMix(chokaq);
      const text = await waitFor(
        async () => {
          const t = await chokaq.metrics.prometheusText();
          return /chokaq_jobs_completed_total\{queue="metrics",type="metrics\.ok\.v1"\} 2/.test(t)
            ? t
            : undefined;
        },
        { message: 'completions in the Prometheus text' },
      );
      // Every instrument of the catalogue is exposed, with its Prometheus type.
      for (const spec of ALL_METRICS) {
        const kind = spec.kind === 'gauge' ? 'gauge' : spec.kind;
        expect(text).toContain(`# TYPE ${prometheusName(spec)} ${kind}`);
      }
      expect(text).toMatch(
        /chokaq_jobs_enqueued_total\{queue="metrics",type="metrics\.ok\.v1"\} 3/,
      );
      expect(text).toMatch(
        /chokaq_jobs_started_total\{queue="metrics",type="metrics\.flaky\.v1"\} 2/,
      );
      expect(text).toMatch(
        /chokaq_jobs_failed_total\{queue="metrics",type="metrics\.flaky\.v1",error="RangeError"\} 1/,
      );
      expect(text).toMatch(
        /chokaq_jobs_retried_total\{queue="metrics",type="metrics\.flaky\.v1"\} 1/,
      );
      expect(text).toMatch(
        /chokaq_jobs_queue_lag_seconds_count\{queue="metrics",type="metrics\.ok\.v1"\} 2/,
      );
      expect(text).toMatch(/chokaq_worker_claim_batch_size_count [1-9]/);
      expect(text).toMatch(/chokaq_worker_settle_batch_size_count [1-9]/);
      expect(text).toContain('# TYPE chokaq_jobs_completed_total counter');
      expect(text).toContain('# TYPE chokaq_jobs_processing_duration_seconds histogram');
      expect(text).toMatch(
        /chokaq_jobs_dlq_total\{queue="metrics",type="metrics\.fatal\.v1",reason="Fatal"\} 1/,
      );
      expect(text).toMatch(/chokaq_queue_dead\{queue="metrics"\} 1/);
      expect(text).toMatch(/chokaq_queue_scheduled\{queue="metrics"\} 1/);
      expect(text).toMatch(
        /chokaq_jobs_processing_duration_seconds_count\{queue="metrics",type="metrics\.ok\.v1"\} 2/,
      );

      const server = createServer(handler);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
        const got = await fetch(url);
        expect(got.status).toBe(200);
        expect(got.headers.get('content-type')).toBe(chokaq.metrics.prometheusContentType);
        expect(await got.text()).toContain('chokaq_jobs_enqueued_total');
        const posted = await fetch(url, { method: 'POST' });
        expect(posted.status).toBe(405);
        expect(posted.headers.get('allow')).toBe('GET, HEAD');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('records nothing with telemetry.metrics false, and says so when Prometheus is asked for', async () => {
      const reader = new TestReader();
      const meterProvider = new MeterProvider({ readers: [reader] });
      const chokaq = await engineOn(await factory.make(), {
        jobs: [okJob, flakyJob, fatalJob],
        telemetry: { metrics: false, meterProvider },
      });
      await runMix(chokaq);
      expect((await reader.metrics()).size).toBe(0);
      expect(() => chokaq.metrics.prometheus()).toThrow(
        expect.objectContaining({ code: 'CHOKAQ_INVALID_CONFIG', field: 'telemetry.metrics' }),
      );
      await meterProvider.shutdown();
    });
  });
}
