/**
 * The failure inbox, the DLQ's landing view: dead jobs grouped by error fingerprint, largest
 * first, with when each group was first and last seen, how many joined it in the last hour
 * against its usual rate, and the repair of a whole group — resurrect, edit and resurrect
 * (a payload patch with its diff), or purge — each previewed and confirmed.
 */
import { useState } from 'preact/hooks';
import type { JobCount } from '../../../operator/jobs.js';
import type { ErrorGroup } from '../../../storage/model.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { ago, count, exact } from '../lib/format.js';
import { href } from '../lib/route.js';
import { BulkDialog, type BulkRequestDraft } from './bulk-dialog.js';

const HOUR_MS = 3_600_000;

/** The inbox panel. */
export function InboxPanel({ operate }: { operate: boolean }) {
  const feed = useFeed();
  const groups = useData(
    () => get<ErrorGroup[]>('dlq/groups', { limit: 50 }),
    'groups',
    feed.changes,
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
            operate={operate}
            onAction={(action) => setBulk({ action, target: { errorGroup: g.fingerprint } })}
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
  operate: boolean;
  onAction: (action: BulkRequestDraft['action']) => void;
}) {
  const g = props.group;
  const recent = useData(
    () =>
      get<JobCount>('jobs/count', {
        state: ['dead'],
        errorGroup: g.fingerprint,
        finished: { from: new Date(Date.now() - HOUR_MS).toISOString() },
      }),
    // Re-read with the group's count, not on every change: one count per group, not per tick.
    `${g.fingerprint} ${g.count}`,
  );
  const hours = Math.max(
    1,
    (Date.parse(String(g.lastSeen)) - Date.parse(String(g.firstSeen))) / HOUR_MS,
  );
  const usual = g.count / hours;
  const lastHour = recent.data?.count ?? null;
  const trend =
    lastHour === null
      ? ''
      : lastHour > usual * 1.5
        ? 'rising'
        : lastHour === 0
          ? 'quiet'
          : 'steady';
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
        {lastHour !== null && (
          <span
            class={`trend trend-${trend}`}
            title={`about ${usual.toFixed(1)} an hour since first seen`}
          >
            {' '}
            · {count(lastHour)} in the last hour ({trend})
          </span>
        )}
      </div>
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
