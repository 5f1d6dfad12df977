/**
 * The workflows capability of the storage seam: jobs that wait for other jobs (docs/workflows.md).
 * An enqueue stores the dependencies (`NewJob.dependsOn`); this capability decides what an
 * awaiting job does next from where its dependencies are, and reads them for a handler and the
 * operator.
 */
import type { DependencyPolicy } from '../job/dependencies.js';
import type { FailureReason, JobState } from '../job/state.js';

/** Which awaiting jobs one {@link WorkflowStore.resolve} decides. */
export interface ResolveRequest {
  /**
   * Only awaiting jobs that depend on one of these jobs (the ones a worker just settled); `null`:
   * any (the periodic pass, oldest first). Default: `null`.
   */
  dependenciesOf?: readonly string[] | null;
  /**
   * Only awaiting jobs whose id sorts after this one (the `next` of the previous page of a pass);
   * `null`: from the first. Default: `null`.
   */
  after?: string | null;
  /** Most awaiting jobs decided; at least 1. */
  limit: number;
}

/** A job the resolver moved. */
export interface ResolvedJob {
  id: string;
  queue: string;
}

/** What one {@link WorkflowStore.resolve} did. */
export interface ResolveResult {
  /** Jobs released: now pending, or scheduled when their delay has not passed. */
  released: ResolvedJob[];
  /**
   * Jobs moved to the DLQ (reason `DependencyFailed`) by a dependency's death under `fail`,
   * also those that waited, directly or not, for a job failed so.
   */
  failed: ResolvedJob[];
  /**
   * The `after` of the next page: the last job this call looked at when it looked at `limit`
   * jobs; `null` when there are no more.
   */
  next: string | null;
}

/** One dependency of a job, where it is now. */
export interface DependencyState {
  /** The id of the job depended on. */
  id: string;
  /** What its death does to the job waiting for it. */
  onDeath: DependencyPolicy;
  /** Its state now; `purged`: it was dead and is gone from the DLQ. */
  state: JobState | 'purged';
  /** Its handler's return value as JSON, once it succeeded (and returned one); else `null`. */
  result: string | null;
  /** Why it is dead (`null` unless `state` is `dead`). */
  reason: FailureReason | null;
  /** Its error text when dead; else `null`. */
  error: string | null;
}

/** A job of a workflow as {@link WorkflowStore.graph} finds it. */
export interface WorkflowNode {
  id: string;
  /** Its state now; `purged`: no table holds it (a dependency gone from the DLQ or the archive). */
  state: JobState | 'purged';
  /** `null` when purged, as every field below. */
  queue: string | null;
  type: string | null;
  /** Runs started so far; `0` when purged. */
  attempts: number;
  createdAt: Date | null;
  /** When a hot job is due; `null` in the archive and the DLQ. */
  runAt: Date | null;
  startedAt: Date | null;
  /** When it succeeded or died; `null` while hot. */
  finishedAt: Date | null;
  /** Why it is dead; `null` unless `state` is `dead`. */
  reason: FailureReason | null;
  /** The first line of its DLQ error or of a hot job's last error, at most 200 characters. */
  error: string | null;
}

/** One dependency of a workflow: `dependent` waits for `dependency`. */
export interface WorkflowEdge {
  /** The job waited for. */
  dependency: string;
  /** The job that waits. */
  dependent: string;
  /** What the dependency's death does to the dependent. */
  onDeath: DependencyPolicy;
}

/** What {@link WorkflowStore.graph} found. */
export interface WorkflowGraph {
  /** The jobs found, the first job's own first, then outwards (nearest first). */
  nodes: WorkflowNode[];
  /** The dependencies between the jobs found (an edge to a job past the bound is left out). */
  edges: WorkflowEdge[];
  /** Whether more jobs are connected than `limit`. */
  truncated: boolean;
}

/** The verbs of workflows. All methods may throw `ChokaQError` with a stable code. */
export interface WorkflowStore {
  /**
   * Decides awaiting jobs in one atomic step: each whose dependencies allow it is released
   * (pending, or scheduled until its delay passes; its queue's workers are woken), each with a
   * dependency dead or purged under `fail` moves to the DLQ as `DependencyFailed`, the rest keep
   * waiting (see `resolveDependencies` in src/job/dependencies.ts). Jobs are looked at in id
   * order, and only those with something to decide: no dependency left in the hot table, or one
   * dead or purged under `fail` or `continue` (the others can only wait).
   * Concurrent calls decide each job once: a job another call is deciding is decided again after
   * it, from what that committed.
   */
  resolve(request: ResolveRequest): Promise<ResolveResult>;

  /** The dependencies of job `id`, in the order they were enqueued; `[]` for a job with none. */
  dependencies(id: string): Promise<DependencyState[]>;

  /**
   * The ids of the jobs that wait (or waited) for job `id`, in id order, at most `limit`; their
   * dependencies are kept until they are purged.
   */
  dependents(id: string, limit: number): Promise<string[]>;

  /**
   * The workflow job `id` belongs to: every job connected to it through dependencies, in either
   * direction, each where it is now (purged ones too, as an edge still names them), walked from
   * `id` outwards and stopped at `limit` jobs (at least 1), with `truncated` set when more are
   * connected. A job with no dependencies and no dependents is a graph of itself alone; a job in
   * no table, of itself as purged.
   */
  graph(id: string, limit: number): Promise<WorkflowGraph>;
}
