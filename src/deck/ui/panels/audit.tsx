/**
 * The audit console: every operator action with when (local time to the second), its actor,
 * reason, target and outcome, one compact row each so a laptop screen shows many.
 */
import { useState } from 'preact/hooks';
import type { AuditEntry } from '../../../storage/bulk.js';
import { FieldsView } from '../components/fields-view.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { ago, stamp } from '../lib/format.js';

const PAGE = 100;

/** The audit panel. */
export function AuditPanel() {
  const feed = useFeed();
  const [before, setBefore] = useState<string[]>([]);
  const cursor = before[before.length - 1];
  const entries = useData(
    (live) =>
      get<AuditEntry[]>('audit', { limit: PAGE, ...(cursor ? { before: cursor } : {}) }, live),
    cursor ?? '',
    cursor ? undefined : feed.changes,
  );
  const rows = entries.data ?? [];
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit trail</h1>
      <table class="grid audit" aria-label="Audit trail">
        <thead>
          <tr>
            <th class="when">When</th>
            <th class="actor">Actor</th>
            <th class="action">Action</th>
            <th class="reason">Reason</th>
            <th class="target">Target</th>
            <th>Outcome</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={e.id} data-audit={e.action}>
              <td class="nowrap">
                <time title={ago(e.at)}>{stamp(e.at)}</time>
              </td>
              <td class="wrap">{e.actor}</td>
              <td class="wrap">{e.action}</td>
              <td>{e.reason ?? '—'}</td>
              <td data-target>
                <FieldsView value={e.target} />
              </td>
              <td data-outcome>
                <FieldsView value={e.outcome} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="pager">
        <button
          type="button"
          class="ghost"
          disabled={before.length === 0}
          onClick={() => setBefore(before.slice(0, -1))}
        >
          ← Newer
        </button>
        <button
          type="button"
          class="ghost"
          disabled={rows.length < PAGE}
          onClick={() => setBefore([...before, rows[rows.length - 1]!.id])}
        >
          Older →
        </button>
      </div>
    </section>
  );
}
