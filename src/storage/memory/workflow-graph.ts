/**
 * The workflow a job belongs to, for the memory provider ({@link WorkflowStore.graph}): a walk of
 * the dependency maps both ways from the job, nearest first, stopped at the bound, as
 * workflow_graph.sql walks job_dependencies.
 *
 * @internal
 */
import { errorHeadline } from '../job-query.js';
import type { WorkflowEdge, WorkflowGraph, WorkflowNode } from '../workflow-store.js';
import type { Tables } from './tables.js';

/** The workflow of job `id`, at most `limit` jobs (at least 1). */
export function workflowGraphOf(tables: Tables, id: string, limit: number): WorkflowGraph {
  const bound = Math.max(1, Math.floor(limit));
  const found = new Set<string>([id]);
  const queue = [id];
  let truncated = false;
  // Breadth first; each job enters `queue` once, so the walk ends after at most `bound` jobs.
  const visit = (other: string): boolean => {
    if (found.has(other)) return true;
    if (found.size >= bound) return false;
    found.add(other);
    queue.push(other);
    return true;
  };
  for (let i = 0; i < queue.length && !truncated; i++) {
    const at = queue[i]!;
    for (const dependency of tables.dependencies.get(at) ?? []) {
      truncated = !visit(dependency.id);
      if (truncated) break;
    }
    // A job's dependents are looked at one by one: a job of a million dependents costs the bound.
    for (const dependent of truncated ? [] : (tables.dependents.get(at) ?? [])) {
      truncated = !visit(dependent);
      if (truncated) break;
    }
  }
  const edges: WorkflowEdge[] = [];
  for (const dependent of found) {
    for (const d of tables.dependencies.get(dependent) ?? []) {
      if (found.has(d.id)) edges.push({ dependency: d.id, dependent, onDeath: d.onDeath });
    }
  }
  return { nodes: [...found].map((job) => nodeOf(tables, job)), edges, truncated };
}

/** Job `id` where it is now. */
function nodeOf(tables: Tables, id: string): WorkflowNode {
  const hot = tables.hot.get(id);
  if (hot !== undefined) {
    return {
      id,
      state: hot.state,
      queue: hot.queue,
      type: hot.type,
      attempts: hot.attempts,
      createdAt: new Date(hot.createdAt),
      runAt: new Date(hot.runAt),
      startedAt: hot.startedAt && new Date(hot.startedAt),
      finishedAt: null,
      reason: null,
      error: errorHeadline(hot.lastError),
    };
  }
  const archived = tables.archive.get(id);
  if (archived !== undefined) {
    return {
      id,
      state: 'succeeded',
      queue: archived.queue,
      type: archived.type,
      attempts: archived.attempts,
      createdAt: new Date(archived.createdAt),
      runAt: null,
      startedAt: archived.startedAt && new Date(archived.startedAt),
      finishedAt: new Date(archived.finishedAt),
      reason: null,
      error: null,
    };
  }
  const dead = tables.dead.get(id);
  if (dead !== undefined) {
    return {
      id,
      state: 'dead',
      queue: dead.queue,
      type: dead.type,
      attempts: dead.attempts,
      createdAt: new Date(dead.createdAt),
      runAt: null,
      startedAt: dead.startedAt && new Date(dead.startedAt),
      finishedAt: new Date(dead.failedAt),
      reason: dead.reason,
      error: errorHeadline(dead.errorDetails),
    };
  }
  return {
    id,
    state: 'purged',
    queue: null,
    type: null,
    attempts: 0,
    createdAt: null,
    runAt: null,
    startedAt: null,
    finishedAt: null,
    reason: null,
    error: null,
  };
}
