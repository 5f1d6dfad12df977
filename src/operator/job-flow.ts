/**
 * `chokaq.jobs.flow(id)`: the workflow a job belongs to as a graph — every job connected to it
 * through dependencies, each where it is now, the edges between them, and each job's layer (the
 * longest path from a job that waits for nothing), which the CLI and The Deck draw from.
 */
import type { Store } from '../storage/store.js';
import type { WorkflowEdge, WorkflowNode } from '../storage/workflow-store.js';

/** Most jobs one `jobs.flow` returns, and its default `limit`. */
export const MAX_FLOW_NODES = 1000;

/** A job of a {@link JobFlow}. */
export interface JobFlowNode extends WorkflowNode {
  /**
   * Its layer: 0 for a job that waits for none of the jobs returned, else one more than the
   * deepest of those it waits for (the longest path from a first job; of a truncated flow, among
   * the jobs returned).
   */
  depth: number;
}

/** The workflow a job belongs to (`jobs.flow`). */
export interface JobFlow {
  /** The job asked about. */
  id: string;
  /** The jobs of the flow by layer, then id; the job asked about is among them. */
  nodes: JobFlowNode[];
  /** Each dependency between two of `nodes`: `dependent` waits for `dependency`. */
  edges: WorkflowEdge[];
  /**
   * `true` when more jobs are connected than `limit`: `nodes` holds the `limit` nearest to `id`,
   * and the edges to the others are left out.
   */
  truncated: boolean;
  /** The bound this call walked to. */
  limit: number;
}

/** The flow of job `id`, or `null` when no table holds it (as `jobs.get`). */
export async function jobFlow(
  store: Pick<Store, 'workflows'>,
  id: string,
  limit: number,
): Promise<JobFlow | null> {
  const graph = await store.workflows.graph(id, limit);
  const self = graph.nodes.find((node) => node.id === id);
  if (self === undefined || self.state === 'purged') return null;
  const depths = depthsOf(graph.nodes, graph.edges);
  const nodes = graph.nodes
    .map((node) => ({ ...node, depth: depths.get(node.id) ?? 0 }))
    .sort((a, b) => a.depth - b.depth || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { id, nodes, edges: graph.edges, truncated: graph.truncated, limit };
}

/**
 * Each job's layer, by the longest path from a job with no dependency among `nodes` (Kahn's
 * order). Dependencies form no cycle (an enqueue refuses one, and a job can only depend on jobs
 * that exist before it); were one there, its jobs would keep layer 0 rather than loop.
 */
export function depthsOf(
  nodes: readonly Pick<WorkflowNode, 'id'>[],
  edges: readonly WorkflowEdge[],
): Map<string, number> {
  const depth = new Map(nodes.map((node) => [node.id, 0]));
  const waitingOn = new Map(nodes.map((node) => [node.id, 0]));
  const dependentsOf = new Map<string, string[]>();
  for (const edge of edges) {
    if (!depth.has(edge.dependency) || !depth.has(edge.dependent)) continue;
    waitingOn.set(edge.dependent, (waitingOn.get(edge.dependent) ?? 0) + 1);
    dependentsOf.set(edge.dependency, [
      ...(dependentsOf.get(edge.dependency) ?? []),
      edge.dependent,
    ]);
  }
  const ready = [...waitingOn].filter(([, n]) => n === 0).map(([id]) => id);
  // Each job enters `ready` once, when its last dependency is placed: at most `nodes.length` turns.
  for (let i = 0; i < ready.length; i++) {
    const at = ready[i]!;
    for (const dependent of dependentsOf.get(at) ?? []) {
      depth.set(dependent, Math.max(depth.get(dependent) ?? 0, (depth.get(at) ?? 0) + 1));
      const left = (waitingOn.get(dependent) ?? 1) - 1;
      waitingOn.set(dependent, left);
      if (left === 0) ready.push(dependent);
    }
  }
  return depth;
}
