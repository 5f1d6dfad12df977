/**
 * Where The Deck draws each job and dependency of a flow: columns by layer (the longest path from
 * a job that waits for nothing, `JobFlowNode.depth`), left to right; in each column the jobs in
 * the order of the jobs they wait for (the mean row of their dependencies, then id), so that
 * arrows cross little; each column centred on the tallest.
 */
import type { JobFlow, JobFlowNode } from '../../../operator/job-flow.js';
import type { WorkflowEdge } from '../../../storage/workflow-store.js';

/** A job's box, in SVG units. */
export const NODE_WIDTH = 224;
export const NODE_HEIGHT = 46;
const GAP_X = 56;
const GAP_Y = 14;
const PAD = 10;

/** A job where it is drawn (its box's top left corner). */
export interface PlacedNode {
  node: JobFlowNode;
  x: number;
  y: number;
}

/** A dependency as an SVG path from its dependency's right edge to its dependent's left. */
export interface PlacedEdge {
  edge: WorkflowEdge;
  path: string;
}

/** A flow laid out: jobs in reading order (by column, then row), so Tab follows it. */
export interface FlowLayout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

/** Lays `flow` out. */
export function layoutFlow(flow: JobFlow): FlowLayout {
  const columns: JobFlowNode[][] = [];
  for (const node of flow.nodes) (columns[node.depth] ??= []).push(node);
  const row = new Map<string, number>();
  const dependenciesOf = new Map<string, string[]>();
  for (const edge of flow.edges) {
    dependenciesOf.set(edge.dependent, [
      ...(dependenciesOf.get(edge.dependent) ?? []),
      edge.dependency,
    ]);
  }
  const order = (node: JobFlowNode): number => {
    const rows = (dependenciesOf.get(node.id) ?? []).flatMap((id) => {
      const at = row.get(id);
      return at === undefined ? [] : [at];
    });
    return rows.length === 0 ? 0 : rows.reduce((sum, r) => sum + r, 0) / rows.length;
  };
  const tallest = Math.max(1, ...columns.map((column) => column?.length ?? 0));
  const step = NODE_HEIGHT + GAP_Y;
  const placed: PlacedNode[] = [];
  const at = new Map<string, PlacedNode>();
  columns.forEach((column = [], depth) => {
    const sorted =
      depth === 0
        ? column
        : [...column].sort((a, b) => order(a) - order(b) || (a.id < b.id ? -1 : 1));
    const top = PAD + ((tallest - sorted.length) * step) / 2;
    sorted.forEach((node, i) => {
      row.set(node.id, i + (tallest - sorted.length) / 2);
      const place = { node, x: PAD + depth * (NODE_WIDTH + GAP_X), y: top + i * step };
      placed.push(place);
      at.set(node.id, place);
    });
  });
  const edges = flow.edges.flatMap((edge): PlacedEdge[] => {
    const from = at.get(edge.dependency);
    const to = at.get(edge.dependent);
    if (from === undefined || to === undefined) return [];
    const x1 = from.x + NODE_WIDTH;
    const y1 = from.y + NODE_HEIGHT / 2;
    const x2 = to.x - 2;
    const y2 = to.y + NODE_HEIGHT / 2;
    const bend = Math.max(24, (x2 - x1) / 2);
    return [{ edge, path: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}` }];
  });
  return {
    nodes: placed,
    edges,
    width: PAD * 2 + columns.length * NODE_WIDTH + Math.max(0, columns.length - 1) * GAP_X,
    height: PAD * 2 + tallest * step - GAP_Y,
  };
}
