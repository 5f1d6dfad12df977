import type { Store } from '../storage/store.js';
import { logEvent } from '../observability/logging/log-events.js';
import { jobEventBase, type ChokaQEvents } from './events.js';
import type { Logger } from '../observability/logging/logger.js';
import type { ClaimedJob } from '../storage/model.js';
import type { HandoffRequest, Lease, Settlement } from '../storage/job-store.js';
import { waitAtMost, type Clock } from '../util/clock.js';
import { BackgroundRefresh } from '../util/background-refresh.js';
import { Batcher } from '../util/batcher.js';
import type { Completer, HandoffTaker } from './completer.js';
import type { CircuitBreakers, CircuitPermit } from './circuit-breaker.js';
import type { Executor } from './executor.js';
import type { RunResult } from './run-types.js';
import { takeBatch, type Buffered } from './batch-group.js';
import type { RateGate } from './rate-gate.js';
import { PrefetchWindow } from './prefetch-window.js';
import { Slots } from './slots.js';
import type { StartRecord } from './start-record.js';
import { jitter, Wakeup } from './wakeup.js';

/** Settings of a {@link Worker}. */
export interface WorkerOptions {
  workerId: string;
  /** Jobs run at once by this process. */
  concurrency: number;
  /** Claimed jobs kept ready beyond the free slots: a number, or `auto` (see `PrefetchWindow`). */
  prefetch: number | 'auto';
  /** Job types whose runs' starts are written before their handlers are called. */
  strictStarts: ReadonlySet<string>;
  /** Most jobs per batch of each batch-handled job type (lower-cased keys; sizes above 1 only). */
  batchSizes: ReadonlyMap<string, number>;
  /**
   * How long a claimed job may wait in the local queue and still start on trust, in ms: past it,
   * its lease may have been rescued (`fetchedTimeout`), so it passes the lease gate first.
   */
  trustClaimsForMs: number;
  /** Idle poll interval in ms (jittered ±20 %). */
  pollIntervalMs: number;
  /** Queues served, or `null` for all. */
  queues: readonly string[] | null;
  /** Job types this process can run, or `null` for every type (pipe mode). */
  types: readonly string[] | null;
  store: Pick<Store, 'jobs' | 'queues' | 'cluster'>;
  executor: Executor;
  /** Per-type circuit breakers, or `undefined` when disabled. */
  circuits: CircuitBreakers | undefined;
  /** Delay of a job put back because its circuit is open, in ms. */
  circuitDelayMs: number;
  completer: Completer;
  events: ChokaQEvents;
  logger: Logger;
  clock: Clock;
  /** Told how many jobs each claim returned (metrics). Default: none. */
  onClaim?: (count: number) => void;
  /**
   * Draws rate-limit tokens before claimed jobs start (see `rate-gate.ts`); while it is active,
   * claims start no job themselves. Default: none.
   */
  rates?: RateGate;
}

/** A claimed job whose run began (see `Worker.begin`), with its circuit permit, if any. */
interface Begun {
  job: ClaimedJob;
  lease: Lease;
  /** The write of its start when it began on trust; `undefined` when the start is stored. */
  recorded: StartRecord | undefined;
  permit: CircuitPermit | null;
}

/** How often the paused-queue list is re-read while working, in ms. */
const PAUSE_REFRESH_MS = 1000;
/**
 * Unwritten settlements allowed per slot before a finished run keeps its slot. Two let one batch
 * be written while the next one gathers (one was ~8 % slower in the drain benchmark); four keep
 * the worker running while a round waits for its commit's WAL flush (+13 % in the drain without
 * archive rows, docs/benchmarks.md), and bound a crash's re-runs at 5 × concurrency.
 */
const UNSETTLED_PER_SLOT = 4;
/**
 * After a hand-off that started nothing (no capped queue to take from, nothing due there, or the
 * write failed), how long the worker makes no offer, in ms: a settle then wakes the claimers as
 * before, and slots are not kept for nothing on every settle of an uncapped queue.
 */
const HANDOFF_PAUSE_MS = 1000;
/** Back-off after a failed claim, in ms; doubles up to the cap. */
const CLAIM_ERROR_BACKOFF_MS = 250;
const CLAIM_ERROR_BACKOFF_CAP_MS = 5000;

/**
 * The per-process worker: claims batches sized to its free slots plus a local queue (the
 * prefetch), runs claimed jobs as slots free and keeps at most `concurrency` handlers running.
 * Claimed jobs are fetched; a run's start (fetched → processing, the attempt counted) is recorded
 * with the completer's next settle round, not before the handler is called, except for job
 * types with `strictStart`, which wait for it. Wakes on store notifications, slot releases and a
 * jittered poll.
 */
export class Worker implements HandoffTaker {
  private readonly slots: Slots;
  private readonly wakeup: Wakeup;
  private readonly starter: Batcher<Lease, ClaimedJob | null>;
  private readonly window: PrefetchWindow;
  /** The local queue: claimed jobs waiting for a slot, each with when it was claimed. */
  private buffer: Buffered[] = [];
  private stopping = false;
  private loop: Promise<void> | undefined;
  /** The subscription to wake-ups being made (see {@link start}). */
  private listening: Promise<void> = Promise.resolve();
  /** Whether {@link listen} ended: wake-ups reach the loop from then on (or never will). */
  private subscribed = false;
  private unlisten: (() => Promise<void>) | undefined;
  /**
   * Paused (or inactive) queues. The claim itself skips them, so this only holds back claimed
   * jobs of a queue paused since; re-read in the background, so no claim waits for it.
   */
  private readonly paused: BackgroundRefresh<ReadonlySet<string>>;
  private waitingForSlots = false;
  /**
   * The loop sleeps after a claim that found nothing: slots kept for a
   * hand-off cost it nothing then. Otherwise a hand-off would shrink its next claim.
   */
  private idleAfterEmptyClaim = false;
  /** Finished runs keeping their slot until enough settlements are written. */
  private holding = 0;
  /** Free slots kept for the jobs a settle in flight may start (see {@link offer}). */
  private kept = 0;
  /** No offer before this time on the clock (see {@link HANDOFF_PAUSE_MS}). */
  private offersFrom = 0;
  /** When the claim in flight was sent (`null`: none), for the health check. */
  private claimSentAt: number | null = null;
  /** Why the claim loop ended while the worker was not stopping; `undefined` while it runs. */
  private loopFailure: unknown;

  constructor(private readonly options: WorkerOptions) {
    this.slots = new Slots(options.concurrency);
    this.window = new PrefetchWindow(options.clock, options.prefetch);
    this.wakeup = new Wakeup(options.clock);
    this.paused = new BackgroundRefresh({
      read: async () => {
        const queues = await options.store.queues.listQueues();
        return new Set(queues.filter((q) => q.paused || !q.active).map((q) => q.name));
      },
      maxAgeMs: PAUSE_REFRESH_MS,
      clock: options.clock,
      initial: new Set(), // so a pause noted before the first read already counts
      onError: (error) => {
        if (!this.stopping) {
          options.logger.warn('could not re-read paused queues', {
            ...logEvent('PausedQueuesReadFailed'),
            error: String(error),
          });
        }
      },
    });
    this.starter = new Batcher({
      run: async (leases) => {
        const started = new Map(
          (await options.store.jobs.start(leases)).map((job) => [job.id, job]),
        );
        return leases.map((lease) => started.get(lease.id) ?? null);
      },
    });
  }

  /**
   * Jobs running now (a finished run holding its slot for back-pressure is not running, nor is a
   * slot kept for a hand-off).
   */
  get running(): number {
    return this.slots.inUse - this.holding - this.kept;
  }

  /** Jobs claimed and waiting for a slot. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** Current concurrency. */
  get concurrency(): number {
    return this.slots.capacity;
  }

  /**
   * Starts the fetch loop and subscribes to wake-ups; resolves once subscribed. The first claims
   * do not wait for the subscription (a new process claims about a connection's set-up sooner):
   * the loop sleeps on wake-ups only once subscribed, claiming once more first, so a job enqueued
   * before then is not left for the poll.
   */
  async start(): Promise<void> {
    if (this.loop) return;
    this.listening = this.listen();
    this.options.completer.useHandoff(this);
    this.loop = this.fetchLoop().catch((error: unknown) => {
      // Every expected failure is handled inside the loop; this one is a bug, and the health
      // check reports it.
      this.loopFailure = error ?? new Error('claim loop failed');
      this.options.logger.error('claim loop ended unexpectedly', {
        ...logEvent('WorkerLoopCrashed'),
        error: String(error),
      });
    });
    await this.listening;
  }

  /** Subscribes to wake-ups (polling only when the store cannot deliver them). */
  private async listen(): Promise<void> {
    const { store, queues, logger } = this.options;
    if (store.cluster.listen) {
      const served = queues ? new Set(queues) : null;
      try {
        this.unlisten = await store.cluster.listen((queue) => {
          if (queue === '*' || !served || served.has(queue)) this.wakeup.notify();
        });
      } catch (error) {
        logger.warn('wake-up notifications unavailable; polling only', {
          ...logEvent('WakeupsUnavailable'),
          error: String(error),
        });
      }
    }
    this.subscribed = true;
  }

  /**
   * What the health check asks: whether the claim loop died, and since when (ms on the clock) the
   * claim in flight has been waiting for the store, if one is.
   */
  liveness(): { loopFailure: unknown; claimSentAt: number | null; stopping: boolean } {
    return {
      loopFailure: this.loopFailure,
      claimSentAt: this.claimSentAt,
      stopping: this.stopping,
    };
  }

  /** Changes the number of concurrent jobs at once; shrinking never interrupts running jobs. */
  setConcurrency(concurrency: number): void {
    this.slots.resize(concurrency);
    this.wakeup.notify();
  }

  /** Marks a queue paused or resumed locally, without waiting for the next refresh. */
  notePaused(queue: string, paused: boolean): void {
    this.paused.patch((current) => {
      const next = new Set(current);
      if (paused) next.add(queue);
      else next.delete(queue);
      return next;
    });
    this.wakeup.notify();
  }

  /**
   * Stops claiming, returns prefetched jobs to pending, and waits up to `graceMs` for running
   * handlers (and for finished runs' slots). Returns the number of handlers still running when
   * the grace period ended.
   */
  async stop(graceMs: number): Promise<number> {
    this.stopping = true;
    this.options.completer.useHandoff(undefined);
    this.wakeup.notify();
    await this.loop;
    await this.listening;
    await this.unlisten?.().catch(() => undefined);
    await this.releaseBuffered();
    await waitAtMost(this.options.clock, this.slots.idle(), graceMs);
    return this.running;
  }

  /**
   * Keeps a free slot for each job the settlements archive, so that the settle starts the next job
   * of each capped queue it frees a slot in (see docs/benchmarks.md, W8). Only while the claim
   * loop sleeps after a claim that found nothing (it would not use the slots), not within
   * {@link HANDOFF_PAUSE_MS} of a hand-off that started nothing, and when claims would start jobs
   * at once too: nothing prefetched waiting, circuits closed, no rate limits.
   */
  offer(items: readonly Settlement[]): HandoffRequest | null {
    if (this.stopping || !this.idleAfterEmptyClaim || this.buffer.length > 0) return null;
    if (this.options.rates?.active === true || this.options.clock.now() < this.offersFrom) {
      return null;
    }
    if (!this.circuitsClosed()) return null;
    const archived = items.filter((item) => item.kind === 'archive').length;
    let reserved = 0;
    while (reserved < archived && this.slots.tryAcquire()) reserved++;
    if (reserved === 0) return null;
    this.kept += reserved;
    const { workerId, queues, types } = this.options;
    return { workerId, limit: reserved, queues, types };
  }

  /** Runs the jobs a settle started for this worker; frees the slots it kept and did not use. */
  take(request: HandoffRequest, started: readonly ClaimedJob[]): void {
    this.kept -= request.limit;
    if (started.length === 0) this.offersFrom = this.options.clock.now() + HANDOFF_PAUSE_MS;
    for (let i = started.length; i < request.limit; i++) this.slots.release();
    if (started.length > 0) this.options.onClaim?.(started.length);
    for (const job of started) this.launch(job);
    if (started.length < request.limit && this.waitingForSlots) this.wakeup.notify();
  }

  /** Resolves once no handler is running. */
  idle(): Promise<void> {
    return this.slots.idle();
  }

  private async fetchLoop(): Promise<void> {
    const { store, workerId, queues, pollIntervalMs, logger, events } = this.options;
    let errorBackoff = CLAIM_ERROR_BACKOFF_MS;
    while (!this.stopping) {
      const prefetch = this.window.size();
      const room = this.slots.free + prefetch - this.buffer.length;
      // Claim in worthwhile batches: wait until a quarter of the window is free, unless idle.
      const minimum =
        this.buffer.length === 0
          ? 1
          : Math.max(1, Math.floor((this.slots.capacity + prefetch) / 4));
      if (room < minimum) {
        this.waitingForSlots = true;
        await this.wakeup.wait(pollIntervalMs);
        this.waitingForSlots = false;
        continue;
      }
      const claimTypes = await this.claimableTypes();
      if (claimTypes === undefined) continue;
      const rated = this.options.rates?.active === true;
      let claimed: ClaimedJob[];
      try {
        this.paused.peek(); // keeps the list fresh, in the background
        this.claimSentAt = this.options.clock.now();
        claimed = await store.jobs.claim({ workerId, limit: room, queues, types: claimTypes });
        errorBackoff = CLAIM_ERROR_BACKOFF_MS;
        this.claimSentAt = null;
        this.options.onClaim?.(claimed.length);
      } catch (error) {
        this.claimSentAt = null;
        logger.warn('claim failed; backing off', {
          ...logEvent('ClaimFailed'),
          delayMs: errorBackoff,
          error: String(error),
        });
        events.emit('worker:error', { where: 'claim', error });
        await this.wakeup.wait(errorBackoff);
        errorBackoff = Math.min(errorBackoff * 2, CLAIM_ERROR_BACKOFF_CAP_MS);
        continue;
      }
      const got = claimed.length;
      if (rated) claimed = await this.admit(claimed);
      const claimedAt = this.options.clock.now();
      for (const job of claimed) this.buffer.push({ job, claimedAt });
      this.dispatch();
      // Only a claim that found nothing waits for a wake-up: one that came back short while other
      // processes claim too finds more next time (they held rows it skipped), and a queue that
      // is drained answers the next claim with nothing.
      if (got === 0 && !this.stopping) {
        if (!this.subscribed) {
          // A job enqueued before the subscription woke nobody: claim again once subscribed.
          await this.listening;
          continue;
        }
        this.idleAfterEmptyClaim = true;
        await this.wakeup.wait(jitter(pollIntervalMs));
        this.idleAfterEmptyClaim = false;
      }
    }
  }

  /**
   * The types to claim now: the worker's, less those its rate gate holds back; `undefined` after
   * waiting when the gate holds back every one (the loop then looks again).
   */
  private async claimableTypes(): Promise<readonly string[] | null | undefined> {
    const { types, rates, pollIntervalMs } = this.options;
    if (types === null || rates?.active !== true) return types;
    const paused = rates.paused();
    if (paused.types.size === 0) return types;
    const open = types.filter((type) => !paused.types.has(type));
    if (open.length > 0) return open;
    await this.wakeup.wait(Math.min(paused.resumeInMs, pollIntervalMs));
    return undefined;
  }

  /**
   * The claimed jobs that got their rate-limit tokens; the others go back to pending at once.
   * When the tokens cannot be drawn, every job goes back.
   */
  private async admit(claimed: ClaimedJob[]): Promise<ClaimedJob[]> {
    const gate = this.options.rates;
    if (gate === undefined || claimed.length === 0) return claimed;
    let admitted: ClaimedJob[] = [];
    let refused = claimed;
    try {
      ({ admitted, refused } = await gate.admit(claimed));
    } catch (error) {
      this.options.logger.warn('could not draw rate-limit tokens; jobs go back', {
        ...logEvent('ClaimFailed'),
        error: String(error),
      });
      this.options.events.emit('worker:error', { where: 'claim', error });
    }
    await Promise.all(refused.map((job) => this.release(job)));
    return admitted;
  }

  private circuitsClosed(): boolean {
    return this.options.circuits?.stats().every((circuit) => circuit.state === 'closed') ?? true;
  }

  private dispatch(): void {
    const trustedFrom = this.options.clock.now() - this.options.trustClaimsForMs;
    const { batchSizes } = this.options;
    while (this.buffer.length > 0 && !this.stopping && this.slots.tryAcquire()) {
      const next = this.buffer.shift() as Buffered;
      const size = batchSizes.size === 0 ? undefined : batchSizes.get(next.job.type.toLowerCase());
      if (size === undefined) this.launch(next.job, next.claimedAt < trustedFrom);
      else
        this.launchBatch(
          takeBatch(this.buffer, next, size, () => this.slots.tryAcquire()),
          trustedFrom,
        );
    }
  }

  /**
   * Runs a job in a slot already taken, and frees the slot when the handler is done, its
   * settlement still being written behind. To bound what a crash can re-run (the runs in flight
   * plus the unwritten settlements, at most 5 × concurrency), the slot is held while more than
   * {@link UNSETTLED_PER_SLOT} × concurrency settlements are unwritten.
   */
  private launch(job: ClaimedJob, gate = false): void {
    this.occupy(this.runOne(job, gate));
  }

  /**
   * Runs a batch of jobs of one type and queue, each in a slot already taken, and frees each
   * job's slot as {@link launch} does once that job is done. Jobs past the lease gate begin first,
   * so the others' start marks are not written long before the handler is called.
   */
  private launchBatch(batch: readonly Buffered[], trustedFrom: number): void {
    const strict = this.options.strictStarts.has((batch[0] as Buffered).job.type.toLowerCase());
    const gated = batch.map((item) => strict || item.claimedAt < trustedFrom);
    const runs = this.beginBatch(batch, gated).then((begun) => {
      const started = begun.filter((b): b is Begun => b !== null);
      const results = this.options.executor.runBatch(started);
      let next = 0;
      return begun.map((b) => (b === null ? null : { begun: b, result: results[next++] }));
    });
    batch.forEach((_, i) => {
      this.occupy(
        runs.then(async (all) => {
          const run = all[i];
          if (!run) return;
          let result: RunResult | undefined;
          try {
            result = await run.result;
          } finally {
            if (run.begun.permit) this.report(run.begun.permit, result);
          }
        }),
      );
    });
  }

  /** Begins each job of a batch (see {@link begin}): the `gated` ones first, then the others. */
  private async beginBatch(
    batch: readonly Buffered[],
    gated: readonly boolean[],
  ): Promise<(Begun | null)[]> {
    const begun = await Promise.all(
      batch.map(async (item, i) => (gated[i] === true ? this.begin(item.job, true) : null)),
    );
    await Promise.all(
      batch.map(async (item, i) => {
        if (gated[i] !== true) begun[i] = await this.begin(item.job, false);
      }),
    );
    return begun;
  }

  /** Holds a slot until `run` is done, then frees it (see {@link launch}). */
  private occupy(run: Promise<unknown>): void {
    void run.then(this.runDone, this.runDone);
  }

  /** A run ended: its slot is freed at once, or once few enough settlements are unwritten. */
  private readonly runDone = (): void => {
    this.window.noteFinished();
    const most = this.slots.capacity * UNSETTLED_PER_SLOT;
    if (this.options.completer.unsettled <= most) {
      this.freeSlot();
      return;
    }
    this.holding += 1;
    void this.options.completer.whenUnsettledAtMost(most).then(() => {
      this.holding -= 1;
      this.freeSlot();
    });
  };

  private freeSlot(): void {
    this.slots.release();
    this.dispatch();
    if (this.waitingForSlots) this.wakeup.notify();
  }

  /**
   * Runs `job`; with `gate` (or for a `strictStart` type) through the lease gate first. Chained,
   * not awaited: no async frame per job (see `Executor.run`).
   */
  private runOne(job: ClaimedJob, gate: boolean): Promise<unknown> {
    const beginning = this.begin(job, gate);
    if (beginning instanceof Promise) {
      return beginning.then((begun) => (begun === null ? undefined : this.runBegun(begun)));
    }
    return beginning === null ? Promise.resolve() : this.runBegun(beginning);
  }

  /** Runs a begun job and reports its outcome to the circuit breaker; resolves once it ran. */
  private runBegun(begun: Begun): Promise<unknown> {
    const running = this.options.executor.run(begun.job, begun.lease, begun.recorded);
    const { permit } = begun;
    if (!permit) return running;
    return running.then(
      (result) => this.report(permit, result),
      (error: unknown) => {
        this.report(permit, undefined);
        throw error;
      },
    );
  }

  /**
   * Begins the run of a claimed job: sends it back when its queue was paused or its circuit is
   * open, records its start (on trust, behind the run; with `gate` or for a `strictStart` type
   * through the lease gate, before) and emits `job:started`. `null`: the job does not run now.
   * The common case (a running queue, a closed circuit, a start on trust) begins at once, without
   * a promise; the others wait for the store.
   */
  private begin(job: ClaimedJob, gate: boolean): Begun | null | Promise<Begun | null> {
    const { completer, circuits, strictStarts } = this.options;
    const lease: Lease = {
      id: job.id,
      workerId: this.options.workerId,
      leaseToken: job.leaseToken ?? '',
    };
    let permit: CircuitPermit | null = null;
    try {
      if (this.paused.peek()?.has(job.queue) === true) {
        return this.beginLater(job, null, async () => {
          await completer.settle({ kind: 'release', lease });
          return null;
        });
      }
      if (circuits) {
        permit = circuits.acquire(job.type);
        if (!permit) {
          return this.beginLater(job, null, async () => {
            await this.rescheduleForOpenCircuit(job, lease);
            return null;
          });
        }
      }
      if (gate || (strictStarts.size > 0 && strictStarts.has(job.type.toLowerCase()))) {
        const held = permit;
        return this.beginLater(job, held, async () => {
          const started = await this.starter.add(lease);
          return started
            ? this.started(started, lease, undefined, held)
            : this.lostBeforeStart(job, held);
        });
      }
      // Started on trust: the start is recorded behind the run, with the next settle round.
      const recorded = completer.recordStart(lease);
      const started: ClaimedJob = { ...job, state: 'processing', attempts: job.attempts + 1 };
      return this.started(started, lease, recorded, permit);
    } catch (error) {
      return this.startFailed(job, permit, error);
    }
  }

  /** The part of {@link begin} that waits for the store; a failure there is {@link startFailed}. */
  private async beginLater(
    job: ClaimedJob,
    permit: CircuitPermit | null,
    step: () => Promise<Begun | null>,
  ): Promise<Begun | null> {
    try {
      return await step();
    } catch (error) {
      return this.startFailed(job, permit, error);
    }
  }

  /** A started job: `job:started` emitted, ready to run. */
  private started(
    job: ClaimedJob,
    lease: Lease,
    recorded: StartRecord | undefined,
    permit: CircuitPermit | null,
  ): Begun {
    this.options.events.emit('job:started', {
      id: job.id,
      type: job.type,
      queue: job.queue,
      attempt: job.attempts,
      queueLagMs: Math.max(0, this.options.clock.now() - job.runAt.getTime()),
    });
    return { job, lease, recorded, permit };
  }

  /** The lease gate refused the start: someone else moved the job. */
  private lostBeforeStart(job: ClaimedJob, permit: CircuitPermit | null): null {
    const base = jobEventBase(job);
    this.options.logger.warn('lease lost before start; skipping', {
      ...logEvent('JobExecutionLeaseRejected'),
      ...base,
    });
    this.options.events.emit('job:conflict', { ...base, step: 'start' });
    if (permit) this.report(permit, undefined);
    return null;
  }

  private startFailed(job: ClaimedJob, permit: CircuitPermit | null, error: unknown): null {
    this.options.logger.error('job could not be started', {
      ...logEvent('JobStartFailed'),
      ...jobEventBase(job),
      error: String(error),
    });
    this.options.events.emit('worker:error', { where: 'start', error });
    if (permit) this.report(permit, undefined);
    return null;
  }

  /**
   * Tells the circuit breaker how a run ended, once its settlement is written: a success counts
   * only after its archive committed, and a run whose write conflicted or failed counts as
   * neither (as do fatal payloads and aborted runs).
   */
  private report(permit: CircuitPermit, result: RunResult | undefined): void {
    const circuits = this.options.circuits;
    if (!circuits) return;
    if (result === undefined || result.outcome === 'neutral') {
      circuits.release(permit);
      return;
    }
    const { outcome } = result;
    void result.settled.then((written) => {
      if (!written) circuits.release(permit);
      else if (outcome === 'succeeded') circuits.success(permit);
      else circuits.failure(permit);
    });
  }

  /**
   * The job type's circuit is open: put the claimed job back for later without starting it, so
   * no attempt is used — unless that would pass the job's retry lifetime.
   */
  private async rescheduleForOpenCircuit(job: ClaimedJob, lease: Lease): Promise<void> {
    const { executor, clock, circuitDelayMs, completer } = this.options;
    const maxAgeMs = executor.retryPolicyFor(job.type).maxAgeMs;
    const error = `Circuit breaker open for '${job.type}'`;
    const expired =
      maxAgeMs !== null && clock.now() + circuitDelayMs > job.createdAt.getTime() + maxAgeMs;
    await completer.settle(
      expired
        ? {
            kind: 'dead',
            lease,
            from: 'fetched',
            reason: 'RetryLifetimeExpired',
            error: `Retry lifetime expired while the circuit was open. ${error}`,
          }
        : { kind: 'retry', lease, from: 'fetched', delayMs: circuitDelayMs, error },
    );
  }

  private async releaseBuffered(): Promise<void> {
    const buffered = this.buffer;
    this.buffer = [];
    await Promise.all(buffered.map(({ job }) => this.release(job)));
  }

  /** Returns a fetched job to pending at once; a failure is logged (rescue then returns it). */
  private async release(job: ClaimedJob): Promise<void> {
    const lease = { id: job.id, workerId: this.options.workerId, leaseToken: job.leaseToken ?? '' };
    await this.options.completer.settle({ kind: 'release', lease }).catch((error: unknown) =>
      this.options.logger.warn('release failed', {
        ...logEvent('PrefetchedJobReleaseFailed'),
        id: job.id,
        type: job.type,
        queue: job.queue,
        error: String(error),
      }),
    );
  }
}
