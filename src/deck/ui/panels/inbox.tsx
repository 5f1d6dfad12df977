/**
 * The failure inbox, the DLQ's landing view: dead jobs grouped by error fingerprint, largest
 * first, with when each group was first and last seen, its trend (jobs that joined it in each of
 * the last 24 hours, one read for every group shown), and the repair of a whole group —
 * resurrect, edit and resurrect (a payload patch with its diff), or purge — each previewed and
 * confirmed.
 */
import { useState } from 'preact/hooks';
import type { ErrorGroupTrend } from '../../../operator/group-trend.js';
import type { ErrorGroup } from '../../../storage/model.js';
import { Sparkline } from '../components/sparkline.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { ago, count, exact } from '../lib/format.js';
import { RECENT_HOURS, trendLabel } from '../lib/group-trend.js';
import { href } from '../lib/route.js';
import { BulkDialog, type BulkRequestDraft } from './bulk-dialog.js';

/** The inbox panel. */
export function InboxPanel({ operate }: { operate: boolean }) {
  const feed = useFeed();
  const groups = useData(
    (live) => get<ErrorGroup[]>('dlq/groups', { limit: 50 }, live),
    'groups',
    feed.changes,
  );
  const fingerprints = (groups.data ?? []).map((g) => g.fingerprint);
  // Re-read with the groups (their counts move when jobs join), not on every change.
  const trend = useData(
    () =>
      fingerprints.length === 0
        ? Promise.resolve(null)
        : get<ErrorGroupTrend>('dlq/trend', { groups: fingerprints }),
    (groups.data ?? []).map((g) => `${g.fingerprint}:${g.count}`).join(' '),
  );
  const [bulk, setBulk] = useState<BulkRequestDraft | null>(null);
  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title">Failures</h1>
      <p class="muted">
        Dead jobs grouped by their error: its class, its message with ids, numbers and quoted values
        taken out, and the top frame of your code.
      </p>
      {groups.error && <p class="error">{groups.error.message}</p>}
      {groups.data?.length === 0 && <p class="card">The DLQ is empty. Nothing failed for good.</p>}
      <div class="groups">
        {(groups.data ?? []).map((g) => (
          <GroupCard
            key={g.fingerprint}
            group={g}
            trend={trend.data ?? null}
            operate={operate}
            onAction={(action) =>
              setBulk({ action, target: { errorGroup: g.fingerprint }, types: g.types })
            }
          />
        ))}
      </div>
      {bulk && (
        <BulkDialog
          draft={bulk}
          onClose={() => {
            setBulk(null);
            groups.reload();
          }}
        />
      )}
    </section>
  );
}

function GroupCard(props: {
  group: ErrorGroup;
  trend: ErrorGroupTrend | null;
  operate: boolean;
  onAction: (action: BulkRequestDraft['action']) => void;
}) {
  const g = props.group;
  const counts = props.trend?.groups.find((t) => t.fingerprint === g.fingerprint)?.counts ?? null;
  const hours = props.trend?.hours ?? [];
  const day = counts?.reduce((a, b) => a + b, 0) ?? 0;
  const recent = counts?.slice(-RECENT_HOURS).reduce((a, b) => a + b, 0) ?? 0;
  const trend = counts === null ? 'quiet' : trendLabel(counts);
  return (
    <article
      class="card group"
      data-group={g.fingerprint}
      aria-label={`${g.errorClass}: ${g.message}`}
    >
      <header>
        <b>{g.errorClass}</b> <span class="message">{g.message}</span>
      </header>
      {g.frame && <div class="muted mono">at {g.frame}</div>}
      <div class="group-stats">
        <span class="big" data-group-count>
          {count(g.count)}
        </span>{' '}
        jobs · first seen <span title={exact(g.firstSeen)}>{ago(g.firstSeen)}</span> · last seen{' '}
        <span title={exact(g.lastSeen)}>{ago(g.lastSeen)}</span>
      </div>
      {counts !== null && (
        <div class="group-trend" data-group-trend={counts.join(',')}>
          <Sparkline
            values={counts}
            label={`jobs that joined per hour over the last 24 hours: ${counts.join(', ')}`}
            titles={counts.map((c, k) => `${count(c)} from ${exact(hours[k])}`)}
          />
          <span class={`trend trend-${trend}`}>
            {count(day)} joined in the last 24 h, {count(recent)} in the last {RECENT_HOURS} h (
            {trend})
          </span>
        </div>
      )}
      <div class="muted">
        queues {g.queues.join(', ')} · types {g.types.join(', ')} · fingerprint{' '}
        <span class="mono">{g.fingerprint}</span>
      </div>
      <div class="buttons">
        <a
          class="button ghost small"
          href={href('jobs', 'dlq', { q: { errorGroup: g.fingerprint } })}
        >
          Show jobs
        </a>
        {g.sampleId !== null && (
          <a class="button ghost small" href={href('job', g.sampleId)}>
            Sample job
          </a>
        )}
        {props.operate && (
          <>
            <button type="button" class="small" onClick={() => props.onAction('resurrect')}>
              Resurrect group…
            </button>
            <button type="button" class="small" onClick={() => props.onAction('edit-resurrect')}>
              Fix and replay…
            </button>
            <button type="button" class="small danger" onClick={() => props.onAction('purge')}>
              Purge group…
            </button>
          </>
        )}
      </div>
    </article>
  );
}
