import { resolveConfig, type ChokaQOptions, type ResolvedConfig } from './config.js';
import { ChokaQError } from './errors.js';
import { parsePayload, type JobDefinition } from './job/define-job.js';
import {
  normalizeIdempotencyKey,
  serializePayload,
  validateAudit,
  validateJobId,
  validatePriority,
  validateQueueName,
  validateTypeKey,
} from './job/envelope.js';
import { JobRegistry, type AnyJobDefinition } from './job/registry.js';
import type { FailureReason, HotState } from './job/state.js';
import { ChokaQEvents, type ChokaQEventMap, type ChokaQEventName } from './observability/events.js';
import { countEvents, type EngineCounters } from './observability/counters.js';
import { Batcher, ItemFailure } from './runtime/batcher.js';
import { Completer } from './runtime/completer.js';
import { ActiveRuns } from './runtime/active-runs.js';
import { CircuitBreakers, type CircuitStats } from './runtime/circuit-breaker.js';
import { Executor } from './runtime/executor.js';
import { Heartbeater } from './runtime/heartbeater.js';
import { Rescuer } from './runtime/rescuer.js';
import { Worker } from './runtime/worker.js';
import type {
  ArchivedJob,
  CancelResult,
  DeadJob,
  EnqueueResult,
  FoundJob,
  HotJob,
  NewJob,
  QueueInfo,
  QueueStats,
} from './storage/contract.js';
import { toMs, type Duration } from './util/duration.js';
import { uuidv7 } from './util/uuid.js';

/** How long `stop()` waits for aborted handlers to return before giving up on them, in ms. */
const ABORT_WAIT_MS = 5000;

/** Options of one enqueue. */
export interface EnqueueOptions {
  /** Job id. Default: a new UUIDv7. */
  id?: string;
  /** Default: the definition's queue, else `'default'`. */
  queue?: string;
  /** Higher runs first. Default: the definition's priority, else `10`. */
  priority?: number;
  /** Wait this long before the job may run. Default: none. */
  delay?: Duration;
  /** Run no earlier than this time (wins over `delay`). Default: none. */
  runAt?: Date;
  /**
   * While a job with this key is pending or running, enqueueing the same key again returns that
   * job's id and writes nothing (`created: false`). Trimmed; blank means none. Default: none.
   */
  idempotencyKey?: string | null;
  /** Free-form tags, comma-separated by convention (≤ 1000 characters). Default: none. */
  tags?: string | null;
  /** Who enqueued (≤ 100 characters), shown to operators. Default: none. */
  createdBy?: string | null;
  /**
   * Enqueue inside your own open transaction (PostgreSQL: a `pg` client after `BEGIN`): the job
   * commits or rolls back with your data. Default: ChokaQ's own transaction.
   */
  client?: unknown;
}

/** One item of {@link ChokaQ.enqueueMany}. */
export interface EnqueueItem<P> extends Omit<EnqueueOptions, 'client'> {
  payload: P;
}

/** The payload type enqueue accepts for a definition (`unknown` for a bare type key). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PayloadOf<D> = D extends JobDefinition<infer In, any> ? In : unknown;

/**
 * The ChokaQ engine: enqueue jobs, run workers, operate queues and the dead-letter queue.
 * A process that only enqueues passes `worker: false` (or never calls `start()`).
 */
export class ChokaQ {
  private readonly config: ResolvedConfig;
  private readonly registry: JobRegistry;
  private readonly events: ChokaQEvents;
  private readonly completer: Completer;
  private readonly inserter = new Batcher<NewJob, EnqueueResult>({
    run: (rows) => this.insertBatch(rows),
  });
  private readonly executor: Executor;
  private readonly runs = new ActiveRuns();
  private readonly counts: Readonly<EngineCounters>;
  private readonly circuits: CircuitBreakers | undefined;
  private heartbeater: Heartbeater | undefined;
  private rescuer: Rescuer | undefined;
  private worker: Worker | undefined;
  private opened: Promise<void> | undefined;
  private state: 'new' | 'started' | 'stopped' = 'new';

  /** @throws ChokaQError when an option is invalid (see `ChokaQOptions`). */
  constructor(options: ChokaQOptions) {
    this.config = resolveConfig(options);
    this.registry = new JobRegistry(this.config.jobs);
    this.events = new ChokaQEvents(this.config.logger.child('events'));
    this.counts = countEvents(this.events);
    this.completer = new Completer({
      store: this.config.storage,
      logger: this.config.logger.child('completer'),
    });
    this.executor = new Executor({
      registry: this.registry,
      pipe: this.config.pipe,
      middleware: this.config.middleware,
      retry: this.config.retry,
      timeoutMs: this.config.timeoutMs,
      queueTimeoutsMs: this.config.queueTimeoutsMs,
      completer: this.completer,
      events: this.events,
      logger: this.config.logger.child('executor'),
      clock: this.config.clock,
      runs: this.runs,
      abortGraceMs: this.config.abortGraceMs,
    });
    const circuitDefault = this.config.circuitBreaker;
    this.circuits =
      circuitDefault === false
        ? undefined
        : new CircuitBreakers({
            clock: this.config.clock,
            defaultPolicy: circuitDefault,
            policies: Object.fromEntries(
              this.registry.all().flatMap((d) => (d.circuit ? [[d.type, d.circuit]] : [])),
            ),
            onEvent: (event) => this.events.emit('circuit:changed', event),
          });
  }

  /** State of every job type's circuit breaker seen so far (empty when breakers are off). */
  circuitStats(): CircuitStats[] {
    return this.circuits?.stats() ?? [];
  }

  /** The storage this engine uses. */
  get storage(): ResolvedConfig['storage'] {
    return this.config.storage;
  }

  /** This process's worker id. */
  get workerId(): string {
    return this.config.workerId;
  }

  /** Counts of conflicts, heartbeat failures, lost runs and skips in this process (a copy). */
  get counters(): EngineCounters {
    return { ...this.counts };
  }

  /** Jobs running now in this process. */
  get running(): number {
    return this.worker?.running ?? 0;
  }

  /** Adds an event listener (see {@link ChokaQEventMap}). */
  on<E extends ChokaQEventName>(event: E, listener: (payload: ChokaQEventMap[E]) => void): this {
    this.events.on(event, listener);
    return this;
  }

  /** Removes an event listener. */
  off<E extends ChokaQEventName>(event: E, listener: (payload: ChokaQEventMap[E]) => void): this {
    this.events.off(event, listener);
    return this;
  }

  /**
   * Opens storage (migrating when the provider is set to), applies per-queue settings and, unless
   * `worker: false`, starts the worker. Idempotent.
   */
  async start(): Promise<void> {
    if (this.state === 'stopped')
      throw new ChokaQError('CHOKAQ_STOPPED', 'this ChokaQ was stopped');
    if (this.state === 'started') return;
    this.state = 'started';
    await this.open();
    for (const [name, settings] of Object.entries(this.config.queues)) {
      const zombieTimeoutSeconds = this.config.queueZombieTimeoutsS[name];
      if (settings.maxWorkers !== undefined || zombieTimeoutSeconds !== undefined) {
        await this.config.storage.updateQueue(name, {
          ...(settings.maxWorkers === undefined ? {} : { maxWorkers: settings.maxWorkers }),
          ...(zombieTimeoutSeconds === undefined ? {} : { zombieTimeoutSeconds }),
        });
      }
    }
    if (!this.config.worker) return;
    this.startMaintenance();
    const { storage, logger, clock } = this.config;
    this.worker = new Worker({
      workerId: this.config.workerId,
      concurrency: this.config.concurrency,
      prefetch: this.config.prefetch,
      pollIntervalMs: this.config.pollIntervalMs,
      queues: this.config.workerQueues,
      store: storage,
      executor: this.executor,
      circuits: this.circuits,
      circuitDelayMs: this.config.circuitDelayMs,
      completer: this.completer,
      events: this.events,
      logger: logger.child('worker'),
      clock,
    });
    await this.worker.start();
    logger.info('worker started', {
      workerId: this.config.workerId,
      storage: storage.kind,
      concurrency: this.config.concurrency,
    });
  }

  /** Starts the heartbeat of running jobs and the recovery loop. */
  private startMaintenance(): void {
    const { storage, logger } = this.config;
    this.heartbeater = new Heartbeater({
      store: storage,
      runs: this.runs,
      intervalMs: this.config.heartbeatIntervalMs,
      failureThreshold: this.config.heartbeatFailureThreshold,
      cancelOnFailure: this.config.cancelOnHeartbeatFailure,
      events: this.events,
      logger: logger.child('heartbeat'),
    });
    this.heartbeater.start();
    const retryZombieTypes: Record<string, number> = {};
    for (const definition of this.registry.all()) {
      if (definition.maxLostRuns > 0)
        retryZombieTypes[definition.type.toLowerCase()] = definition.maxLostRuns;
    }
    this.rescuer = new Rescuer({
      store: storage,
      intervalMs: this.config.rescueIntervalMs,
      rescue: {
        fetchedTimeoutMs: this.config.fetchedTimeoutMs,
        processingTimeoutMs: this.config.zombieTimeoutMs,
        retryZombieTypes,
      },
      events: this.events,
      logger: logger.child('rescue'),
    });
    this.rescuer.start();
  }

  /**
   * Cancels jobs from any process. Pending and fetched jobs move to the DLQ as `Cancelled` at
   * once; running ones get a persisted cancel request: a run in this process is aborted
   * immediately, one in another process at its owner's next heartbeat. A handler that honours
   * its signal ends in the DLQ as `Cancelled`; one that ignores it is abandoned after
   * `abortGracePeriod` and finalised the same way.
   */
  async cancel(ids: readonly string[], options: { actor?: string } = {}): Promise<CancelResult> {
    ids.forEach((id) => validateJobId(id));
    const actor = options.actor ?? 'operator';
    await this.open();
    const result = await this.config.storage.cancel(ids, actor);
    for (const id of result.requested)
      this.runs.get(id)?.abort('cancel', `Cancelled by ${actor} while running`);
    return result;
  }

  /**
   * Graceful stop: claims no more jobs, returns prefetched jobs to pending, waits up to
   * `shutdownGracePeriod` for running handlers, then aborts their signals (an aborted run is
   * rescheduled at once), settles everything and closes storage. Idempotent.
   */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    await this.rescuer?.stop();
    if (this.worker) {
      const stillRunning = await this.worker.stop(this.config.shutdownGraceMs);
      if (stillRunning > 0) {
        this.config.logger.warn('grace period over; aborting running jobs', {
          running: stillRunning,
        });
        for (const run of this.runs.all()) run.abort('shutdown', 'Worker shutdown');
        const settled = await Promise.race([
          this.worker.idle().then(() => true),
          new Promise<boolean>((resolve) =>
            setTimeout(() => resolve(false), ABORT_WAIT_MS).unref(),
          ),
        ]);
        if (!settled && this.worker.running > 0) {
          // A handler that ignores its signal keeps running; its job stays processing and is
          // found by zombie rescue. Stopping must not hang on it.
          this.config.logger.error('handlers ignored their abort signal; stopping without them', {
            running: this.worker.running,
          });
        }
      }
    }
    // Heartbeats run until the handlers are done, so a long graceful drain is not taken for a zombie.
    await this.heartbeater?.stop();
    await this.completer.drain();
    await this.config.storage.close();
  }

  /** Changes how many jobs this process runs at once; takes effect immediately. */
  setConcurrency(concurrency: number): void {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_CONFIG',
        `concurrency must be an integer ≥ 1, got ${concurrency}`,
      );
    }
    this.worker?.setConcurrency(concurrency);
  }

  /**
   * Enqueues one job. Validates the envelope and (with a schema) the payload before anything is
   * written. Resolves to the job id and whether it was created (`false`: an active job holds the
   * idempotency key, and its id is returned).
   * @throws ChokaQError with a stable code for invalid input; nothing is written.
   */
  async enqueue<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options: EnqueueOptions = {},
  ): Promise<EnqueueResult> {
    const [result] = await this.enqueueMany(
      job,
      [{ ...options, payload }],
      options.client === undefined ? {} : { client: options.client },
    );
    return result as EnqueueResult;
  }

  /**
   * Enqueues many jobs of one type in a single atomic write: all are validated first, and either
   * all are written or none.
   */
  async enqueueMany<D extends AnyJobDefinition | string>(
    job: D,
    items: readonly EnqueueItem<PayloadOf<D>>[],
    options: { client?: unknown } = {},
  ): Promise<EnqueueResult[]> {
    if (this.state === 'stopped')
      throw new ChokaQError('CHOKAQ_STOPPED', 'this ChokaQ was stopped');
    const definition = this.definitionFor(job);
    // Synchronous checks for every item first; schema validation (possibly async) only after.
    const type = definition?.type ?? (job as string);
    const rows = items.map((item) => this.toNewJob(type, definition, item));
    if (definition?.schema) {
      await Promise.all(items.map((item) => parsePayload(definition, item.payload)));
    }
    if (rows.length === 0) return [];
    await this.open();
    const { storage } = this.config;
    let results: EnqueueResult[];
    if (options.client !== undefined) {
      if (!storage.enqueueWithin) {
        throw new ChokaQError(
          'CHOKAQ_TRANSACTION_UNSUPPORTED',
          `storage '${storage.kind}' cannot enqueue in a caller transaction`,
        );
      }
      results = await storage.enqueueWithin(options.client, rows);
    } else if (rows.length === 1) {
      // Single enqueues from concurrent callers share one insert (see `inserter`).
      results = [await this.inserter.add(rows[0] as NewJob)];
    } else {
      results = await storage.enqueue(rows);
    }
    results.forEach((result, i) => {
      const row = rows[i] as NewJob;
      this.events.emit('job:enqueued', {
        id: result.id,
        type: row.type,
        queue: row.queue,
        created: result.created,
      });
    });
    return results;
  }

  /**
   * Writes single enqueues that arrive in the same event-loop turn with one statement: one
   * commit for many callers instead of one each. The statement is atomic, so if it fails for one
   * row (a duplicate id), the rows are written one by one and only that caller sees the error.
   */
  private async insertBatch(rows: NewJob[]): Promise<(EnqueueResult | ItemFailure)[]> {
    const { storage } = this.config;
    try {
      return await storage.enqueue(rows);
    } catch (error) {
      const retryable = error instanceof ChokaQError && error.retryable;
      if (rows.length === 1 || retryable) throw error;
      return Promise.all(
        rows.map((row) =>
          storage.enqueue([row]).then(
            ([result]) => result as EnqueueResult,
            (rowError: unknown) => new ItemFailure(rowError),
          ),
        ),
      );
    }
  }

  /** Finds a job wherever it is: hot (pending/fetched/processing), archive or DLQ. */
  async getJob(id: string): Promise<FoundJob | null> {
    await this.open();
    return this.config.storage.getJob(id);
  }

  /** Hot jobs, newest first. */
  async listJobs(
    filter: { queue?: string; state?: HotState; limit?: number } = {},
  ): Promise<HotJob[]> {
    await this.open();
    return this.config.storage.listHot({ ...filter, limit: filter.limit ?? 100 });
  }

  /** Archived (succeeded) jobs, newest first. */
  async listArchive(filter: { queue?: string; limit?: number } = {}): Promise<ArchivedJob[]> {
    await this.open();
    return this.config.storage.listArchive({ ...filter, limit: filter.limit ?? 100 });
  }

  /** Operator calls on queues. */
  readonly queues = {
    /** Every known queue with its controls. */
    list: async (): Promise<QueueInfo[]> => {
      await this.open();
      return this.config.storage.listQueues();
    },
    /** Counts and lifetime counters per queue. */
    stats: async (): Promise<QueueStats[]> => {
      await this.open();
      return this.config.storage.queueStats();
    },
    /** Stops claiming from a queue; running jobs finish. Prefetched jobs go back to pending. */
    pause: (name: string): Promise<QueueInfo> => this.patchQueue(name, { paused: true }),
    /** Resumes a paused queue. */
    resume: (name: string): Promise<QueueInfo> => this.patchQueue(name, { paused: false }),
    /** Caps running + prefetched jobs of a queue across all processes; `null` removes the cap. */
    setMaxWorkers: (name: string, maxWorkers: number | null): Promise<QueueInfo> => {
      if (maxWorkers !== null && (!Number.isInteger(maxWorkers) || maxWorkers < 1)) {
        return Promise.reject(
          new ChokaQError('CHOKAQ_INVALID_CONFIG', 'maxWorkers must be an integer ≥ 1 or null'),
        );
      }
      return this.patchQueue(name, { maxWorkers });
    },
    /** Hides (inactive: never claimed) or shows a queue. */
    setActive: (name: string, active: boolean): Promise<QueueInfo> =>
      this.patchQueue(name, { active }),
  };

  /** Operator calls on the dead-letter queue. */
  readonly dlq = {
    /** DLQ jobs, newest failure first. */
    list: async (
      filter: { queue?: string; reason?: FailureReason; limit?: number } = {},
    ): Promise<DeadJob[]> => {
      await this.open();
      return this.config.storage.listDead({ ...filter, limit: filter.limit ?? 100 });
    },
    /**
     * Moves DLQ jobs back to pending with attempts reset; optional edits apply to all of them.
     * Resolves to the ids moved (ids no longer in the DLQ are skipped).
     */
    resurrect: async (
      ids: readonly string[],
      options: { actor?: string; payload?: unknown; priority?: number } = {},
    ): Promise<string[]> => {
      ids.forEach((id) => validateJobId(id));
      if (options.priority !== undefined) validatePriority(options.priority);
      const payload =
        options.payload === undefined
          ? undefined
          : serializePayload(options.payload, this.config.maxPayloadBytes);
      await this.open();
      return this.config.storage.resurrect(ids, {
        actor: options.actor ?? 'operator',
        ...(payload === undefined ? {} : { payload }),
        ...(options.priority === undefined ? {} : { priority: options.priority }),
      });
    },
    /** Deletes DLQ jobs for good; resolves to how many were deleted. */
    purge: async (ids: readonly string[]): Promise<number> => {
      ids.forEach((id) => validateJobId(id));
      await this.open();
      return this.config.storage.purgeDead(ids);
    },
  };

  private async patchQueue(
    name: string,
    patch: Parameters<ResolvedConfig['storage']['updateQueue']>[1],
  ): Promise<QueueInfo> {
    validateQueueName(name);
    await this.open();
    const info = await this.config.storage.updateQueue(name, patch);
    if (patch.paused !== undefined || patch.active !== undefined) {
      this.worker?.notePaused(info.name, info.paused || !info.active);
    }
    this.events.emit('queue:updated', info);
    return info;
  }

  private open(): Promise<void> {
    this.opened ??= this.config.storage.open().catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
    return this.opened;
  }

  /** The definition enqueues of `job` use; a bare type key needs a definition or the pipe. */
  private definitionFor(job: AnyJobDefinition | string): AnyJobDefinition | undefined {
    if (typeof job !== 'string') return job;
    const definition = this.registry.find(job);
    validateTypeKey(job);
    if (!definition && !this.config.pipe) {
      throw new ChokaQError(
        'CHOKAQ_UNKNOWN_JOB_TYPE',
        `no job definition for type '${job}' and no pipe handler`,
      );
    }
    return definition;
  }

  /** The row for one item, its envelope validated (the payload schema is checked by the caller). */
  private toNewJob(
    type: string,
    definition: AnyJobDefinition | undefined,
    item: EnqueueItem<unknown>,
  ): NewJob {
    const queue = item.queue ?? definition?.queue ?? 'default';
    validateQueueName(queue);
    const priority = item.priority ?? definition?.priority ?? 10;
    validatePriority(priority);
    const id = item.id ?? uuidv7(this.config.clock.now());
    validateJobId(id);
    const tags = item.tags ?? null;
    const createdBy = item.createdBy ?? null;
    validateAudit(createdBy, tags);
    if (item.runAt !== undefined && Number.isNaN(item.runAt.getTime())) {
      throw new ChokaQError('CHOKAQ_INVALID_CONFIG', 'runAt is not a valid date');
    }
    const delayMs =
      item.runAt !== undefined
        ? Math.max(0, item.runAt.getTime() - this.config.clock.now())
        : item.delay === undefined
          ? 0
          : toMs(item.delay, 'delay');
    return {
      id,
      queue,
      type,
      payload: serializePayload(item.payload, this.config.maxPayloadBytes),
      priority,
      delayMs,
      idempotencyKey: normalizeIdempotencyKey(item.idempotencyKey),
      tags,
      createdBy,
    };
  }
}
