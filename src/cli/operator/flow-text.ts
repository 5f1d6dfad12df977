/**
 * `chokaq jobs flow` for people: the jobs of a workflow as a table, layer by layer from the jobs
 * that wait for nothing, each numbered, with its state and the numbers of the jobs it waits for;
 * then the first line of each error. (`--json` prints the API's `JobFlow` instead.)
 */
import type { JobFlow } from '../../operator/job-flow.js';
import { table } from './render.js';

/** A job's state with its DLQ reason: `dead (Fatal)`. */
function stateText(node: JobFlow['nodes'][number]): string {
  return node.reason === null ? node.state : `${node.state} (${node.reason})`;
}

/** The flow of a job as text. */
export function flowText(flow: JobFlow): string {
  const number = new Map(flow.nodes.map((node, i) => [node.id, i + 1]));
  const waitsFor = new Map<string, string[]>();
  for (const edge of flow.edges) {
    const label = `${number.get(edge.dependency) ?? '?'}${edge.onDeath === 'fail' ? '' : ` (${edge.onDeath})`}`;
    waitsFor.set(edge.dependent, [...(waitsFor.get(edge.dependent) ?? []), label]);
  }
  const jobs = flow.nodes.length === 1 ? '1 job' : `${flow.nodes.length} jobs`;
  const edges = flow.edges.length === 1 ? '1 dependency' : `${flow.edges.length} dependencies`;
  let out = `flow of ${flow.id}: ${jobs}, ${edges}; * marks this job\n`;
  if (flow.truncated) {
    out += `showing the ${flow.limit} jobs nearest to it: more are connected, and their dependencies are left out\n`;
  }
  out += '\n';
  out += table(
    ['#', 'LAYER', 'STATE', 'TYPE', 'QUEUE', 'ID', 'WAITS FOR'],
    flow.nodes.map((node, i) => [
      `${i + 1}${node.id === flow.id ? '*' : ''}`,
      String(node.depth),
      stateText(node),
      node.type ?? '-',
      node.queue ?? '-',
      node.id,
      (waitsFor.get(node.id) ?? ['-']).join(', '),
    ]),
  );
  const errors = flow.nodes.flatMap((node, i) =>
    node.error === null ? [] : [`  ${i + 1}  ${node.error}`],
  );
  if (errors.length > 0) out += `\nerrors\n${errors.join('\n')}\n`;
  if (flow.nodes.length === 1) out += '\nno job waits for it and it waits for none\n';
  return out;
}
