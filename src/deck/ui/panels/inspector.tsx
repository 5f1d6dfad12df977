/**
 * One job wherever it is (a permalink: `#/job/<id>` follows it from hot to archive or DLQ): what
 * an operator needs first — its payload, then its error with the stack collapsed (engine frames
 * folded) — then its metadata, result and progress, and the timeline of every kept run (each
 * with its duration and error), operator actions and cancel requests; times absolute beside
 * relative; the jobs it waits for (each with its state) and those that wait for it. Also what an operator can do to it there. `Esc` goes back to the job matrix.
 */
import { useState } from 'preact/hooks';
import type { JobDetail } from '../../../operator/jobs.js';
import type { TimelineEntry } from '../../../operator/timeline.js';
import { ErrorStack } from '../components/error-view.js';
import { JobActionButton } from '../components/job-action-button.js';
import { JsonView } from '../components/json-view.js';
import { StepEntry } from '../components/step-entry.js';
import { When } from '../components/when.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { backToMatrix, useViewKeys } from '../lib/matrix-keys.js';
import { duration } from '../lib/format.js';
import { href } from '../lib/route.js';
import { CodeDialog } from './code-dialog.js';
import { EditorDialog } from './editor.js';
import { FlowGraph } from './flow-graph.js';

/** The inspector of job `id`. */
export function InspectorPanel({ id, operate }: { id: string; operate: boolean }) {
  const feed = useFeed();
  const detail = useData(
    (live) => get<JobDetail>(`jobs/${encodeURIComponent(id)}`, undefined, live),
    id,
    feed.changes,
  );
  const [editing, setEditing] = useState(false);
  const [code, setCode] = useState(false);
  const where = detail.data?.found.where;
  useViewKeys({
    escape: () =>
      backToMatrix(
        href('jobs', where === 'dlq' ? 'dlq' : where === 'archive' ? 'archive' : 'active'),
      ),
  });
  if (detail.error?.status === 404) {
    return (
      <section>
        <h1 class="mono">{id}</h1>
        <p>
          No job with this id is in the hot table, the archive or the DLQ (it may have been purged
          by retention).
        </p>
      </section>
    );
  }
  if (detail.error) return <p class="error">{detail.error.message}</p>;
  if (!detail.data) return <p>Loading…</p>;
  const { found, timeline, runsNotKept, state } = detail.data;
  const job = found.job;
  const editable = operate && (state === 'scheduled' || state === 'pending' || state === 'dead');
  return (
    <section aria-labelledby="job-title">
      <div class="title-row">
        <h1 id="job-title" class="mono">
          {job.id}
        </h1>
        <span class={`pill state-${state}`} data-state={state}>
          {state}
        </span>
        <span class="spacer" />
        <button type="button" class="ghost small" onClick={() => setCode(true)}>
          Copy as code
        </button>
        {editable && (
          <button type="button" class="small" onClick={() => setEditing(true)}>
            Edit…
          </button>
        )}
        {operate && found.where === 'dlq' && (
          <>
            <JobActionButton action="resurrect" id={job.id} class="small" onDone={detail.reload} />
            <JobActionButton
              action="purge"
              id={job.id}
              class="small danger"
              onDone={detail.reload}
            />
          </>
        )}
        {operate && found.where === 'hot' && (
          <JobActionButton
            action="cancel"
            id={job.id}
            class="small danger"
            onDone={detail.reload}
          />
        )}
        {operate && found.where === 'archive' && (
          <JobActionButton action="rerun" id={job.id} class="small" onDone={detail.reload} />
        )}
      </div>
      <h2>Payload</h2>
      <JsonView value={JSON.parse(job.payload) as unknown} label="Payload" />
      {found.where === 'dlq' && found.job.errorDetails && (
        <>
          <h2>Error</h2>
          <ErrorStack text={found.job.errorDetails} />
        </>
      )}
      <dl class="meta">
        <dt>Type</dt>
        <dd>{job.type}</dd>
        <dt>Queue</dt>
        <dd>
          <a href={href('jobs', 'active', { q: { queue: job.queue } })}>{job.queue}</a>
        </dd>
        <dt>Where</dt>
        <dd>
          {found.where === 'hot' ? 'hot table' : found.where === 'archive' ? 'archive' : 'DLQ'}
        </dd>
        <dt>Attempts</dt>
        <dd>
          {job.attempts}
          {job.lostAttempts > 0 && <span class="muted"> (+{job.lostAttempts} lost, refunded)</span>}
        </dd>
        <dt>Created</dt>
        <dd>
          <When value={job.createdAt} />{' '}
          {job.createdBy && <span class="muted">by {job.createdBy}</span>}
        </dd>
        {found.where === 'hot' && (
          <>
            <dt>Priority</dt>
            <dd>{found.job.priority}</dd>
            <dt>Runs at</dt>
            <dd>
              {state === 'awaiting' ? (
                <>
                  once the jobs it waits for finish, not before <When value={found.job.runAt} />
                </>
              ) : (
                <When value={found.job.runAt} />
              )}
            </dd>
          </>
        )}
        {found.where === 'archive' && (
          <>
            <dt>Succeeded</dt>
            <dd>
              <When value={found.job.finishedAt} />
              {found.job.durationMs !== null && (
                <span class="muted"> in {duration(found.job.durationMs)}</span>
              )}
            </dd>
          </>
        )}
        {found.where === 'dlq' && (
          <>
            <dt>Failed</dt>
            <dd>
              <When value={found.job.failedAt} /> · {found.job.reason}
            </dd>
            <dt>Error group</dt>
            <dd>
              <a
                class="mono"
                href={href('jobs', 'dlq', { q: { errorGroup: found.job.fingerprint } })}
              >
                {found.job.fingerprint}
              </a>
            </dd>
          </>
        )}
        {job.concurrencyKey !== null && (
          <>
            <dt>Concurrency key</dt>
            <dd class="mono" data-concurrency-key>
              {job.concurrencyKey}
              {'concurrencyLimit' in job && job.concurrencyLimit !== null && (
                <span class="muted"> (limit {job.concurrencyLimit})</span>
              )}
            </dd>
          </>
        )}
        <dt>Tags</dt>
        <dd>{job.tags ?? '—'}</dd>
        <dt>Worker</dt>
        <dd class="mono">{job.workerId ?? '—'}</dd>
        <dt>Last changed by</dt>
        <dd>{job.lastModifiedBy ?? '—'}</dd>
        {detail.data.batch !== null && (
          <>
            <dt>Batch</dt>
            <dd>
              <span class="mono">{detail.data.batch.batch.id}</span> ·{' '}
              {detail.data.batch.role === 'member'
                ? 'member'
                : `${detail.data.batch.role} callback`}{' '}
              · {detail.data.batch.batch.succeeded}/{detail.data.batch.batch.total} succeeded,{' '}
              {detail.data.batch.batch.died} died, {detail.data.batch.batch.cancelled} cancelled
            </dd>
          </>
        )}
      </dl>
      {'progress' in job && job.progress !== null && (
        <p>
          Progress <progress max={100} value={job.progress} aria-label="progress" /> {job.progress}{' '}
          %
        </p>
      )}
      {found.where === 'archive' && found.job.result !== null && (
        <>
          <h2>Result</h2>
          <JsonView value={JSON.parse(found.job.result) as unknown} label="Result" />
        </>
      )}
      {(detail.data.dependencies.length > 0 || detail.data.dependents.length > 0) && (
        <FlowGraph id={job.id} operate={operate} />
      )}
      {detail.data.dependencies.length > 0 && (
        <>
          <h2>Waits for</h2>
          <ul class="dependencies" aria-label="Waits for">
            {detail.data.dependencies.map((d) => (
              <li key={d.id}>
                <a class="mono" href={href('job', d.id)}>
                  {d.id}
                </a>{' '}
                · {d.state}
                {d.reason !== null && <> ({d.reason})</>}
                <span class="muted"> · on death: {d.onDeath}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {detail.data.dependents.length > 0 && (
        <>
          <h2>Waited for by</h2>
          <ul class="dependencies" aria-label="Waited for by">
            {detail.data.dependents.map((dependent) => (
              <li key={dependent}>
                <a class="mono" href={href('job', dependent)}>
                  {dependent}
                </a>
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Timeline</h2>
      {runsNotKept > 0 && <p class="muted">{runsNotKept} older runs are not kept.</p>}
      <ol class="timeline" aria-label="Timeline">
        {timeline.map((entry, k) => (
          <TimelineItem key={k} entry={entry} />
        ))}
      </ol>
      {editing && (
        <EditorDialog
          detail={detail.data}
          onClose={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            detail.reload();
          }}
        />
      )}
      {code && (
        <CodeDialog
          title="This job as code"
          code={{
            cli: `chokaq jobs show ${job.id} --json`,
            api: `await chokaq.jobs.get(${JSON.stringify(job.id)});`,
          }}
          onClose={() => setCode(false)}
        />
      )}
    </section>
  );
}

function TimelineItem({ entry }: { entry: TimelineEntry }) {
  switch (entry.kind) {
    case 'enqueued':
      return (
        <li class="tl-enqueued">
          Enqueued <When value={entry.at} /> {entry.actor && `by ${entry.actor}`}
        </li>
      );
    case 'run': {
      const took =
        entry.startedAt && entry.endedAt
          ? `ran ${duration(Date.parse(String(entry.endedAt)) - Date.parse(String(entry.startedAt)))}`
          : entry.startedAt && entry.outcome === 'running'
            ? `running for ${duration(Date.now() - Date.parse(String(entry.startedAt)))}`
            : null;
      return (
        <li class={`tl-run tl-${entry.outcome}`} data-attempt={entry.attempt}>
          <b>Attempt {entry.attempt}</b> · {entry.outcome}
          {entry.reason && ` (${entry.reason})`}
          {took && (
            <>
              {' · '}
              <span data-took>{took}</span>
            </>
          )}{' '}
          · <When value={entry.at} />
          {entry.workerId && <span class="muted mono"> on {entry.workerId}</span>}
          {entry.error && <ErrorStack text={entry.error} />}
        </li>
      );
    }
    case 'action':
      return (
        <li class="tl-action">
          {entry.action} by {entry.actor} <When value={entry.at} />
        </li>
      );
    case 'dead':
      return (
        <li class="tl-dead">
          <b>Moved to the DLQ without running</b> · {entry.reason} · <When value={entry.at} />
          {entry.error && <ErrorStack text={entry.error} />}
        </li>
      );
    case 'cancel-requested':
      return (
        <li class="tl-cancel">
          Cancel requested {entry.actor && `by ${entry.actor}`} <When value={entry.at} />
        </li>
      );
    case 'step':
      return <StepEntry step={entry.step} at={entry.at} />;
  }
}
