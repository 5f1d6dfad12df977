/**
 * The composition root: one function that builds every part of a ChokaQ instance from its
 * options and wires them together (storage, events, the enqueue pipeline, the running engine,
 * the operator APIs, health, metrics, cluster events, schedules). The `ChokaQ` facade holds what
 * this returns and only checks calls and delegates.
 */
import type { ChokaQOptions } from './config/options.js';
import { queueZombieSeconds, resolveConfig, type ChokaQSettings } from './config/resolve.js';
import { Enqueuer } from './enqueue/enqueuer.js';
import { JobRegistry } from './job/registry.js';
import { checkWorker } from './observability/health/checks.js';
import { HealthApi } from './observability/health/health-api.js';
import { MetricsApi } from './observability/metrics/metrics-api.js';
import { otelSink } from './observability/metrics/otel-sink.js';
import { MetricsRecorder } from './observability/metrics/recorder.js';
import { logEvent } from './observability/logging/log-events.js';
import { AuditApi, Auditor } from './operator/audit.js';
import { BulkApi } from './operator/bulk.js';
import { BulkRunner, OPERATOR_QUEUE } from './operator/bulk-runner.js';
import { DlqApi } from './operator/dlq-api.js';
import { FlowApi } from './operator/flow-api.js';
import { BatchesApi } from './operator/batches-api.js';
import { JobsApi } from './operator/jobs-api.js';
import { LiveControls } from './operator/live-controls.js';
import { QueuesApi } from './operator/queues-api.js';
import { RetentionApi } from './operator/retention-api.js';
import { ClusterEvents, type LiveControl } from './runtime/cluster-events.js';
import { countEvents, type EngineCounters } from './runtime/counters.js';
import { Engine } from './runtime/engine.js';
import { ChokaQEvents } from './runtime/events.js';
import { PRESENCE_ALIVE_MS } from './runtime/presence.js';
import { MAX_CONCURRENCY } from './runtime/worker-options.js';
import { Scheduler } from './schedule/scheduler.js';
import { SchedulesApi } from './schedule/schedules-api.js';
import type { LocalSchedule } from './schedule/tick-job.js';
import { openOnce } from './storage/open-once.js';
import { checkInteger } from './util/check.js';
import { packageVersion } from './version.js';

/** Every part of one ChokaQ instance, wired together by {@link compose}. */
export interface Parts {
  /** The options after defaults and checks. */
  config: ChokaQSettings;
  events: ChokaQEvents;
  /** Engine counters derived from the events. */
  counts: Readonly<EngineCounters>;
  /** Opens the store once (migrating per its options). */
  open: () => Promise<void>;
  enqueuer: Enqueuer;
  engine: Engine;
  scheduler: Scheduler;
  auditor: Auditor;
  /** The job types, ChokaQ's own bulk-action runner among them. */
  registry: JobRegistry;
  /** `undefined` when cluster events are off. */
  cluster: ClusterEvents | undefined;
  jobs: JobsApi;
  queues: QueuesApi;
  dlq: DlqApi;
  bulk: BulkApi;
  audit: AuditApi;
  metrics: MetricsApi;
  health: HealthApi;
  retention: RetentionApi;
  workers: LiveControls;
  flow: FlowApi;
  batches: BatchesApi;
  schedules: SchedulesApi;
}

/**
 * Builds and wires every part of a ChokaQ instance; nothing is opened or started.
 * @throws ChokaQError when an option is invalid (see `ChokaQOptions`); the message names it.
 */
export function compose(options: ChokaQOptions): Parts {
  const config = resolveConfig(options);
  config.storage.useLogger?.(config.logger);
  const events = new ChokaQEvents(config.logger.child('events'));
  const counts = countEvents(events);
  const open = openOnce(config.storage);
  const { storage, maxPayloadBytes } = config;
  const auditor = new Auditor(storage, events, config.logger.child('audit'));
  const runner = new BulkRunner({
    store: storage,
    registry: new JobRegistry(config.jobs),
    maxPayloadBytes,
    auditor,
  });
  const registry = new JobRegistry([...config.jobs, runner.definition]);
  const enqueuer = new Enqueuer({
    store: config.storage,
    open,
    registry,
    hasPipe: config.pipe !== undefined,
    maxPayloadBytes: config.maxPayloadBytes,
    events,
    clock: config.clock,
  });
  const jobs = new JobsApi({
    store: storage,
    open,
    registry,
    maxPayloadBytes,
    events,
    auditor,
  });
  const queues = new QueuesApi({
    store: storage,
    open,
    events,
    auditor,
    zombieSeconds: (timeout, field) =>
      queueZombieSeconds(timeout, field, config.heartbeatIntervalMs),
    notePaused: (queue, paused) => engine.notePaused(queue, paused),
  });
  const dlq = new DlqApi({
    store: storage,
    open,
    registry,
    maxPayloadBytes,
    auditor,
  });
  const bulk = new BulkApi({
    store: storage,
    open,
    auditor,
    registry,
    enqueueRun: async (actionId) => {
      await enqueuer.one(runner.definition, { actionId }, { idempotencyKey: `bulk-${actionId}` });
    },
  });
  const audit = new AuditApi(storage, open);
  const recorder: MetricsRecorder | undefined = config.telemetry.metrics
    ? metricsRecorder(config, events, open, () => engine)
    : undefined;
  const metrics = new MetricsApi(recorder);
  const health = new HealthApi({
    settings: config.health,
    clock: config.clock,
    roundTrip: async () => {
      await open();
      return storage.cluster.now();
    },
    queueGauges: async () => {
      await open();
      return storage.queues.queueGauges();
    },
    worker: () => engine.workerHealth(),
    workers: async () => {
      await open();
      return storage.cluster.listWorkers(PRESENCE_ALIVE_MS);
    },
    dueByType: async (queues, limit) => {
      await open();
      return storage.queues.dueByType(queues, limit);
    },
    // A process without a worker works no queue, so no backlog makes it unready.
    servedQueues: config.worker ? config.workerQueues : [],
  });
  const intervalMs = config.clusterEventsIntervalMs;
  const cluster: ClusterEvents | undefined =
    intervalMs === null
      ? undefined
      : new ClusterEvents({
          store: storage,
          open,
          events,
          origin: config.workerId,
          clock: config.clock,
          intervalMs,
          logger: config.logger.child('cluster'),
          onControl: (control) => applyControl(control),
        });
  const workers = new LiveControls({
    store: storage,
    open,
    auditor,
    workerId: config.workerId,
    apply: (control) => applyControl(control),
    broadcasts: cluster !== undefined,
    now: () => config.clock.now(),
  });
  const { workerQueues } = config;
  const engine: Engine = new Engine({
    // Every worker also runs bulk actions, whichever queues it serves.
    settings: {
      ...config,
      workerQueues: workerQueues && [...workerQueues, OPERATOR_QUEUE],
    },
    registry,
    events,
    open,
    ...(recorder ? { observer: recorder } : {}),
    beforeClose: () => cluster?.stop() ?? Promise.resolve(),
    health: () => {
      const { status, message } = checkWorker(
        engine.workerHealth(),
        config.clock.now(),
        config.health.stallTimeoutMs,
      );
      return { status, message };
    },
  });
  // Declared schedules are known here from the start: a process that never starts can trigger them.
  const local = new Map<string, LocalSchedule>(
    config.schedules.map(({ spec, payloadFn, definition }) => [
      spec.name,
      { payloadFn, definition: definition ?? registry.find(spec.type) },
    ]),
  );
  const scheduler = new Scheduler({
    store: storage,
    local,
    maxPayloadBytes,
    events,
    logger: config.logger.child('scheduler'),
    clock: config.clock,
  });
  const schedules = new SchedulesApi({
    store: storage,
    open,
    registry,
    maxPayloadBytes,
    clock: config.clock,
    local,
    auditor,
    events,
    changed: () => scheduler.wake(),
  });
  const retention = new RetentionApi({
    store: storage,
    open,
    settings: config.retention,
    retention: engine.retention,
    auditor,
  });
  const flow = new FlowApi({ store: storage, open: open });
  const batches = new BatchesApi({ store: storage, open });

  /** Applies a live control (`chokaq.workers`) where it concerns this process. */
  function applyControl(control: LiveControl): void {
    try {
      if (control.kind === 'concurrency') {
        if (control.workerId === config.workerId) setConcurrency(engine, control.concurrency);
      } else {
        engine.setRetry(control.type, control.retry);
      }
    } catch (error) {
      // A control this process cannot apply (a bad value from another version) changes nothing.
      config.logger.warn('live control not applied', {
        ...logEvent('LiveControlNotApplied'),
        control,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  return {
    config,
    events,
    counts,
    open,
    enqueuer,
    engine,
    scheduler,
    auditor,
    registry,
    cluster,
    jobs,
    queues,
    dlq,
    bulk,
    audit,
    metrics,
    health,
    retention,
    workers,
    flow,
    batches,
    schedules,
  };
}

/**
 * Changes how many jobs `engine` runs at once (1–10,000); takes effect immediately.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` when out of range.
 */
export function setConcurrency(engine: Engine, concurrency: number): void {
  checkInteger(
    concurrency,
    'concurrency',
    { min: 1, max: MAX_CONCURRENCY },
    'CHOKAQ_INVALID_ARGUMENT',
  );
  engine.setConcurrency(concurrency);
}

/** The metrics of an instance, sent to OpenTelemetry (and later Prometheus, when asked). */
function metricsRecorder(
  config: ChokaQSettings,
  events: ChokaQEvents,
  open: () => Promise<void>,
  engine: () => Engine,
): MetricsRecorder {
  const recorder = new MetricsRecorder(
    events,
    {
      runningQueues: () => engine().runningQueues(),
      circuits: () => engine().circuitStats(),
      queueGauges: async () => {
        await open();
        return config.storage.queues.queueGauges();
      },
    },
    { now: () => config.clock.now() },
  );
  const otel = otelSink(config.telemetry.meterProvider, packageVersion(), () => recorder.observe());
  if (otel !== null) recorder.addSink(otel);
  return recorder;
}
