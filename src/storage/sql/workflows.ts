/**
 * Workflows over SQL ({@link WorkflowStore}): the resolver that decides awaiting jobs, and the
 * links an enqueue stores. `resolveIn` runs inside a transaction the caller opened: the store's
 * own for `resolve`, the enqueue's for jobs whose dependencies had already finished.
 */
import {
  DEPENDENCY_POLICY_BY_CODE,
  DEPENDENCY_POLICY_CODE,
  dependencyFailedError,
  resolveDependencies,
  unknownDependency,
  type DependencyPlace,
  type DependencyView,
} from '../../job/dependencies.js';
import {
  FAILURE_REASON_CODE,
  HOT_STATE_BY_CODE,
  HOT_STATE_CODE,
  failureReasonOf,
} from '../../job/state.js';
import type { NewJob } from '../model.js';
import type {
  DependencyState,
  ResolveRequest,
  ResolveResult,
  WorkflowGraph,
  WorkflowStore,
} from '../workflow-store.js';
import { readWorkflowGraph } from './workflow-graph.js';
import type { Executor, QueryOptions } from './executor.js';
import { logEvent } from '../../observability/logging/log-events.js';
import { moveToDlq } from './recovery.js';
import type { SqlContext } from './sql-context.js';
import type { BoundQueries } from './schema.js';
import * as run from './statements.js';
import type { WorkflowDependenciesRow } from './statements.js';

/**
 * The workflow statements are planned at each call, not kept prepared: they run per settle round
 * with dependents or per enqueue of a workflow, not per job, and a plan kept from when
 * job_dependencies was new (no statistics yet) read it, jobs_hot and jobs_archive in full on every
 * call as they grew (7 ms per call in the bench's flow workload; docs/benchmarks.md).
 */
const PLANNED_PER_CALL: QueryOptions = { prepare: false };

/**
 * Most awaiting jobs a targeted decision (an enqueue's links, the dependents of the jobs a
 * settle, rescue or cancel moved) decides at once: all of them in practice; the pass takes more.
 */
export const TARGETED_LIMIT = 100_000;

/** {@link WorkflowStore} over SQL. */
export class SqlWorkflows implements WorkflowStore {
  /** @param context The connection, statements and wake-ups shared by the store's parts. */
  constructor(private readonly context: SqlContext) {}

  /**
   * Decides the awaiting jobs that depend on `ids` (jobs a settle, rescue or cancel just moved
   * out of the hot table), after the move committed. A failure is logged, not thrown: the move
   * stands, and the resolver's periodic pass (`src/runtime/resolver.ts`) decides them later.
   */
  async resolveDependentsOf(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.resolve({ dependenciesOf: ids, limit: TARGETED_LIMIT });
    } catch (error) {
      this.context.logger.warn('could not resolve the jobs waiting for settled jobs', {
        ...logEvent('DependentsNotResolved'),
        jobs: ids.length,
        error: String(error),
      });
    }
  }

  /** {@inheritDoc WorkflowStore.resolve} */
  async resolve(request: ResolveRequest): Promise<ResolveResult> {
    const db = await this.context.db();
    const result = await this.context.retryOnConflict('resolve', () =>
      db.transaction((tx) =>
        resolveIn(tx, this.context.sql, this.context.now(), {
          jobs: null,
          dependenciesOf: request.dependenciesOf ?? null,
          after: request.after ?? null,
          limit: Math.max(1, Math.floor(request.limit)),
        }),
      ),
    );
    this.context.wakeHereFirst(result.released.map((job) => job.queue));
    this.context.wakeCapped(result.failed.map((job) => job.queue));
    return result;
  }

  /** {@inheritDoc WorkflowStore.dependents} */
  async dependents(id: string, limit: number): Promise<string[]> {
    const db = await this.context.db();
    const rows = await run.workflowDependents(db, this.context.sql, { id, limit });
    return rows.map((row) => row.job_id);
  }

  /** {@inheritDoc WorkflowStore.graph} */
  async graph(id: string, limit: number): Promise<WorkflowGraph> {
    const db = await this.context.db();
    return readWorkflowGraph(db, this.context.sql, id, limit);
  }

  /** {@inheritDoc WorkflowStore.dependencies} */
  async dependencies(id: string): Promise<DependencyState[]> {
    const db = await this.context.db();
    const rows = await run.workflowDependencies(
      db,
      this.context.sql,
      { jobs: [id] },
      PLANNED_PER_CALL,
    );
    return rows.map(dependencyStateOf);
  }
}

/** Which awaiting jobs {@link resolveIn} locks and decides. */
interface ResolveTargets {
  /** These jobs; `null`: any. */
  jobs: readonly string[] | null;
  /** Only jobs depending on one of these; `null`: any. */
  dependenciesOf: readonly string[] | null;
  /** Only jobs whose id sorts after this one; `null`: from the first. */
  after: string | null;
  limit: number;
}

/**
 * The resolver in transaction `tx`: locks the awaiting jobs `targets` names, reads where their
 * dependencies are, and releases or fails each as `resolveDependencies` decides; then decides the
 * dependents of the jobs it failed, and so on up the chain.
 */
export async function resolveIn(
  tx: Executor,
  sql: BoundQueries,
  now: Date | null,
  targets: ResolveTargets,
): Promise<ResolveResult> {
  const locked = await run.workflowLock(tx, sql, targets, PLANNED_PER_CALL);
  if (locked.length === 0) return { released: [], failed: [], next: null };
  const rows = await run.workflowDependencies(
    tx,
    sql,
    { jobs: locked.map((job) => job.id) },
    PLANNED_PER_CALL,
  );
  const byJob = new Map<string, DependencyView[]>();
  for (const row of rows) {
    const views = byJob.get(row.job_id) ?? [];
    views.push({
      id: row.depends_on,
      onDeath: DEPENDENCY_POLICY_BY_CODE[row.on_death] ?? 'fail',
      place: placeOf(row),
    });
    byJob.set(row.job_id, views);
  }
  const release: string[] = [];
  const fail: { id: string; error: string }[] = [];
  for (const job of locked) {
    const resolution = resolveDependencies(byJob.get(job.id) ?? []);
    if (resolution.kind === 'release') release.push(job.id);
    else if (resolution.kind === 'fail') {
      fail.push({
        id: job.id,
        error: dependencyFailedError(resolution.dependency, resolution.place),
      });
    }
  }
  const released =
    release.length === 0 ? [] : await run.workflowRelease(tx, sql, { ids: release, now });
  const failed = await moveToDlq(
    tx,
    sql,
    now,
    fail.map((job) => ({
      id: job.id,
      fromStatus: HOT_STATE_CODE.awaiting,
      reason: FAILURE_REASON_CODE.DependencyFailed,
      error: job.error,
      actor: null,
    })),
  );
  const result: ResolveResult = {
    released: released.map((row) => ({ id: row.id, queue: row.queue })),
    failed: [...failed.values()].map((job) => ({ id: job.id, queue: job.queue })),
    next: locked.length >= targets.limit ? (locked.at(-1)?.id ?? null) : null,
  };
  if (result.failed.length === 0) return result;
  // A failed job's own dependents are decided in the same transaction: a death runs up a chain.
  const up = await resolveIn(tx, sql, now, {
    jobs: null,
    dependenciesOf: result.failed.map((job) => job.id),
    after: null,
    limit: targets.limit,
  });
  return {
    released: [...result.released, ...up.released],
    failed: [...result.failed, ...up.failed],
    next: result.next,
  };
}

/**
 * Stores the dependencies of `jobs` (inserted by this transaction) and decides at once the jobs
 * whose dependencies have all finished already.
 *
 * @throws ChokaQError `CHOKAQ_UNKNOWN_DEPENDENCY` naming the first dependency that is nowhere;
 *   the caller's transaction then rolls back.
 */
export async function linkIn(
  tx: Executor,
  sql: BoundQueries,
  now: Date | null,
  jobs: readonly NewJob[],
): Promise<void> {
  const jobIds: string[] = [];
  const dependsOn: string[] = [];
  const onDeath: number[] = [];
  const ords: number[] = [];
  for (const job of jobs) {
    for (const [ord, dependency] of (job.dependsOn ?? []).entries()) {
      jobIds.push(job.id);
      dependsOn.push(dependency.id);
      onDeath.push(DEPENDENCY_POLICY_CODE[dependency.onDeath]);
      ords.push(ord);
    }
  }
  if (jobIds.length === 0) return;
  const missing = await run.workflowLink(
    tx,
    sql,
    { jobIds, dependsOn, onDeath, ords },
    PLANNED_PER_CALL,
  );
  const [first] = missing;
  if (first !== undefined) throw unknownDependency(first.depends_on);
  await resolveIn(tx, sql, now, {
    jobs: [...new Set(jobIds)],
    dependenciesOf: null,
    after: null,
    limit: TARGETED_LIMIT,
  });
}

/** Where a dependency is, from its row. */
function placeOf(row: WorkflowDependenciesRow): DependencyPlace {
  if (row.hot_status !== null) return 'hot';
  if (row.archived) return 'succeeded';
  return row.dead ? 'dead' : 'purged';
}

/** A dependency as a handler and the operator read it. */
function dependencyStateOf(row: WorkflowDependenciesRow): DependencyState {
  const place = placeOf(row);
  return {
    id: row.depends_on,
    onDeath: DEPENDENCY_POLICY_BY_CODE[row.on_death] ?? 'fail',
    state: place === 'hot' ? (HOT_STATE_BY_CODE[row.hot_status ?? 0] ?? 'pending') : place,
    result: row.result,
    reason: row.failure_reason === null ? null : failureReasonOf(row.failure_reason),
    error: row.error_details,
  };
}
