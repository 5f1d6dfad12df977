/**
 * Flow control: the concurrency keys in use, busiest first, with their jobs running against
 * their limit and their pending jobs; and the rate buckets, most throttled first, with their
 * limit, tokens, block and counts. Read-only: limits live in the job definitions.
 */
import type { FlowView } from '../../api/flow.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { ago, count, duration, exact } from '../lib/format.js';
import { href } from '../lib/route.js';

/** The flow-control panel. */
export function FlowPanel() {
  const feed = useFeed();
  // Re-read with the state: usage and tokens move with every claim and start.
  const at = feed.status ? Date.parse(String(feed.status.at)) : 0;
  const flow = useData((live) => get<FlowView>('flow', { limit: 50 }, live), 'flow', at);
  const keys = flow.data?.keys ?? [];
  const buckets = flow.data?.buckets ?? [];
  return (
    <section aria-labelledby="flow-title">
      <h1 id="flow-title">Flow control</h1>
      {flow.error && <p class="error">{flow.error.message}</p>}
      <div class="card">
        <h2>Concurrency keys (busiest 50)</h2>
        {flow.data && keys.length === 0 && <p class="muted">No job in the hot table has a key.</p>}
        <table class="grid" aria-label="Concurrency keys">
          <thead>
            <tr>
              <th>Queue</th>
              <th>Key</th>
              <th class="num">Running / limit</th>
              <th class="num">Pending</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={`${k.queue}\u0000${k.key}`} data-key={k.key}>
                <td>
                  <a href={href('jobs', 'active', { q: { queue: k.queue } })}>{k.queue}</a>
                </td>
                <td class="mono">{k.key}</td>
                <td class="num" data-usage>
                  {k.limit !== null && k.running >= k.limit ? (
                    <span class="pill warn" title="at its limit: its next jobs wait">
                      {k.running} / {k.limit}
                    </span>
                  ) : (
                    `${k.running} / ${k.limit ?? '∞'}`
                  )}
                </td>
                <td class="num">{count(k.pending)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="card">
        <h2>Rate buckets (most throttled 50)</h2>
        {flow.data && buckets.length === 0 && <p class="muted">No rate-limited job drew yet.</p>}
        <table class="grid" aria-label="Rate buckets" hidden={buckets.length === 0}>
          <thead>
            <tr>
              <th>Bucket</th>
              <th class="num">Limit</th>
              <th class="num">Tokens</th>
              <th>Blocked</th>
              <th class="num">Granted</th>
              <th class="num">Throttled</th>
              <th>Last draw</th>
            </tr>
          </thead>
          <tbody>
            {buckets.map((b) => (
              <tr key={b.name} data-bucket={b.name}>
                <td class="mono">{b.name}</td>
                <td class="num">
                  {count(b.limit)} / {duration(b.perMs)}
                </td>
                <td class="num">{Math.floor(b.tokens)}</td>
                <td title={exact(b.blockedUntil)}>
                  <Block until={b.blockedUntil} />
                </td>
                <td class="num">{count(b.grantedTotal)}</td>
                <td class="num" data-throttled>
                  {count(b.throttledTotal)}
                </td>
                <td title={exact(b.updatedAt)}>{ago(b.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** A bucket's block by a handler's `RateLimitedError`: how long it still lasts, or —. */
function Block({ until }: { until: Date | string | null }) {
  const left = until === null ? 0 : Date.parse(String(until)) - Date.now();
  if (left <= 0) return <>—</>;
  return <span class="pill bad">for {duration(left)}</span>;
}
