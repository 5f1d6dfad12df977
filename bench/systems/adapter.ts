/** What the harness needs from each system under test. One adapter per system, same shape. */
import type { SystemName } from '../contenders.js';
import type { BenchJob, JobSink } from '../types.js';

/**
 * How much of ChokaQ's observability a worker runs with: `default` as a user gets it (metrics
 * into a no-op meter, cross-process events on), `on` also counts into a Prometheus registry and
 * renders it once a second (a scrape, gauge query included), `off` turns metrics and cross-process events off. Peers ignore it.
 */
export type Observability = 'default' | 'on' | 'off';

/** Options every adapter gets. */
export interface AdapterOptions {
  /** The bench database. */
  databaseUrl: string;
  /** Data directory of the embedded store for this workload (fresh per workload). */
  dataDir: string;
}

/** How the queue of a workload is set up (enqueue side and workers alike). */
export interface QueueSetup {
  /** The queue's cap on jobs running at once across every process (W8), if capped. */
  maxWorkers?: number;
}

/** How one worker process works. */
export interface WorkerSetup extends QueueSetup {
  /** Jobs run at once per process (each system's own form of it; see docs/benchmarks.md). */
  concurrency: number;
  /** How long each job's handler takes, in ms (0: returns at once). */
  jobMs: number;
  observability: Observability;
}

/** Records `job` and, when jobs take time, resolves after `jobMs`: every adapter's handler. */
export function runJob(sink: JobSink, job: BenchJob, jobMs: number): Promise<void> | undefined {
  sink(job);
  return jobMs > 0 ? new Promise((resolve) => setTimeout(resolve, jobMs)) : undefined;
}

/** The worker side of a system: connected and ready, started on the harness's "go". */
export interface WorkerSide {
  /** Starts working; `sink` is called once per job run. */
  start(sink: JobSink): Promise<void>;
  /** Stops gracefully (finishing and settling what it holds) and disconnects. */
  stop(): Promise<void>;
}

/**
 * One system under test. The harness creates one in its own process for enqueueing, seeding and
 * checks, and one per worker process (see `child.ts`) for working.
 */
export interface SystemAdapter {
  readonly system: SystemName;
  /** `true` when workers must run in the harness process (the embedded store is single-process). */
  readonly inProcessWorkers: boolean;
  /** The settings used, for the report and docs/benchmarks.md. */
  readonly settings: Readonly<Record<string, string>>;
  /** Drops and recreates this system's state, then opens the enqueue client. */
  reset(queue?: QueueSetup): Promise<void>;
  /** Enqueues one job with one call. */
  enqueue(job: BenchJob): Promise<void>;
  /** Enqueues many jobs with one call. */
  enqueueBulk(jobs: readonly BenchJob[]): Promise<void>;
  /**
   * Puts finished history where this system keeps it (`archive` succeeded jobs, `dead` failed
   * ones), then VACUUMs (ANALYZE) the tables and CHECKPOINTs, so the drain pays neither for an
   * autovacuum of the seeded rows nor for flushing their pages. Resolves to a note saying where
   * the rows went.
   */
  seedHistory(archive: number, dead: number): Promise<string>;
  /** ANALYZEs this system's job tables, as autovacuum would have on a live system. */
  analyze(): Promise<void>;
  /** Jobs of the run not settled yet (pending, claimed or running). */
  unsettled(): Promise<number>;
  /** Succeeded jobs of the run that the system keeps, or `null` when it deletes them. */
  finished(): Promise<number | null>;
  /** Jobs of the run kept as failed (must be 0). */
  failed(): Promise<number>;
  /** The operator side (queries over history, error groups), where the system has one. */
  readonly operator?: OperatorSide;
  /** Jobs that wait for other jobs (W10), where the system has them. */
  readonly flows?: FlowSide;
  /** A worker side in this process (connected, not started). */
  createWorker(setup: WorkerSetup): Promise<WorkerSide>;
  /** Closes the client side. */
  close(): Promise<void>;
}

/**
 * What an operator asks of a system's history: only ChokaQ has a query API over its finished jobs,
 * so the peers have no operator side and W6 does not apply to them.
 */
export interface OperatorSide {
  /**
   * Puts `archive` succeeded and `dead` failed jobs where the system keeps them, spread over
   * queues, types, tags, times and error groups as a busy system's are, with whatever summaries
   * the system keeps beside them; then VACUUM (ANALYZE) and CHECKPOINT. Resolves to a note.
   */
  seed(archive: number, dead: number): Promise<string>;
  /** The requests to time, by name, in the order to report them; each is one operator call. */
  requests(): Promise<[name: string, call: () => Promise<unknown>][]>;
  /** Releases what the requests held (a server), after they were timed. */
  close?(): Promise<void>;
}

/**
 * Flows of jobs: only ChokaQ has jobs that wait for other jobs and read their results, so the
 * peers have no flow side and W10 does not apply to them.
 */
export interface FlowSide {
  /**
   * Enqueues one flow in one call: the no-op `children`, then `fanIn`, a job that waits for all
   * of them and reads their results when it runs (it fails unless it reads `children.length`
   * dependencies, every one succeeded).
   */
  enqueueFlow(children: readonly BenchJob[], fanIn: BenchJob): Promise<void>;
}

/** Thrown by a loader when the peer package is not installed. */
export class MissingPeerError extends Error {
  constructor(readonly packageName: string) {
    super(`${packageName} is not installed`);
    this.name = 'MissingPeerError';
  }
}

/** Rethrows import failures other than "module not found" unchanged. */
export function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}
