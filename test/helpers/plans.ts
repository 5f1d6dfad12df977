/** Reading PostgreSQL's `EXPLAIN (FORMAT JSON)` plans in tests that check which indexes a statement uses. */

/** A plan node, the fields the tests read. */
export interface PlanNode {
  'Node Type': string;
  'Total Cost': number;
  Filter?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  /** An index scan's condition, e.g. `(seq > COALESCE($1, '0'::bigint))`. */
  'Index Cond'?: string;
  /** Set on the top node of a CTE or subplan, e.g. `CTE key_heads`. */
  'Subplan Name'?: string;
  /** Buffer pages the node (and its children) found in / read into shared buffers, with `BUFFERS`. */
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  /** Rows the node returned, with `EXPLAIN (ANALYZE)` only. */
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

/** Every node of a plan tree, depth first. */
export function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** Buffer pages that the nodes reading through `index` touched (`EXPLAIN (ANALYZE, BUFFERS)`). */
export function pagesRead(nodes: readonly PlanNode[], index: string): number {
  return nodes
    .filter((n) => n['Index Name'] === index)
    .reduce((sum, n) => sum + (n['Shared Hit Blocks'] ?? 0) + (n['Shared Read Blocks'] ?? 0), 0);
}
