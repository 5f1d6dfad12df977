/**
 * The job matrix: Active, Archive and DLQ tabs over the operator query, with its filters (kept
 * in the URL: a saved view is a link), counts by state that filter, server-side keyset paging, a
 * count that says when it is an estimate, multi-select (shift-click for a range, or every job the
 * filter matches), bulk actions with a preview (the destructive ones only there), the safe
 * actions of each row, and the keyboard (`j` / `k`, `Enter`, `x`, `Esc`). Rows are one line each
 * (short ids, the error message first), so a laptop screen shows 15 or more.
 */
import { useEffect, useState } from 'preact/hooks';
import type { JobCount, JobPage } from '../../../operator/jobs.js';
import type { JobQuery } from '../../../operator/query-input.js';
import type { StrandedWork } from '../../../observability/health/system.js';
import type { JobSummary } from '../../../storage/model.js';
import { get } from '../lib/api.js';
import { queryAsCode } from '../lib/copy-as-code.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { ErrorLine } from '../components/error-view.js';
import { JobId } from '../components/job-id.js';
import { StrandedBadge, StrandedNote, strandedOf, WithStranded } from '../components/stranded.js';
import { ago, count, exact } from '../lib/format.js';
import { cursorFor, rememberCursor, useViewKeys } from '../lib/matrix-keys.js';
import { href, navigate } from '../lib/route.js';
import { chosenState, TABS, tabQuery, withoutState, type Tab } from '../lib/tabs.js';
import { BulkDialog, type BulkRequestDraft } from './bulk-dialog.js';
import { CodeDialog } from './code-dialog.js';
import { FilterBar } from './filters.js';
import { RowActions } from './row-actions.js';
import { StateChips } from './state-chips.js';

const PAGE_SIZE = 50;

/** Reads the view's query from the URL (`q`), ignoring what is not an object. */
function viewQuery(params: URLSearchParams): JobQuery {
  try {
    const value = JSON.parse(params.get('q') ?? '{}') as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** The jobs panel. */
export function JobsPanel(props: {
  tab: string | undefined;
  params: URLSearchParams;
  operate: boolean;
}) {
  const tab: Tab = props.tab && props.tab in TABS ? (props.tab as Tab) : 'active';
  const view = viewQuery(props.params);
  const query = tabQuery(tab, view);
  const key = JSON.stringify({ tab, query });
  const [cursors, setCursors] = useState<{ key: string; stack: (string | undefined)[] }>({
    key,
    stack: [undefined],
  });
  const stack = cursors.key === key ? cursors.stack : [undefined];
  const cursor = stack[stack.length - 1];
  const [selected, setSelected] = useState<{
    key: string;
    ids: string[];
    all: boolean;
    anchor: number;
  }>({
    key,
    ids: [],
    all: false,
    anchor: -1,
  });
  const selection = selected.key === key ? selected : { key, ids: [], all: false, anchor: -1 };
  const feed = useFeed();
  // The page holds still while rows are chosen, so the selection keeps meaning what it showed.
  const live = selection.ids.length === 0 && !selection.all ? feed.changes : undefined;
  const page = useData(
    (byFeed) =>
      get<JobPage>('jobs', { ...query, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }, byFeed),
    `${key}|${cursor ?? ''}`,
    live,
  );
  const total = useData((byFeed) => get<JobCount>('jobs/count', query, byFeed), key, live);
  const [bulk, setBulk] = useState<BulkRequestDraft | null>(null);
  const [code, setCode] = useState(false);
  const jobs = page.data?.jobs ?? [];

  const setView = (next: JobQuery) =>
    navigate(href('jobs', tab, Object.keys(next).length ? { q: next } : {}));
  const toggle = (index: number, shift: boolean) => {
    const id = jobs[index]!.id;
    let ids = selection.ids;
    if (shift && selection.anchor >= 0) {
      const [from, to] = [Math.min(selection.anchor, index), Math.max(selection.anchor, index)];
      ids = [...new Set([...ids, ...jobs.slice(from, to + 1).map((j) => j.id)])];
    } else ids = ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id];
    setSelected({ key, ids, all: false, anchor: index });
  };
  // The keyboard's row, per view and page; on the first page, back where it was after the
  // inspector (the pager's cursors are not kept).
  const viewHash = `${location.hash}|${stack.length}`;
  const [cursorAt, setCursorAt] = useState(() => ({ view: viewHash, row: cursorFor(viewHash) }));
  const row = cursorAt.view === viewHash ? Math.min(cursorAt.row, Math.max(0, jobs.length - 1)) : 0;
  useEffect(() => {
    document.querySelector('tr[data-cursor]')?.scrollIntoView({ block: 'nearest' });
  }, [row, viewHash]);
  const selectable = props.operate && tab !== 'archive';
  const open = (at: number) => {
    rememberCursor(location.hash, viewHash, at);
    navigate(href('job', jobs[at]!.id));
  };
  useViewKeys({
    move: (by) =>
      setCursorAt({
        view: viewHash,
        row: Math.min(Math.max(0, row + by), Math.max(0, jobs.length - 1)),
      }),
    open: () => jobs[row] && open(row),
    toggle: () => selectable && !selection.all && jobs[row] && toggle(row, false),
    escape: () => setSelected({ key, ids: [], all: false, anchor: -1 }),
  });
  const reloadPage = () => {
    page.reload();
    total.reload();
  };
  // The rows, and on the Active tab the due work of the view's queues no live worker runs.
  const queues = view.queue === undefined ? undefined : [view.queue].flat();
  const matrix = (stranded: readonly StrandedWork[]) => (
    <>
      <StrandedNote stranded={stranded} queues={queues} />
      <JobTable
        jobs={jobs}
        tab={tab}
        operate={props.operate}
        selected={selection.all ? null : selection.ids}
        cursor={row}
        stranded={stranded}
        onToggle={toggle}
        onOpen={(at) => rememberCursor(location.hash, viewHash, at)}
        onChanged={reloadPage}
      />
    </>
  );
  const target = selection.all ? { query } : { ids: selection.ids };
  const chosen = selection.all ? (total.data?.count ?? 0) : selection.ids.length;

  return (
    <section aria-labelledby="jobs-title">
      <div class="jobs-head">
        <h1 id="jobs-title">Jobs</h1>
        <div class="tabs" role="tablist">
          {(Object.keys(TABS) as Tab[]).map((t) => (
            <a
              key={t}
              role="tab"
              aria-selected={t === tab}
              class={t === tab ? 'active' : ''}
              href={href(
                'jobs',
                t,
                Object.keys(withoutState(view)).length ? { q: withoutState(view) } : {},
              )}
            >
              {TABS[t].label}
            </a>
          ))}
        </div>
        <span class="spacer" />
        <StateChips tab={tab} view={view} chosen={chosenState(tab, view)} live={live} />
        <button type="button" class="ghost small" onClick={() => setCode(true)}>
          Copy as code
        </button>
      </div>
      <FilterBar tab={tab} query={view} onChange={setView} />
      <div class="toolbar">
        <span class="muted" data-count>
          {total.data
            ? `${total.data.exact ? '' : '≈ '}${count(total.data.count)} jobs${total.data.exact ? '' : ' (estimate)'}`
            : '…'}
        </span>
        {page.data?.scan && !page.data.scan.complete && (
          <span class="warn-text">
            payload scan stopped after {count(page.data.scan.rowsPerTable)} rows per table: follow
            Next to scan on
          </span>
        )}
        <span class="spacer" />
        {props.operate && tab !== 'archive' && jobs.length > 0 && (
          <BulkBar
            tab={tab}
            chosen={chosen}
            all={selection.all}
            matching={total.data?.count ?? null}
            onSelectAll={() => setSelected({ key, ids: [], all: true, anchor: -1 })}
            onClear={() => setSelected({ key, ids: [], all: false, anchor: -1 })}
            onAction={(action) => setBulk({ action, target })}
          />
        )}
      </div>
      {page.error && <p class="error">{page.error.message}</p>}
      {tab === 'active' ? <WithStranded>{matrix}</WithStranded> : matrix([])}
      <div class="pager">
        <button
          type="button"
          class="ghost"
          disabled={stack.length <= 1}
          onClick={() => setCursors({ key, stack: stack.slice(0, -1) })}
        >
          ← Previous
        </button>
        <span class="muted">page {stack.length}</span>
        <button
          type="button"
          class="ghost"
          disabled={!page.data?.nextCursor}
          onClick={() => setCursors({ key, stack: [...stack, page.data!.nextCursor!] })}
        >
          Next →
        </button>
      </div>
      {bulk && (
        <BulkDialog
          draft={bulk}
          onClose={() => {
            setBulk(null);
            setSelected({ key, ids: [], all: false, anchor: -1 });
            reloadPage();
          }}
        />
      )}
      {code && (
        <CodeDialog
          title="This view as code"
          code={queryAsCode(query)}
          onClose={() => setCode(false)}
        />
      )}
    </section>
  );
}

function BulkBar(props: {
  tab: Tab;
  chosen: number;
  all: boolean;
  matching: number | null;
  onSelectAll: () => void;
  onClear: () => void;
  onAction: (action: BulkRequestDraft['action']) => void;
}) {
  const none = props.chosen === 0;
  return (
    <span class="bulk-bar">
      <span>
        {props.all ? `all ${count(props.chosen)} matching` : `${count(props.chosen)} selected`}
      </span>
      {!props.all && props.matching !== null && (
        <button type="button" class="ghost small" onClick={props.onSelectAll}>
          Select all {count(props.matching)} matching
        </button>
      )}
      {(props.chosen > 0 || props.all) && (
        <button type="button" class="ghost small" onClick={props.onClear}>
          Clear
        </button>
      )}
      {props.tab === 'dlq' && (
        <>
          <button
            type="button"
            class="small"
            disabled={none}
            onClick={() => props.onAction('resurrect')}
          >
            Resurrect…
          </button>
          <button
            type="button"
            class="small"
            disabled={none}
            onClick={() => props.onAction('edit-resurrect')}
          >
            Edit &amp; resurrect…
          </button>
          <button
            type="button"
            class="small danger"
            disabled={none}
            onClick={() => props.onAction('purge')}
          >
            Purge…
          </button>
        </>
      )}
      {props.tab === 'active' && (
        <button
          type="button"
          class="small danger"
          disabled={none}
          onClick={() => props.onAction('cancel')}
        >
          Cancel…
        </button>
      )}
    </span>
  );
}

function JobTable(props: {
  jobs: JobSummary[];
  tab: Tab;
  operate: boolean;
  /** `null`: every matching job is chosen. */
  selected: string[] | null;
  /** The keyboard's row. */
  cursor: number;
  /** Due work no live worker runs: its rows get a badge. */
  stranded: readonly StrandedWork[];
  onToggle: (index: number, shift: boolean) => void;
  /** A row's job is being opened by its link. */
  onOpen: (index: number) => void;
  /** A row action changed a job. */
  onChanged: () => void;
}) {
  const selectable = props.operate && props.tab !== 'archive';
  const active = props.tab === 'active';
  return (
    <div class="table-scroll">
      <table class="grid jobs" aria-label="Jobs">
        <thead>
          <tr>
            {selectable && <th aria-label="Select" />}
            <th>Id</th>
            <th>Type</th>
            <th>Queue</th>
            <th>State</th>
            <th class="num" title="Attempts">
              Att.
            </th>
            {active && <th>Run at</th>}
            <th>{active ? 'Created' : 'Finished'}</th>
            <th>{props.tab === 'dlq' ? 'Error' : 'Tags'}</th>
            {props.operate && <th>Actions</th>}
          </tr>
        </thead>
        <tbody>
          {props.jobs.length === 0 && (
            <tr>
              <td colSpan={10} class="muted">
                No jobs match.
              </td>
            </tr>
          )}
          {props.jobs.map((job, index) => {
            const checked = props.selected === null || props.selected.includes(job.id);
            const when = active ? job.createdAt : job.finishedAt;
            const strandedEntry = strandedOf(job, props.stranded);
            return (
              <tr
                key={job.id}
                class={`${checked && selectable ? 'chosen' : ''}${index === props.cursor ? ' cursor' : ''}`}
                data-job={job.id}
                data-cursor={index === props.cursor ? '' : undefined}
                aria-current={index === props.cursor ? 'true' : undefined}
              >
                {selectable && (
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`select ${job.id}`}
                      checked={checked}
                      disabled={props.selected === null}
                      onClick={(e) => props.onToggle(index, (e as MouseEvent).shiftKey)}
                    />
                  </td>
                )}
                <td class="mono">
                  <JobId
                    id={job.id}
                    href={href('job', job.id)}
                    onOpen={() => props.onOpen(index)}
                  />
                </td>
                <td class="clip-type" title={job.type}>
                  {job.type}
                </td>
                <td>{job.queue}</td>
                <td>
                  <span class={`pill state-${job.state}`}>{job.state}</span>
                  {strandedEntry && <StrandedBadge entry={strandedEntry} />}
                </td>
                <td class="num">{job.attempts}</td>
                {active && (
                  <td title={exact(job.runAt)} data-run-at>
                    {job.state === 'awaiting' ? 'after its dependencies' : ago(job.runAt)}
                  </td>
                )}
                <td title={exact(when)}>{ago(when)}</td>
                <td class="clip">
                  {props.tab === 'dlq'
                    ? job.error && <ErrorLine text={job.error} extra={job.reason} />
                    : job.tags}
                </td>
                {props.operate && <RowActions job={job} tab={props.tab} onDone={props.onChanged} />}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
