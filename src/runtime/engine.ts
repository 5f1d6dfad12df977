import { RateGate } from './rate-gate.js';
import { logEvent } from '../observability/logging/log-events.js';
import type { JobRegistry } from '../job/registry.js';
import type { RetryOptions } from '../job/retry.js';
import type { ClaimedJob, WorkerPresence } from '../storage/model.js';
import type { CircuitEventName, CircuitStats } from './circuit-breaker.js';
import { waitAtMost } from '../util/clock.js';
import { EventLoopProbe } from './loop-probe.js';
import { RunTracer } from '../observability/tracing/spans.js';
import { packageVersion } from '../version.js';
import { ActiveRuns } from './active-runs.js';
import { CircuitBreakers } from './circuit-breaker.js';
import { Completer } from './completer.js';
import type { ChokaQEvents } from './events.js';
import { Executor } from './executor.js';
import { Heartbeater } from './heartbeater.js';
import { Presence } from './presence.js';
import { Promoter } from './promoter.js';
import { Resolver } from './resolver.js';
import { batchReader } from './batch-reader.js';
import { dependencyReader } from './dependency-reader.js';
import { durableSteps } from './steps.js';
import { Rescuer } from './rescuer.js';
import { Retention } from './retention.js';
import type { EngineSettings } from './settings.js';
import { Worker } from './worker.js';

/** Circuit events that change the state `chokaq status` shows. */
const STATE_CHANGES: ReadonlySet<CircuitEventName> = new Set(['opened', 'closed', 'half_opened']);

/** How long `stop()` waits for aborted handlers to return before giving up on them, in ms. */
const ABORT_WAIT_MS = 5000;

/** The worker's state for the `chokaq_worker` health check. */
export type WorkerHealth =
  | { state: 'off' | 'not-started' | 'stopped' }
  | {
      state: 'running';
      /** Why the claim loop ended unexpectedly; `undefined` while it runs. */
      loopFailure: unknown;
      /** When the claim in flight was sent (clock ms), or `null`. */
      claimSentAt: number | null;
      stopping: boolean;
      /** The longest event-loop stall of the last minute, in ms. */
      worstLoopDelayMs: number;
      concurrency: number;
      running: number;
    };

/** What an {@link Engine} is made of. */
export interface EngineOptions {
  settings: EngineSettings;
  registry: JobRegistry;
  events: ChokaQEvents;
  /** Opens the store once (shared with the enqueue pipeline). */
  open: () => Promise<void>;
  /** Told the size of every claim and settle batch (metrics). Default: none. */
  observer?: {
    claimed(count: number): void;
    settled(count: number): void;
    throttled(job: ClaimedJob, count: number): void;
  };
  /**
   * Runs at stop once every settlement is written, before storage closes (the last cluster
   * events are sent then). Default: none.
   */
  beforeClose?: () => Promise<void>;
  /**
   * This worker's own `chokaq_worker` check, which its workers row records for readers in other
   * processes (The Deck's system health). Default: not recorded.
   */
  health?: () => WorkerPresence['health'];
}

/**
 * The running half of ChokaQ, composed: the worker with its executor and completer, the
 * heartbeater, the recovery loop and the circuit breakers, started and stopped in order.
 */
export class Engine {
  private readonly settings: EngineSettings;
  private readonly runs = new ActiveRuns();
  private readonly completer: Completer;
  private readonly executor: Executor;
  private readonly circuits: CircuitBreakers | undefined;
  private worker: Worker | undefined;
  private readonly loopProbe: EventLoopProbe;
  private stopped = false;
  private heartbeater: Heartbeater | undefined;
  private rescuer: Rescuer | undefined;
  private promoter: Promoter | undefined;
  private resolver: Resolver | undefined;
  private presence: Presence | undefined;
  /** The retention purge: its loop runs with the worker, its passes also on demand. */
  readonly retention: Retention;
  /** Draws rate-limit tokens for this process's worker. */
  private readonly rates: RateGate;

  constructor(private readonly options: EngineOptions) {
    const { settings, registry, events } = options;
    this.settings = settings;
    const { storage, logger, clock } = settings;
    this.loopProbe = new EventLoopProbe(clock, 2 * settings.health.stallTimeoutMs);
    this.retention = new Retention({
      store: storage,
      settings: settings.retention,
      holder: settings.workerId,
      events,
      logger: logger.child('retention'),
      clock,
    });
    const observer = options.observer;
    this.completer = new Completer({
      store: storage,
      logger: logger.child('completer'),
      clock,
      ...(observer ? { onBatch: (size: number) => observer.settled(size) } : {}),
    });
    this.rates = new RateGate({
      rates: storage.rateLimits,
      registry,
      clock,
      logger: logger.child('rates'),
      ...(observer
        ? { onThrottled: (job: ClaimedJob, count: number) => observer.throttled(job, count) }
        : {}),
    });
    this.executor = new Executor({
      onRateLimited: (job, waitMs) => this.rates.block(job, waitMs),
      registry,
      pipe: settings.pipe,
      middleware: settings.middleware,
      retry: settings.retry,
      timeoutMs: settings.timeoutMs,
      queueTimeoutsMs: settings.queueTimeoutsMs,
      completer: this.completer,
      events,
      logger: logger.child('executor'),
      clock,
      runs: this.runs,
      abortGraceMs: settings.abortGraceMs,
      tracer: new RunTracer(settings.telemetry.tracerProvider, packageVersion()),
      dependencies: dependencyReader(storage),
      steps: durableSteps(storage.steps, clock),
      batch: batchReader(storage),
    });
    this.circuits =
      settings.circuitBreaker === false
        ? undefined
        : new CircuitBreakers({
            clock,
            defaultPolicy: settings.circuitBreaker,
            policies: Object.fromEntries(
              registry.all().flatMap((d) => (d.circuit ? [[d.type, d.circuit]] : [])),
            ),
            onEvent: (event) => {
              events.emit('circuit:changed', event);
              // The workers row lists circuits that are not closed: rewrite it when one changes.
              if (STATE_CHANGES.has(event.event)) this.presence?.refresh();
            },
          });
  }

  /** The job types this process's worker can run; `null` for every type (pipe mode). */
  private runnableTypes(): string[] | null {
    return this.settings.pipe
      ? null
      : this.options.registry.all().map((definition) => definition.type);
  }

  /** Jobs running now in this process. */
  get running(): number {
    return this.worker?.running ?? 0;
  }

  /** What the `chokaq_worker` health check reads. */
  workerHealth(): WorkerHealth {
    if (!this.settings.worker) return { state: 'off' };
    if (this.stopped) return { state: 'stopped' };
    const worker = this.worker;
    if (worker === undefined) return { state: 'not-started' };
    return {
      state: 'running',
      ...worker.liveness(),
      worstLoopDelayMs: this.loopProbe.worstDelayMs(),
      concurrency: worker.concurrency,
      running: worker.running,
    };
  }

  /** The queue of every handler running in this process, one entry per run. */
  *runningQueues(): Iterable<string> {
    for (const run of this.runs.all()) yield run.job.queue;
  }

  /** State of every job type's circuit breaker seen so far (empty when breakers are off). */
  circuitStats(): CircuitStats[] {
    return this.circuits?.stats() ?? [];
  }

  /**
   * Opens storage, applies the per-queue settings and, unless the worker is off, starts the
   * heartbeater, the recovery loop and the worker.
   */
  async start(): Promise<void> {
    const { settings } = this;
    await this.options.open();
    // A stop() that came while this waited has closed the store: start nothing more.
    if (this.stopped) return;
    for (const [name, { maxWorkers, zombieTimeoutSeconds, keepSucceeded }] of Object.entries(
      settings.queueStart,
    )) {
      if (
        maxWorkers === undefined &&
        zombieTimeoutSeconds === undefined &&
        keepSucceeded === undefined
      ) {
        continue;
      }
      await settings.storage.queues.updateQueue(name, {
        ...(maxWorkers === undefined ? {} : { maxWorkers }),
        ...(zombieTimeoutSeconds === undefined ? {} : { zombieTimeoutSeconds }),
        ...(keepSucceeded === undefined ? {} : { keepSucceeded }),
      });
    }
    if (!settings.worker || this.stopped) return;
    this.loopProbe.start();
    this.startMaintenance();
    const { storage, logger, clock } = settings;
    this.worker = new Worker({
      workerId: settings.workerId,
      concurrency: settings.concurrency,
      prefetch: settings.prefetch,
      // Half the stale-claim timeout: a claim that old may be rescued before its start is recorded.
      trustClaimsForMs: settings.fetchedTimeoutMs / 2,
      strictStarts: new Set(
        this.options.registry
          .all()
          .filter((definition) => definition.strictStart)
          .map((definition) => definition.type.toLowerCase()),
      ),
      batchSizes: new Map(
        this.options.registry
          .all()
          .filter((definition) => definition.batchSize > 1)
          .map((definition) => [definition.type.toLowerCase(), definition.batchSize]),
      ),
      pollIntervalMs: settings.pollIntervalMs,
      queues: settings.workerQueues,
      // A worker claims only what it can run; pipe mode runs every type.
      types: this.runnableTypes(),
      store: storage,
      executor: this.executor,
      circuits: this.circuits,
      circuitDelayMs: settings.circuitDelayMs,
      rates: this.rates,
      completer: this.completer,
      events: this.options.events,
      logger: logger.child('worker'),
      clock,
      ...(this.options.observer
        ? { onClaim: (count: number) => this.options.observer?.claimed(count) }
        : {}),
    });
    await this.worker.start();
    // Listed before start() resolves, as the started worker it now is (its health, its types).
    if (!this.stopped) await this.presence?.start();
    // A stop() that came during those awaits has stopped the worker and the loops already.
    if (this.stopped) return;
    logger.info('worker started', {
      ...logEvent('WorkerStarted'),
      workerId: settings.workerId,
      storage: storage.kind,
      concurrency: settings.concurrency,
    });
  }

  /** Starts the heartbeat of running jobs and the recovery loop. */
  private startMaintenance(): void {
    const { settings } = this;
    const { storage, logger, clock } = settings;
    const events = this.options.events;
    this.heartbeater = new Heartbeater({
      store: storage,
      runs: this.runs,
      intervalMs: settings.heartbeatIntervalMs,
      failureThreshold: settings.heartbeatFailureThreshold,
      cancelOnFailure: settings.cancelOnHeartbeatFailure,
      events,
      logger: logger.child('heartbeat'),
      clock,
    });
    this.heartbeater.start();
    const retryZombieTypes: Record<string, number> = {};
    for (const definition of this.options.registry.all()) {
      if (definition.maxLostRuns > 0) retryZombieTypes[definition.type] = definition.maxLostRuns;
    }
    this.rescuer = new Rescuer({
      store: storage,
      intervalMs: settings.rescueIntervalMs,
      rescue: {
        fetchedTimeoutMs: settings.fetchedTimeoutMs,
        processingTimeoutMs: settings.zombieTimeoutMs,
        retryZombieTypes,
      },
      events,
      logger: logger.child('rescue'),
      clock,
    });
    this.rescuer.start();
    // Scheduled jobs become pending when due; at most one poll interval late (docs/state-machine.md).
    this.promoter = new Promoter({
      store: storage,
      intervalMs: settings.pollIntervalMs,
      events,
      logger: logger.child('promote'),
      clock,
    });
    this.promoter.start();
    // Jobs that wait for others, left undecided by a process that died after a settle.
    this.resolver = new Resolver({
      store: storage,
      intervalMs: settings.rescueIntervalMs,
      events,
      logger: logger.child('resolve'),
      clock,
    });
    this.resolver.start();
    this.retention.start();
    this.presence = new Presence({
      store: storage,
      workerId: settings.workerId,
      version: packageVersion(),
      describe: () => ({
        concurrency: this.worker?.concurrency ?? settings.concurrency,
        running: this.running,
        queues: settings.workerQueues ? [...settings.workerQueues] : null,
        circuits: this.circuitStats().flatMap((c) =>
          c.state === 'closed' ? [] : [{ type: c.key, state: c.state }],
        ),
        breakers: this.circuitStats().map((c) => ({
          type: c.key,
          state: c.state,
          resetAt: c.resetAt,
        })),
        // What it can run, so a reader can tell which due jobs no live worker takes.
        types: this.runnableTypes(),
        health: this.options.health?.() ?? null,
        lag: {
          ...settings.health.lag,
          queues: { ...settings.health.queueLag },
        },
      }),
      clock,
    });
  }

  /** The ids among `ids` whose runs are in progress in this process. */
  runningHere(ids: readonly string[]): string[] {
    return ids.filter((id) => this.runs.get(id) !== undefined);
  }

  /**
   * Aborts the run of `id` in this process, if any (its cancel request is already stored), in the
   * name of `requester`: the actor stored with the request, as a heartbeat would report it.
   */
  abortLocal(id: string, requester: string): void {
    this.runs.get(id)?.abort('cancel', `Cancelled by ${requester} while running`);
  }

  /** Marks a queue paused or resumed for this process's worker without waiting for a re-read. */
  notePaused(queue: string, paused: boolean): void {
    this.worker?.notePaused(queue, paused);
  }

  /** How many jobs this process runs at once now. */
  get concurrency(): number {
    return this.worker?.concurrency ?? this.settings.concurrency;
  }

  /** Changes how many jobs this process runs at once. */
  /** Changes job type `type`'s retry settings here; `false` when this process does not run it. */
  setRetry(type: string, retry: RetryOptions): boolean {
    return this.executor.setRetry(type, retry);
  }

  setConcurrency(concurrency: number): void {
    this.worker?.setConcurrency(concurrency);
    // Readers in other processes see the new capacity at once, not at the next write.
    this.presence?.refresh();
  }

  /**
   * Graceful stop: the recovery loop ends, the worker claims no more and returns prefetched jobs,
   * running handlers get `shutdownGracePeriod`, then their signals abort (up to a few seconds more
   * for them to return), heartbeats end once no handler runs, settlements are written and storage
   * closes.
   */
  async stop(): Promise<void> {
    const { settings } = this;
    this.stopped = true;
    this.loopProbe.stop();
    await this.retention.stop();
    await this.rescuer?.stop();
    await this.promoter?.stop();
    await this.resolver?.stop();
    if (this.worker) {
      const stillRunning = await this.worker.stop(settings.shutdownGraceMs);
      if (stillRunning > 0) {
        settings.logger.warn('grace period over; aborting running jobs', {
          ...logEvent('WorkerShutdownTimedOut'),
          running: stillRunning,
        });
        for (const run of this.runs.all()) run.abort('shutdown', 'Worker shutdown');
        const settled = await waitAtMost(settings.clock, this.worker.idle(), ABORT_WAIT_MS);
        if (!settled && this.worker.running > 0) {
          // A handler that ignores its signal keeps running; its job stays processing and is
          // found by zombie rescue. Stopping must not hang on it.
          settings.logger.error('handlers ignored their abort signal; stopping without them', {
            ...logEvent('ProcessingTaskDrainTimedOut'),
            running: this.worker.running,
          });
        }
      }
    }
    this.executor.stop();
    // Heartbeats run until the handlers are done, so a long graceful drain is not taken for a zombie.
    await this.heartbeater?.stop();
    await this.completer.drain();
    await this.presence?.stop();
    await this.options.beforeClose?.();
    await settings.storage.close();
    if (this.worker) {
      settings.logger.info('worker stopped', {
        ...logEvent('WorkerStopped'),
        workerId: settings.workerId,
      });
    }
  }
}
