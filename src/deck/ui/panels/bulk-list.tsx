/** Bulk actions: every recent one with its progress (a running one survives a reload), and one in detail. */
import type { BulkAction, BulkSkip } from '../../../storage/bulk.js';
import { JsonView } from '../components/json-view.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { ago, count, exact } from '../lib/format.js';
import { href } from '../lib/route.js';
import { shownStatus } from '../lib/bulk-summary.js';
import { BulkProgress } from './bulk-progress.js';

/** The bulk panel: the list, or action `id`. */
export function BulkPanel({ id, operate }: { id: string | undefined; operate: boolean }) {
  const feed = useFeed();
  const running = feed.status?.bulk.some((b) => b.status === 'running') ?? false;
  // While an action runs the panel follows every state push; otherwise changes are enough.
  const live = running && feed.status ? Date.parse(String(feed.status.at)) : feed.changes;
  if (id !== undefined) return <BulkDetail id={id} operate={operate} live={live} />;
  return <BulkList operate={operate} live={live} />;
}

function BulkList({ operate, live }: { operate: boolean; live: number }) {
  const list = useData((byFeed) => get<BulkAction[]>('bulk', { limit: 50 }, byFeed), 'bulk', live);
  return (
    <section aria-labelledby="bulk-title">
      <h1 id="bulk-title">Bulk actions</h1>
      {list.data?.length === 0 && (
        <p class="muted">No bulk action yet. Start one from the Jobs or Failures panel.</p>
      )}
      {(list.data ?? []).map((a) => (
        <div class="card" key={a.id}>
          <BulkProgress action={a} operate={operate} />
          <div class="muted">
            by {a.actor ?? '—'} · {a.reason ?? 'previewed, not run'} ·{' '}
            <span title={exact(a.createdAt)}>{ago(a.createdAt)}</span>
          </div>
        </div>
      ))}
    </section>
  );
}

function BulkDetail({ id, operate, live }: { id: string; operate: boolean; live: number }) {
  const detail = useData(
    (byFeed) =>
      get<{ action: BulkAction; skipped: BulkSkip[] }>(
        `bulk/${encodeURIComponent(id)}`,
        undefined,
        byFeed,
      ),
    id,
    live,
  );
  if (detail.error) return <p class="error">{detail.error.message}</p>;
  if (!detail.data) return <p>Loading…</p>;
  const { action, skipped } = detail.data;
  return (
    <section aria-labelledby="bulk-detail-title">
      <p>
        <a href={href('bulk')}>← Bulk actions</a>
      </p>
      <h1 id="bulk-detail-title">
        {action.action} <span class="mono muted">{action.id}</span>
      </h1>
      <BulkProgress action={action} operate={operate} />
      <dl class="meta">
        <dt>Status</dt>
        <dd data-bulk-status={shownStatus(action)}>{shownStatus(action)}</dd>
        <dt>By</dt>
        <dd>{action.actor ?? '—'}</dd>
        <dt>Reason</dt>
        <dd>{action.reason ?? '—'}</dd>
        <dt>Selection</dt>
        <dd>
          <JsonView value={action.target} />
        </dd>
        {action.edit !== null && (
          <>
            <dt>Edit</dt>
            <dd>
              <JsonView value={action.edit} />
            </dd>
          </>
        )}
        <dt>Counts</dt>
        <dd>
          {count(action.total)} selected · {count(action.applied)} applied · {count(action.skipped)}{' '}
          skipped
        </dd>
        {action.error && (
          <>
            <dt>Error</dt>
            <dd class="error">{action.error}</dd>
          </>
        )}
      </dl>
      {skipped.length > 0 && (
        <>
          <h2>Skipped</h2>
          <table class="grid" aria-label="Skipped jobs">
            <tbody>
              {skipped.map((s) => (
                <tr key={s.jobId}>
                  <td class="mono">
                    <a href={href('job', s.jobId)}>{s.jobId}</a>
                  </td>
                  <td>{s.note}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
