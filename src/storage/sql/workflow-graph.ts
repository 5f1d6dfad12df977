/**
 * The workflow a job belongs to, over SQL ({@link WorkflowStore.graph}): one statement walks the
 * dependencies both ways from the job (workflow_graph.sql), and this module turns its rows into
 * jobs and edges.
 */
import { DEPENDENCY_POLICY_BY_CODE } from '../../job/dependencies.js';
import { HOT_STATE_BY_CODE, failureReasonOf } from '../../job/state.js';
import { errorHeadline } from '../job-query.js';
import type { WorkflowEdge, WorkflowGraph, WorkflowNode } from '../workflow-store.js';
import type { Executor } from './executor.js';
import { toDateOrNull, toNumber } from './rows.js';
import type { BoundQueries } from './schema.js';
import * as run from './statements.js';
import type { WorkflowGraphRow } from './statements.js';

/**
 * Reads the workflow of job `id`, at most `limit` jobs. Planned at each call (`prepare: false`),
 * as the other workflow statements: a plan kept from when job_dependencies held no statistics
 * would not be the index walk the statement is written for.
 */
export async function readWorkflowGraph(
  db: Executor,
  sql: BoundQueries,
  id: string,
  limit: number,
): Promise<WorkflowGraph> {
  const bound = Math.max(1, Math.floor(limit));
  const rows = await run.workflowGraph(db, sql, { id, limit: bound + 1 }, { prepare: false });
  // The walk's order does not survive the joins: order by distance again, here.
  const distance = distancesFrom(id, rows);
  const far = (row: WorkflowGraphRow) => distance.get(row.id) ?? Number.MAX_SAFE_INTEGER;
  const kept = [...rows]
    .sort((a, b) => far(a) - far(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, bound);
  const ids = new Set(kept.map((row) => row.id));
  const edges: WorkflowEdge[] = [];
  for (const row of kept) {
    const dependsOn = row.depends_on ?? [];
    dependsOn.forEach((dependency, i) => {
      if (!ids.has(dependency)) return;
      const onDeath = DEPENDENCY_POLICY_BY_CODE[toNumber(row.on_death?.[i])] ?? 'fail';
      edges.push({ dependency, dependent: row.id, onDeath });
    });
  }
  return { nodes: kept.map(nodeOf), edges, truncated: rows.length > bound };
}

/**
 * How many dependencies away from job `id` each job of `rows` is, either way. The rows are a
 * prefix of a breadth-first walk, so dropping the farthest keeps the nearest and connected.
 */
function distancesFrom(id: string, rows: readonly WorkflowGraphRow[]): Map<string, number> {
  const next = new Map<string, string[]>();
  const link = (a: string, b: string) => next.set(a, [...(next.get(a) ?? []), b]);
  for (const row of rows) {
    for (const dependency of row.depends_on ?? []) {
      link(row.id, dependency);
      link(dependency, row.id);
    }
  }
  const distance = new Map([[id, 0]]);
  const queue = [id];
  // Each job enters `queue` once: at most `rows.length` turns (and those edges only).
  for (let i = 0; i < queue.length; i++) {
    const at = queue[i]!;
    for (const other of next.get(at) ?? []) {
      if (distance.has(other)) continue;
      distance.set(other, (distance.get(at) ?? 0) + 1);
      queue.push(other);
    }
  }
  return distance;
}

/** A row as a job of the workflow. */
function nodeOf(row: WorkflowGraphRow): WorkflowNode {
  const state: WorkflowNode['state'] =
    row.hot_status !== null
      ? (HOT_STATE_BY_CODE[toNumber(row.hot_status)] ?? 'pending')
      : row.archived
        ? 'succeeded'
        : row.dead
          ? 'dead'
          : 'purged';
  return {
    id: row.id,
    state,
    queue: row.queue,
    type: row.type,
    attempts: row.attempts === null ? 0 : toNumber(row.attempts),
    createdAt: toDateOrNull(row.created_at),
    runAt: toDateOrNull(row.run_at),
    startedAt: toDateOrNull(row.started_at),
    finishedAt: toDateOrNull(row.finished_at),
    reason: row.failure_reason === null ? null : failureReasonOf(toNumber(row.failure_reason)),
    error: errorHeadline(row.error),
  };
}
