/**
 * The flow a job belongs to, on its page: every job connected to it through dependencies drawn
 * as a graph (SVG), columns by layer left to right, arrows from a dependency to the job that
 * waits for it (dashed under `skip` or `continue`), each job a link to its page coloured by its
 * state with the state as text, the page's job outlined. Live with the page. Its text
 * alternative is the list of dependencies below it; a flow larger than the bound says so. With
 * operate access, bulk actions on the whole flow: cancel it, resurrect its dead jobs.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { JobFlow, JobFlowNode } from '../../../operator/job-flow.js';
import { shortId } from '../components/job-id.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { layoutFlow, NODE_HEIGHT, NODE_WIDTH } from '../lib/flow-layout.js';
import { href } from '../lib/route.js';
import { BulkDialog, type BulkRequestDraft } from './bulk-dialog.js';
import { CodeDialog } from './code-dialog.js';
import '../styles/flow-graph.css';

/** Most characters of a line a box shows (the whole text is in its tooltip). */
const LINE_CHARS = 31;

/** A job's state as its box and the list say it: `dead (Fatal)`. */
function stateText(node: JobFlowNode): string {
  return node.reason === null ? node.state : `${node.state} (${node.reason})`;
}

/**
 * A box's second line: the state, then `this job` or the end of the id, left out when the line
 * would be too long (a dead job's reason); the page's job is outlined either way.
 */
function stateLine(node: JobFlowNode, current: boolean): string {
  const line = `${stateText(node)} · ${current ? 'this job' : `…${shortId(node.id)}`}`;
  return line.length <= LINE_CHARS ? line : cut(stateText(node), LINE_CHARS);
}

/** How the list and the screen reader name a job: its type and the end of its id. */
function jobName(node: JobFlowNode | undefined, id: string): string {
  return `${node?.type ?? 'purged job'} …${shortId(id)}`;
}

/** The flow of job `id`; drawn once it has loaded. With `operate`, its bulk actions. */
export function FlowGraph({ id, operate }: { id: string; operate: boolean }) {
  const feed = useFeed();
  const flow = useData(
    (live) => get<JobFlow>(`jobs/${encodeURIComponent(id)}/flow`, undefined, live),
    id,
    feed.changes,
  );
  const [code, setCode] = useState(false);
  return (
    <section class="flow-graph" aria-labelledby="flow-title">
      <div class="title-row">
        <h2 id="flow-title">Flow</h2>
        <span class="spacer" />
        <button type="button" class="ghost small" onClick={() => setCode(true)}>
          Copy as code
        </button>
        {operate && flow.data !== null && <FlowActions flow={flow.data} />}
      </div>
      {flow.error ? (
        <p class="error">{flow.error.message}</p>
      ) : flow.data === null ? (
        <p class="muted">Loading the flow…</p>
      ) : (
        <FlowView flow={flow.data} />
      )}
      {code && (
        <CodeDialog
          title="This flow as code"
          code={{
            cli: `chokaq jobs flow ${id} --json`,
            api: `await chokaq.jobs.flow(${JSON.stringify(id)});`,
          }}
          onClose={() => setCode(false)}
        />
      )}
    </section>
  );
}

function FlowView({ flow }: { flow: JobFlow }) {
  const layout = layoutFlow(flow);
  const scroller = useRef<HTMLDivElement>(null);
  const self = layout.nodes.find((placed) => placed.node.id === flow.id);
  // A tall or wide flow opens on the page's job (once: live updates leave the scroll alone).
  useEffect(() => {
    const box = scroller.current;
    if (box === null || self === undefined) return;
    box.scrollTop = Math.max(0, self.y + NODE_HEIGHT / 2 - box.clientHeight / 2);
    box.scrollLeft = Math.max(0, self.x + NODE_WIDTH / 2 - box.clientWidth / 2);
  }, [flow.id]); // Only when the flow's job changes, not on each live read.
  const byId = new Map(flow.nodes.map((node) => [node.id, node]));
  const jobs = flow.nodes.length === 1 ? '1 job' : `${flow.nodes.length} jobs`;
  const edges = flow.edges.length === 1 ? '1 dependency' : `${flow.edges.length} dependencies`;
  return (
    <>
      <p class="muted" data-flow-summary>
        {jobs}, {edges}; arrows go from a job to the job that waits for it; this job is outlined.
        {flow.truncated && (
          <strong class="flow-bound" data-flow-truncated>
            {' '}
            Showing the {flow.limit} jobs nearest to this one: the flow has more, and their
            dependencies are not drawn (<code>chokaq jobs flow {flow.id}</code> lists up to 1,000).
          </strong>
        )}
      </p>
      <div class="flow-scroll" ref={scroller}>
        <svg
          class="flow-svg"
          width={layout.width}
          height={layout.height}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          role="group"
          aria-label={`Flow graph: ${jobs}, each a link to its page; the dependencies as text follow it`}
        >
          <defs>
            <marker
              id="flow-arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M0,0 L10,5 L0,10 z" />
            </marker>
          </defs>
          {layout.edges.map(({ edge, path }) => (
            <path
              key={`${edge.dependency}>${edge.dependent}`}
              class={`flow-edge on-${edge.onDeath}`}
              d={path}
              marker-end="url(#flow-arrow)"
            >
              <title>
                {`${jobName(byId.get(edge.dependent), edge.dependent)} waits for ${jobName(byId.get(edge.dependency), edge.dependency)} (on death: ${edge.onDeath})`}
              </title>
            </path>
          ))}
          {layout.nodes.map(({ node, x, y }) => {
            const current = node.id === flow.id;
            const label = `${jobName(node, node.id)}, ${stateText(node)}${current ? ', this job' : ''}`;
            return (
              <a
                key={node.id}
                href={href('job', node.id)}
                class={`flow-node state-${node.state}${current ? ' current' : ''}`}
                aria-label={label}
                aria-current={current ? 'page' : undefined}
                data-flow-node={node.id}
              >
                <title>
                  {[
                    node.id,
                    `${node.type ?? 'purged'}${node.queue === null ? '' : ` in ${node.queue}`}`,
                    stateText(node),
                    node.error ?? '',
                  ]
                    .filter(Boolean)
                    .join('\n')}
                </title>
                <rect x={x} y={y} width={NODE_WIDTH} height={NODE_HEIGHT} rx="6" />
                <text x={x + 10} y={y + 18} class="flow-type">
                  {cut(node.type ?? 'purged job', LINE_CHARS)}
                </text>
                <text x={x + 10} y={y + 36} class="flow-state">
                  {stateLine(node, current)}
                </text>
              </a>
            );
          })}
        </svg>
      </div>
      <details class="flow-edges">
        <summary>The dependencies as text</summary>
        <ul aria-label="Flow dependencies">
          {listed(flow).map((edge) => (
            <li key={`${edge.dependency}>${edge.dependent}`}>
              <FlowJobLink node={byId.get(edge.dependent)} id={edge.dependent} /> waits for{' '}
              <FlowJobLink node={byId.get(edge.dependency)} id={edge.dependency} />
              {edge.onDeath !== 'fail' && <span class="muted"> · on death: {edge.onDeath}</span>}
            </li>
          ))}
        </ul>
      </details>
    </>
  );
}

/**
 * The flow's bulk actions, each through the bulk dialog's preview and confirmation: cancel every
 * job of it not finished, resurrect its dead jobs (which resumes it).
 */
function FlowActions({ flow }: { flow: JobFlow }) {
  const [draft, setDraft] = useState<BulkRequestDraft | null>(null);
  const hot = flow.nodes.some((node) => !['succeeded', 'dead', 'purged'].includes(node.state));
  const dead = flow.nodes.some((node) => node.state === 'dead');
  const target = { flow: flow.id };
  return (
    <>
      {dead && (
        <button
          type="button"
          class="small"
          onClick={() => setDraft({ action: 'resurrect', target })}
        >
          Resurrect its dead jobs…
        </button>
      )}
      {hot && (
        <button
          type="button"
          class="small danger"
          onClick={() => setDraft({ action: 'cancel', target })}
        >
          Cancel the flow…
        </button>
      )}
      {draft !== null && <BulkDialog draft={draft} onClose={() => setDraft(null)} />}
    </>
  );
}

function FlowJobLink({ node, id }: { node: JobFlowNode | undefined; id: string }) {
  return (
    <>
      <a href={href('job', id)} class="mono">
        {jobName(node, id)}
      </a>{' '}
      [{node === undefined ? 'not shown' : stateText(node)}]
    </>
  );
}

/** The edges in the order of the jobs that wait, then of the jobs they wait for. */
function listed(flow: JobFlow): JobFlow['edges'] {
  const place = new Map(flow.nodes.map((node, i) => [node.id, i]));
  const at = (id: string) => place.get(id) ?? 0;
  return [...flow.edges].sort(
    (a, b) => at(a.dependent) - at(b.dependent) || at(a.dependency) - at(b.dependency),
  );
}

/** `text` cut to `width` characters, with an ellipsis when cut. */
function cut(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}
