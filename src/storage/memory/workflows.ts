/**
 * Workflows for the memory provider ({@link WorkflowStore}): an enqueue's links, the resolver
 * and the dependencies' states, over the store's tables, as src/storage/sql/workflows.ts does
 * them.
 *
 * @internal Reach it through `memory().workflows`.
 */
import {
  dependencyFailedError,
  resolveDependencies,
  unknownDependency,
  type DependencyPlace,
} from '../../job/dependencies.js';
import type { NewJob } from '../model.js';
import type {
  DependencyState,
  ResolveRequest,
  ResolveResult,
  WorkflowGraph,
  WorkflowStore,
} from '../workflow-store.js';
import { workflowGraphOf } from './workflow-graph.js';
import { waitingStateOf } from './promote.js';
import { moveToDead } from './settle.js';
import { atomically, type MemoryState } from './state.js';
import type { Tables } from './tables.js';

/** The memory {@link WorkflowStore}. */
export class MemoryWorkflows implements WorkflowStore {
  /** @param state The store's tables, clock and wake-ups. */
  constructor(private readonly state: MemoryState) {}

  /** {@inheritDoc WorkflowStore.resolve} */
  resolve(request: ResolveRequest): Promise<ResolveResult> {
    return atomically(() => {
      const { tables } = this.state;
      const of = request.dependenciesOf ?? null;
      const after = request.after ?? null;
      const limit = Math.max(1, Math.floor(request.limit));
      const ids = (of === null ? [...tables.hot.keys()] : dependentsOf(tables, of))
        .filter(
          (id) =>
            tables.hot.get(id)?.state === 'awaiting' &&
            (after === null || id > after) &&
            decidable(tables, id),
        )
        .sort(cmp)
        .slice(0, limit);
      const result = {
        ...resolveAwaiting(tables, ids, this.state.time()),
        next: ids.length >= limit ? (ids.at(-1) ?? null) : null,
      };
      this.state.wake.notify([...new Set(result.released.map((job) => job.queue))]);
      return result;
    });
  }

  /** {@inheritDoc WorkflowStore.dependents} */
  dependents(id: string, limit: number): Promise<string[]> {
    return atomically(() =>
      [...(this.state.tables.dependents.get(id) ?? [])].sort(cmp).slice(0, Math.max(0, limit)),
    );
  }

  /** {@inheritDoc WorkflowStore.graph} */
  graph(id: string, limit: number): Promise<WorkflowGraph> {
    return atomically(() => workflowGraphOf(this.state.tables, id, limit));
  }

  /** {@inheritDoc WorkflowStore.dependencies} */
  dependencies(id: string): Promise<DependencyState[]> {
    return atomically(() => {
      const { tables } = this.state;
      return (tables.dependencies.get(id) ?? []).map((dependency): DependencyState => {
        const hot = tables.hot.get(dependency.id);
        const dead = tables.dead.get(dependency.id);
        const place = placeOf(tables, dependency.id);
        return {
          id: dependency.id,
          onDeath: dependency.onDeath,
          state: hot !== undefined ? hot.state : place === 'hot' ? 'pending' : place,
          result:
            place === 'succeeded' ? (tables.archive.get(dependency.id)?.result ?? null) : null,
          reason: place === 'dead' ? (dead?.reason ?? null) : null,
          error: place === 'dead' ? (dead?.errorDetails ?? null) : null,
        };
      });
    });
  }
}

/**
 * Throws when a dependency of `jobs` is neither a job of the same call nor one the tables hold;
 * run before anything is written.
 *
 * @throws ChokaQError `CHOKAQ_UNKNOWN_DEPENDENCY` naming the first.
 */
export function checkDependencies(tables: Tables, jobs: readonly NewJob[]): void {
  const inCall = new Set(jobs.map((job) => job.id));
  for (const job of jobs) {
    for (const dependency of job.dependsOn ?? []) {
      if (!inCall.has(dependency.id) && placeOf(tables, dependency.id) === 'purged') {
        throw unknownDependency(dependency.id);
      }
    }
  }
}

/**
 * Stores the dependencies of `jobs` (just inserted), makes them awaiting, marks the jobs they
 * depend on, and decides at once those whose dependencies all finished already.
 */
export function linkJobs(tables: Tables, jobs: readonly NewJob[], now: Date): void {
  for (const job of jobs) {
    const row = tables.hot.get(job.id);
    if (row === undefined) continue;
    row.state = 'awaiting';
    const dependencies = (job.dependsOn ?? []).map((d) => ({ id: d.id, onDeath: d.onDeath }));
    tables.dependencies.set(job.id, dependencies);
    for (const dependency of dependencies) {
      const waiting = tables.dependents.get(dependency.id) ?? new Set<string>();
      waiting.add(job.id);
      tables.dependents.set(dependency.id, waiting);
      const depended = tables.hot.get(dependency.id);
      if (depended !== undefined) depended.hasDependents = true;
    }
  }
  resolveAwaiting(
    tables,
    jobs.map((job) => job.id),
    now,
  );
}

/** Decides the awaiting jobs that depend on one of `ids` (see `WorkflowStore.resolve`). */
export function resolveDependentsOf(tables: Tables, ids: readonly string[], now: Date): Decided {
  return resolveAwaiting(tables, dependentsOf(tables, ids), now);
}

/** The jobs that depend on one of `ids`, each once. */
function dependentsOf(tables: Tables, ids: readonly string[]): string[] {
  return [...new Set(ids.flatMap((id) => [...(tables.dependents.get(id) ?? [])]))];
}

/** What the resolver moved (a {@link ResolveResult} without its page cursor). */
type Decided = Omit<ResolveResult, 'next'>;

/** Decides the awaiting jobs among `ids` (see `WorkflowStore.resolve`). */
function resolveAwaiting(tables: Tables, ids: readonly string[], now: Date): Decided {
  const result: Decided = { released: [], failed: [] };
  for (const id of ids) {
    const row = tables.hot.get(id);
    if (row?.state !== 'awaiting') continue;
    const views = (tables.dependencies.get(id) ?? []).map((d) => ({
      id: d.id,
      onDeath: d.onDeath,
      place: placeOf(tables, d.id),
    }));
    const resolution = resolveDependencies(views);
    if (resolution.kind === 'release') {
      // As a promotion: the row keeps its runAt, updatedAt and version.
      row.state = waitingStateOf(row.runAt.getTime() - now.getTime());
      result.released.push({ id, queue: row.queue });
    } else if (resolution.kind === 'fail') {
      const error = dependencyFailedError(resolution.dependency, resolution.place);
      moveToDead(tables, row, now, 'DependencyFailed', error);
      result.failed.push({ id, queue: row.queue });
    }
  }
  if (result.failed.length === 0) return result;
  // A failed job's own dependents are decided in the same step: a death runs up a chain.
  const up = resolveDependentsOf(
    tables,
    result.failed.map((job) => job.id),
    now,
  );
  return {
    released: [...result.released, ...up.released],
    failed: [...result.failed, ...up.failed],
  };
}

/**
 * Whether job `id` has something to decide, as SQL looks (workflow_lock.sql): no dependency left
 * in the hot table, or one dead or purged whose policy is `fail` or `continue`. Else it can only
 * wait.
 */
function decidable(tables: Tables, id: string): boolean {
  const dependencies = tables.dependencies.get(id) ?? [];
  return (
    dependencies.every((d) => !tables.hot.has(d.id)) ||
    dependencies.some(
      (d) => d.onDeath !== 'skip' && !tables.hot.has(d.id) && !tables.archive.has(d.id),
    )
  );
}

/** Where job `id` is now. */
function placeOf(tables: Tables, id: string): DependencyPlace {
  if (tables.hot.has(id)) return 'hot';
  if (tables.archive.has(id)) return 'succeeded';
  return tables.dead.has(id) ? 'dead' : 'purged';
}

/** Code-unit order of ids, as the resolver's pages walk them. */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
