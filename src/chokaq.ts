import type { ChokaQOptions } from './config/options.js';
import type { ChokaQSettings } from './config/resolve.js';
import { compose, setConcurrency } from './composition.js';
import type { Enqueuer } from './enqueue/enqueuer.js';
import { WorkflowCollector, type WorkflowBuilder } from './enqueue/workflow-builder.js';
import { BatchCollector, type BatchBuilder } from './enqueue/batch-builder.js';
import type { EnqueueBatchResult } from './enqueue/enqueuer.js';
import type { BatchesApi } from './operator/batches-api.js';
import type {
  EnqueueItem,
  EnqueueManyOptions,
  EnqueueOptions,
  PayloadOf,
} from './enqueue/options.js';
import { ChokaQError } from './errors.js';
import { validateJobId, validateQueueName } from './job/envelope.js';
import { checkEvent } from './runtime/steps.js';
import type { SendEventResult } from './storage/step-store.js';
import type { AnyJobDefinition } from './job/registry.js';
import type { HealthApi } from './observability/health/health-api.js';
import type { MetricsApi } from './observability/metrics/metrics-api.js';
import type { Logger } from './observability/logging/logger.js';
import {
  checkActorOptions,
  type ActorOptions,
  type AuditApi,
  type Auditor,
} from './operator/audit.js';
import type { BulkApi } from './operator/bulk.js';
import { engineConfiguration, type EngineConfiguration } from './operator/configuration.js';
import type { DlqApi } from './operator/dlq-api.js';
import type { FlowApi } from './operator/flow-api.js';
import {
  checkArchiveFilter,
  checkHotFilter,
  checkIds,
  type ArchiveFilter,
  type HotFilter,
} from './operator/inputs.js';
import type { JobsApi } from './operator/jobs-api.js';
import type { LiveControls } from './operator/live-controls.js';
import type { QueuesApi } from './operator/queues-api.js';
import type { RetentionApi } from './operator/retention-api.js';
import {
  statusReport,
  throughputSeries,
  type StatusReport,
  type ThroughputSeries,
} from './operator/status.js';
import type { CircuitStats } from './runtime/circuit-breaker.js';
import type { ClusterEvents } from './runtime/cluster-events.js';
import type { EngineCounters } from './runtime/counters.js';
import type { Engine } from './runtime/engine.js';
import type { ChokaQEventMap, ChokaQEventName, ChokaQEvents } from './runtime/events.js';
import type { Scheduler } from './schedule/scheduler.js';
import type { SchedulesApi } from './schedule/schedules-api.js';
import type {
  ArchivedJob,
  CancelResult,
  EnqueueResult,
  FoundJob,
  HotJob,
} from './storage/model.js';
import type { Store } from './storage/store.js';
import { checkInteger, checkOptions, invalid } from './util/check.js';

export type { ActorOptions } from './operator/audit.js';
export type { DeadJobEdit, ResurrectOptions } from './operator/dlq-api.js';

/** Options of {@link ChokaQ.cancel}: `actor` is also recorded in the cancelled jobs' error text. */
export type CancelOptions = ActorOptions;

/**
 * The ChokaQ engine: enqueue jobs, run workers, operate queues and the dead-letter queue. This
 * class only checks inputs and delegates: the enqueue pipeline lives in `enqueue/`, the running
 * half in `runtime/engine.ts`, storage behind the store of `options.storage`.
 * A process that only enqueues passes `worker: false` (or never calls `start()`).
 */
export class ChokaQ {
  private readonly config: ChokaQSettings;
  private readonly events: ChokaQEvents;
  private readonly counts: Readonly<EngineCounters>;
  private readonly open: () => Promise<void>;
  private readonly enqueuer: Enqueuer;
  private readonly engine: Engine;
  /** Operator calls on jobs wherever they are: query, count, detail with timeline, edit. */
  readonly jobs: JobsApi;
  /** Operator calls on queues: list, stats, pause, caps, zombie timeouts, history, activation. */
  readonly queues: QueuesApi;
  /** Operator calls on the dead-letter queue: list, resurrect, edit, error groups, purge. */
  readonly dlq: DlqApi;
  /** Safe bulk actions: preview, confirm with a token, run durably in batches, cancel. */
  readonly bulk: BulkApi;
  /** The operator audit trail. */
  readonly audit: AuditApi;
  /** The Prometheus endpoint of this instance's metrics (see docs/observability.md). */
  readonly metrics: MetricsApi;
  /** Liveness and readiness checks, as functions and as a `(req, res)` handler. */
  readonly health: HealthApi;
  /** The retention purge on demand: a preview of what it would delete, and a purge now. */
  readonly retention: RetentionApi;
  /**
   * Settings of running processes changed while they run, from any process: a worker's
   * concurrency, a job type's retry settings (sent through the cluster events' channel).
   */
  readonly workers: LiveControls;
  /** Flow control now: concurrency keys in use and rate buckets (docs/flow-control.md). */
  readonly flow: FlowApi;
  /** Batches of `enqueueBatch` by id: their counts and callbacks (docs/workflows.md). */
  readonly batches: BatchesApi;
  /** Recurring jobs: add, update, pause, resume, remove, trigger, list (docs/recurring-jobs.md). */
  readonly schedules: SchedulesApi;
  /** Fires due ticks while the worker runs. */
  private readonly scheduler: Scheduler;
  private readonly auditor: Auditor;
  private readonly cluster: ClusterEvents | undefined;
  private state: 'new' | 'started' | 'stopped' = 'new';

  /** @throws ChokaQError when an option is invalid (see `ChokaQOptions`); the message names it. */
  constructor(options: ChokaQOptions) {
    ({
      config: this.config,
      events: this.events,
      counts: this.counts,
      open: this.open,
      enqueuer: this.enqueuer,
      engine: this.engine,
      scheduler: this.scheduler,
      auditor: this.auditor,
      cluster: this.cluster,
      jobs: this.jobs,
      queues: this.queues,
      dlq: this.dlq,
      bulk: this.bulk,
      audit: this.audit,
      metrics: this.metrics,
      health: this.health,
      retention: this.retention,
      workers: this.workers,
      flow: this.flow,
      batches: this.batches,
      schedules: this.schedules,
    } = compose(options));
  }

  /** State of every job type's circuit breaker seen so far (empty when breakers are off). */
  circuitStats(): CircuitStats[] {
    return this.engine.circuitStats();
  }

  /** The storage this engine uses. */
  get storage(): Store {
    return this.config.storage;
  }

  /** The logger this engine logs through (`options.logger`, default the console's). */
  get logger(): Logger {
    return this.config.logger;
  }

  /** This process's worker id. */
  get workerId(): string {
    return this.config.workerId;
  }

  /** Counts of conflicts, heartbeat failures, lost runs and skips in this process (a copy). */
  get counters(): EngineCounters {
    return { ...this.counts };
  }

  /**
   * The configuration this engine runs with: its options after defaults and checks, durations in
   * ms, per queue and engine-wide — what The Deck's Settings panel shows. Holds no secret: the
   * storage is named by its kind only, functions and providers only as whether they are set.
   */
  configuration(): EngineConfiguration {
    return engineConfiguration(this.config, this.engine.concurrency, this.config.schedules.length);
  }

  /** Jobs running now in this process. */
  get running(): number {
    return this.engine.running;
  }

  /**
   * Adds an event listener (see {@link ChokaQEventMap}).
   * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` for an unknown event name.
   */
  on<E extends ChokaQEventName>(event: E, listener: (payload: ChokaQEventMap[E]) => void): this {
    this.events.on(event, listener);
    return this;
  }

  /**
   * Removes an event listener; added more than once, its latest registration goes (as Node's
   * `EventEmitter.off`).
   */
  off<E extends ChokaQEventName>(event: E, listener: (payload: ChokaQEventMap[E]) => void): this {
    this.events.off(event, listener);
    return this;
  }

  /**
   * Opens storage (migrating when the provider is set to), applies per-queue settings, saves the
   * declared schedules and, unless `worker: false`, starts the worker and the scheduler.
   * Idempotent.
   */
  async start(): Promise<void> {
    this.assertNotStopped();
    if (this.state === 'started') return;
    this.state = 'started';
    // Schedules first: a declared payload that fails its schema stops start() before any worker.
    await this.schedules.declare(this.config.schedules);
    await this.engine.start();
    // A stop() while the engine started: start no loop it would not stop.
    if (this.stopRequested()) return;
    if (this.config.worker) this.scheduler.start();
    await this.cluster?.start();
  }

  /** Whether stop() was called (read after an await in start()). */
  private stopRequested(): boolean {
    return this.state === 'stopped';
  }

  /**
   * Graceful stop: claims no more jobs, returns prefetched jobs to pending, waits up to
   * `shutdownGracePeriod` for running handlers, then aborts their signals (an aborted run is
   * rescheduled at once), settles everything and closes storage. Idempotent.
   */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    await this.scheduler.stop();
    await this.engine.stop();
  }

  /**
   * Changes how many jobs this process runs at once (1–10,000); takes effect immediately.
   * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` when out of range.
   */
  setConcurrency(concurrency: number): void {
    setConcurrency(this.engine, concurrency);
  }

  /**
   * Enqueues one job. Checks the envelope and (with a schema) the payload before anything is
   * written. Resolves to the job id and whether it was created (`false`: an active job holds the
   * idempotency key, and its id is returned).
   * @throws ChokaQError with a stable code naming the field (`options.priority`, …); nothing is
   *   written.
   */
  async enqueue<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options?: EnqueueOptions,
  ): Promise<EnqueueResult> {
    this.assertNotStopped();
    return this.enqueuer.one(job, payload, options);
  }

  /**
   * Enqueues many jobs of one type (up to 100,000) in a single atomic write: all are checked
   * first, and either all are written or none.
   * @throws ChokaQError naming the item and field (`items[3].delay`); nothing is written.
   */
  async enqueueMany<D extends AnyJobDefinition | string>(
    job: D,
    items: readonly EnqueueItem<PayloadOf<D>>[],
    options?: EnqueueManyOptions,
  ): Promise<EnqueueResult[]> {
    this.assertNotStopped();
    return this.enqueuer.many(job, items, options);
  }

  /**
   * Enqueues a workflow: jobs of any types that may wait for each other (`dependsOn`), written
   * in a single atomic step (also in your transaction, with `options.client`). `build` adds the
   * jobs; each `add` returns the job's id for the `dependsOn` of later ones. A job that waits
   * is `awaiting` until its dependencies finish; see docs/workflows.md. Results follow the order
   * of the adds.
   * @throws ChokaQError naming the job and field (`workflow[2].dependsOn[0]`), or
   *   `CHOKAQ_DEPENDENCY_CYCLE`, `CHOKAQ_UNKNOWN_DEPENDENCY`; nothing is written.
   */
  async enqueueWorkflow(
    build: (workflow: WorkflowBuilder) => void,
    options?: EnqueueManyOptions,
  ): Promise<EnqueueResult[]> {
    this.assertNotStopped();
    if (typeof build !== 'function') {
      throw invalid('CHOKAQ_INVALID_ARGUMENT', 'build', 'a function', build);
    }
    const workflow = new WorkflowCollector();
    build(workflow);
    return this.enqueuer.workflow(workflow.entries, options);
  }

  /**
   * Sends an event to job `id` on `topic` (docs/workflows.md#events): the job's
   * `ctx.waitForEvent(…, topic, …)` takes it — at once when the job waits for it now (the job is
   * due at once), or when it reaches the wait later (events wait in order, each taken once).
   * `data` must be JSON (at most 64 KiB). Resolves `woke: true` when the event woke a waiting job.
   * @throws ChokaQError `CHOKAQ_INVALID_JOB_ID`, `CHOKAQ_INVALID_ARGUMENT` (topic, data), or
   *   `CHOKAQ_JOB_NOT_ACTIVE` when the job is finished, dead or unknown; nothing is kept then.
   */
  async sendEvent(id: string, topic: string, data?: unknown): Promise<SendEventResult> {
    this.assertNotStopped();
    validateJobId(id);
    const text = checkEvent(topic, data);
    await this.open();
    return this.config.storage.steps.send(id, topic, text);
  }

  /**
   * Enqueues a batch: jobs (up to 100,000) counted as they finish, and callback jobs that run once
   * each — when every job succeeded (`onSuccess`), when every job finished (`onComplete`), at the
   * first death (`onDeath`). `build` adds the jobs and names the callbacks; all are written with
   * the batch in a single atomic step (also in your transaction, with `options.client`). A
   * callback reads its batch's counts with `ctx.batch()`; see docs/workflows.md, "Batches".
   * @returns The batch's id, its jobs' results in the order added, and its callbacks' job ids.
   * @throws ChokaQError naming the job and field (`batch[2].priority`, `batch.onDeath.payload`),
   *   `CHOKAQ_INVALID_ARGUMENT` for a batch without jobs or a callback named twice,
   *   `CHOKAQ_TRANSACTION_UNSUPPORTED` for `options.client` on a store without it; nothing is
   *   written.
   */
  async enqueueBatch(
    build: (batch: BatchBuilder) => void,
    options?: EnqueueManyOptions,
  ): Promise<EnqueueBatchResult> {
    this.assertNotStopped();
    if (typeof build !== 'function') {
      throw invalid('CHOKAQ_INVALID_ARGUMENT', 'build', 'a function', build);
    }
    const batch = new BatchCollector();
    build(batch);
    return this.enqueuer.batch(batch.members, batch.callbacks, options);
  }

  /**
   * Cancels jobs from any process. Pending and fetched jobs move to the DLQ as `Cancelled` at
   * once; running ones get a persisted cancel request: a run in this process is aborted
   * immediately, one in another process at its owner's next heartbeat. A handler that honours
   * its signal ends in the DLQ as `Cancelled`; one that ignores it is abandoned after
   * `abortGracePeriod` and finalised the same way.
   */
  async cancel(ids: readonly string[], options?: CancelOptions): Promise<CancelResult> {
    const checked = checkIds(ids);
    const { actor, reason } = checkActorOptions(options);
    await this.open();
    const result = await this.config.storage.jobs.cancel(checked, actor);
    // A run in this process stops now rather than at its next heartbeat, in the name of whoever
    // asked first (the request keeps the first requester, here or in another process).
    for (const id of this.engine.runningHere(result.requested)) {
      const found = await this.config.storage.operator.getJob(id);
      const requester = found?.where === 'hot' ? found.job.cancelRequestedBy : null;
      this.engine.abortLocal(id, requester ?? actor);
    }
    await this.auditor.record({
      actor,
      action: 'cancel',
      reason,
      target: { ids: checked },
      outcome: result,
    });
    return result;
  }

  /**
   * Every queue's state (due, scheduled, running, lag, dead, throughput and failure rate over
   * the last minute and five minutes), the five largest DLQ error groups and the worker processes
   * alive — what `chokaq status` shows.
   */
  async status(): Promise<StatusReport> {
    await this.open();
    return statusReport(this.config.storage);
  }

  /**
   * Finished jobs (succeeded, and dead) per interval over the last `minutes` (1–60, default
   * 15), of every queue or of `queue`, in at most 120 intervals: what The Deck's overview charts.
   */
  async throughput(options?: { minutes?: number; queue?: string }): Promise<ThroughputSeries> {
    const o = checkOptions(options, 'options', ['minutes', 'queue'], 'CHOKAQ_INVALID_ARGUMENT');
    const minutes = checkInteger(
      o.minutes ?? 15,
      'options.minutes',
      { min: 1, max: 60 },
      'CHOKAQ_INVALID_ARGUMENT',
    );
    if (o.queue !== undefined) validateQueueName(o.queue, 'options.queue');
    await this.open();
    return throughputSeries(this.config.storage, minutes, o.queue);
  }

  /** Finds a job wherever it is: hot (pending/fetched/processing), archive or DLQ. */
  async getJob(id: string): Promise<FoundJob | null> {
    validateJobId(id);
    await this.open();
    return this.config.storage.operator.getJob(id);
  }

  /** Hot jobs, newest first (at most `filter.limit`, 1–1000, default 100). */
  async listJobs(filter?: HotFilter): Promise<HotJob[]> {
    const checked = checkHotFilter(filter);
    await this.open();
    return this.config.storage.operator.listHot(checked);
  }

  /** Archived (succeeded) jobs, newest first (at most `filter.limit`, 1–1000, default 100). */
  async listArchive(filter?: ArchiveFilter): Promise<ArchivedJob[]> {
    const checked = checkArchiveFilter(filter);
    await this.open();
    return this.config.storage.operator.listArchive(checked);
  }

  private assertNotStopped(): void {
    if (this.state === 'stopped') {
      throw new ChokaQError('CHOKAQ_STOPPED', 'this ChokaQ was stopped');
    }
  }
}
