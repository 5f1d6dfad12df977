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
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChokaQ } from '../../src/index.js';
import { defineJob, FatalError, idempotency } from '../../src/index.js';
import { ALL_METRICS } from '../../src/observability/metrics/catalogue.js';
import { prometheusName } from '../../src/observability/metrics/prometheus-sink.js';
import { JumpingClock } from '../helpers/jumping-clock.js';
import { waitFor } from '../helpers/wait.js';
import { useEngines } from './engines.js';
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
/** Fails at once, and its second failure opens its circuit. */
const breakerJob = defineJob({
  type: 'metrics.breaker.v1',
  queue: 'metrics',
  retry: { maxAttempts: 1 },
  circuit: { failureThreshold: 2, breakDuration: '1h' },
  handle: () => {
    throw new Error('downstream is down');
  },
});
/** Runs once per key, through the idempotency middleware. */
const onceJob = defineJob<{ key: string }>({
  type: 'metrics.once.v1',
  queue: 'metrics',
  handle: () => Promise.resolve(),
});

/** Metrics recorded by a running engine, on every provider (OpenTelemetry and Prometheus). */
export function describeMetrics(name: string, factory: EngineStoreFactory): void {
  describe(`metrics on ${name}`, () => {
    const { started: engineOn } = useEngines(name, factory);

    beforeEach(() => {
      flakyRuns = 0;
    });

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

    it('serves the Prometheus text format with the value of every instrument after known work', async () => {
      const clock = new JumpingClock();
      const storage = await factory.make({ clock });
      // Real storage whose heartbeat writes fail while the test says so (a lost database).
      let failHeartbeats = false;
      const heartbeat = storage.jobs.heartbeat.bind(storage.jobs);
      storage.jobs.heartbeat = (leases) =>
        failHeartbeats ? Promise.reject(new Error('heartbeat write failed')) : heartbeat(leases);
      const rescued = new Set<string>();
      const zombieJob = defineJob({
        type: 'metrics.zombie.v1',
        queue: 'metrics.zombie',
        // Runs on until recovery moved its job to the DLQ, then succeeds: a lost lease.
        handle: (_p, ctx) =>
          waitFor(() => rescued.has(ctx.id), { timeoutMs: 10_000, message: 'the rescue' }),
      });
      let releaseHeld!: () => void;
      const held = new Promise<void>((resolve) => (releaseHeld = resolve));
      const heldJob = defineJob({
        type: 'metrics.held.v1',
        queue: 'metrics.held',
        handle: () => held,
      });
      // One start an hour: of two jobs, the second is put back by the rate gate.
      const ratedJob = defineJob({
        type: 'metrics.rated.v1',
        queue: 'metrics.rated',
        rateLimit: { limit: 1, per: '1h' },
        handle: () => undefined,
      });
      // A durable sleep of a day: its run gives the job back.
      const napJob = defineJob({
        type: 'metrics.nap.v1',
        queue: 'metrics.nap',
        handle: (_p, ctx) => ctx.sleep('nap', '1d'),
      });
      const chokaq = await engineOn(storage, {
        jobs: [
          okJob,
          flakyJob,
          fatalJob,
          breakerJob,
          onceJob,
          zombieJob,
          heldJob,
          ratedJob,
          napJob,
        ],
        middleware: [
          idempotency({
            claims: storage.idempotencyClaims,
            key: (ctx, payload) =>
              ctx.type === onceJob.type ? (payload as { key: string }).key : null,
          }),
        ],
        // 'metrics.unserved' is not worked here: its job stays due and its lag grows.
        workerQueues: ['metrics', 'metrics.zombie', 'metrics.held', 'metrics.rated', 'metrics.nap'],
        queues: { 'metrics.zombie': { zombieTimeout: '1m' } },
        clock,
        heartbeatInterval: 100,
        rescueInterval: 100,
      });
      chokaq.on('job:rescued', (e) => rescued.add(e.id));
      const opened: string[] = [];
      chokaq.on('circuit:changed', (e) => {
        if (e.event === 'opened') opened.push(e.key);
      });
      chokaq.metrics.prometheus(); // counting starts here
      const settled = (n: number, message: string) =>
        waitFor(
          async () => (await chokaq.jobs.count({ state: ['succeeded', 'dead'] })).count === n,
          { timeoutMs: 15_000, message },
        );

      await runMix(chokaq); // 2 ok, a flaky one retried once, a fatal one; 1 ok in an hour
      // Two transient failures of one type open its circuit (threshold 2); both jobs die.
      await chokaq.enqueue(breakerJob, undefined);
      await chokaq.enqueue(breakerJob, undefined);
      await settled(6, 'the breaker jobs to die');
      // The breaker counts a failure once its settle's write has resolved, which the worker may
      // hear a little after the dead rows are visible to the count above.
      await waitFor(() => opened.length > 0, { message: 'the circuit to open' });
      expect(opened).toEqual(['metrics.breaker.v1']);
      // One key, two jobs one after the other: claimed and completed, then a duplicate.
      await chokaq.enqueue(onceJob, { key: 'k1' });
      await settled(7, 'the first keyed job');
      await chokaq.enqueue(onceJob, { key: 'k1' });
      await settled(8, 'the duplicate');
      // Heartbeats fail: once its start is written and a heartbeat failed, a minute passes; the
      // run is a zombie then (1 min), is rescued, and its archive conflicts.
      failHeartbeats = true;
      const conflicts: string[] = [];
      chokaq.on('job:conflict', (e) => conflicts.push(e.step));
      await chokaq.enqueue(zombieJob, undefined);
      await waitFor(
        async () =>
          chokaq.counters.heartbeatFailures > 0 &&
          (await chokaq.jobs.count({ state: 'processing' })).count === 1,
        { timeoutMs: 15_000, message: 'the zombie run started, its heartbeats failing' },
      );
      clock.jump(61_000);
      await waitFor(() => conflicts.length === 1, { timeoutMs: 15_000, message: 'the conflict' });
      failHeartbeats = false;
      expect(conflicts).toEqual(['archive']);
      const heartbeatFailures = chokaq.counters.heartbeatFailures;
      expect(heartbeatFailures).toBeGreaterThan(0);
      // Every succeeded job is purged from the archive (5: 2 ok, flaky, both keyed ones), all
      // finished more than the age (1 min) ago after another minute.
      clock.jump(61_000);
      const purge = await chokaq.retention.purge({
        archive: '1m',
        dlq: null,
        metricBuckets: null,
        audit: null,
        bulkActions: null,
      });
      expect(purge.led).toBe(true);
      expect(purge.entries.reduce((n, e) => n + e.rows, 0)).toBe(5);
      // One run held open; one due job nobody works.
      await chokaq.enqueue(heldJob, undefined);
      await waitFor(() => chokaq.running === 1, { message: 'the held run' });
      await chokaq.enqueue(okJob, undefined, { queue: 'metrics.unserved' });
      clock.jump(250);
      const text = await chokaq.metrics.prometheusText();
      releaseHeld();

      const lines = new Set(text.split('\n'));
      const families = new Set<string>();
      /** The value of one series, found by its exact label set (undefined when absent). */
      const value = (family: string, labels: Record<string, string>, suffix = ''): number => {
        families.add(family);
        const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
        const series = `chokaq_${family}${suffix}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} `;
        const line = [...lines].find((l) => l.startsWith(series));
        return line === undefined ? NaN : Number(line.slice(series.length));
      };
      const job = (type: string, queue = 'metrics') => ({ queue, type: `metrics.${type}.v1` });
      const runs = { ok: 2, flaky: 2, fatal: 1, breaker: 2, once: 2, zombie: 1, held: 1 };
      const started = Object.values(runs).reduce((a, b) => a + b);

      expect(value('jobs_enqueued_total', job('ok'))).toBe(3);
      expect(value('jobs_enqueued_total', job('ok', 'metrics.unserved'))).toBe(1);
      expect(value('jobs_enqueued_total', job('breaker'))).toBe(2);
      expect(value('jobs_enqueued_total', job('once'))).toBe(2);
      expect(value('jobs_enqueued_total', job('held', 'metrics.held'))).toBe(1);
      for (const [type, n] of Object.entries(runs)) {
        const queue = type === 'zombie' || type === 'held' ? `metrics.${type}` : 'metrics';
        expect(value('jobs_started_total', job(type, queue)), type).toBe(n);
        expect(value('jobs_queue_lag_seconds', job(type, queue), '_count'), type).toBe(n);
      }
      expect(value('jobs_completed_total', job('ok'))).toBe(2);
      expect(value('jobs_completed_total', job('flaky'))).toBe(1);
      expect(value('jobs_completed_total', job('once'))).toBe(2);
      expect(value('jobs_processing_duration_seconds', job('ok'), '_count')).toBe(2);
      expect(value('jobs_processing_duration_seconds', job('once'), '_count')).toBe(2);
      expect(value('jobs_failed_total', { ...job('flaky'), error: 'RangeError' })).toBe(1);
      expect(value('jobs_failed_total', { ...job('fatal'), error: 'FatalError' })).toBe(1);
      expect(value('jobs_failed_total', { ...job('breaker'), error: 'Error' })).toBe(2);
      expect(value('jobs_retried_total', job('flaky'))).toBe(1);
      expect(value('jobs_dlq_total', { ...job('fatal'), reason: 'Fatal' })).toBe(1);
      expect(value('jobs_dlq_total', { ...job('breaker'), reason: 'Transient' })).toBe(2);
      // A zombie is moved by recovery, not by a run: not in chokaq.jobs.dlq (see the docs).
      expect(text).not.toMatch(/chokaq_jobs_dlq_total\{[^}]*reason="Zombie"/);
      expect(
        value('jobs_state_transition_conflicts_total', {
          ...job('zombie', 'metrics.zombie'),
          transition: 'archive',
        }),
      ).toBe(1);
      expect(value('jobs_heartbeat_failures_total', {})).toBe(heartbeatFailures);
      // Every run was claimed once; every run but the held one settled once (the zombie's
      // archive too, though it changed nothing).
      expect(value('worker_claim_batch_size', {}, '_sum')).toBe(started);
      expect(value('worker_claim_batch_size', {}, '_count')).toBeGreaterThan(0);
      expect(value('worker_settle_batch_size', {}, '_sum')).toBe(started - 1);
      expect(value('retention_purged_total', { table: 'archive' })).toBe(5);
      const breaker = { type: 'metrics.breaker.v1' };
      expect(value('circuits_events_total', { ...breaker, state: 'open', event: 'opened' })).toBe(
        1,
      );
      expect(value('circuits_state', breaker)).toBe(2);
      expect(value('circuits_state', { type: 'metrics.flaky.v1' })).toBe(0);
      expect(value('idempotency_claims_total', { outcome: 'claimed' })).toBe(1);
      expect(value('idempotency_claims_total', { outcome: 'completed' })).toBe(1);
      expect(value('idempotency_claims_total', { outcome: 'completed_duplicate' })).toBe(1);
      expect(value('idempotency_claims_total', { outcome: 'not_idempotent' })).toBe(started - 2);
      expect(value('workers_active', { queue: 'metrics.held' })).toBe(1);
      expect(value('queue_running', { queue: 'metrics.held' })).toBe(1);
      expect(value('queue_due', { queue: 'metrics.unserved' })).toBe(1);
      expect(value('queue_due', { queue: 'metrics' })).toBe(0);
      expect(value('queue_scheduled', { queue: 'metrics' })).toBe(1);
      expect(value('queue_awaiting', { queue: 'metrics' })).toBe(0);
      expect(value('queue_dead', { queue: 'metrics' })).toBe(3);
      expect(value('queue_dead', { queue: 'metrics.zombie' })).toBe(1);
      const lag = value('queue_lag_seconds', { queue: 'metrics.unserved' });
      expect(lag).toBeGreaterThanOrEqual(0.2);
      expect(lag).toBeLessThan(60);
      expect(value('queue_lag_seconds', { queue: 'metrics' })).toBe(0);
      // Last, so no count above sees them: two rated jobs, one start allowed, one put back.
      await chokaq.enqueueMany(ratedJob, [{ payload: undefined }, { payload: undefined }]);
      const throttledSeries = `chokaq_jobs_rate_throttled_total{queue="metrics.rated",type="metrics.rated.v1"} `;
      const finalText = await waitFor(
        async () => {
          const later = await chokaq.metrics.prometheusText();
          return later.includes(throttledSeries) ? later : undefined;
        },
        { timeoutMs: 10_000, message: 'a throttled start counted' },
      );
      families.add('jobs_rate_throttled_total');
      const throttledLine = finalText.split('\n').find((l) => l.startsWith(throttledSeries));
      expect(Number(throttledLine?.slice(throttledSeries.length))).toBeGreaterThanOrEqual(1);
      // A run that sleeps gives its job back: one suspension counted.
      await chokaq.enqueue(napJob, undefined);
      const suspendedSeries = `chokaq_jobs_suspended_total{queue="metrics.nap",type="metrics.nap.v1"} 1`;
      await waitFor(
        async () => (await chokaq.metrics.prometheusText()).split('\n').includes(suspendedSeries),
        { timeoutMs: 10_000, message: 'a suspension counted' },
      );
      families.add('jobs_suspended_total');
      // Every instrument of the catalogue had a value checked above, under its Prometheus type.
      for (const spec of ALL_METRICS) {
        expect(finalText).toContain(`# TYPE ${prometheusName(spec)} ${spec.kind}`);
      }
      expect([...families].map((f) => `chokaq_${f}`).sort()).toEqual(
        ALL_METRICS.map((spec) => prometheusName(spec)).sort(),
      );

      const server = createServer(chokaq.metrics.prometheus());
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
    }, 60_000);

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
