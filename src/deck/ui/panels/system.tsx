/** Health checks, circuits and the worker processes alive. */
import type { HealthReport } from '../../../monitoring/health/health-api.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { ago, exact } from '../lib/format.js';

/** The system panel. */
export function SystemPanel() {
  const feed = useFeed();
  const at = feed.status ? Date.parse(String(feed.status.at)) : 0;
  const health = useData((live) => get<HealthReport>('health', undefined, live), 'health', at);
  const status = feed.status;
  return (
    <section aria-labelledby="system-title">
      <h1 id="system-title">System</h1>
      <div class="card">
        <h2>
          Health{' '}
          <span class={`pill ${health.data?.status ?? ''}`}>{health.data?.status ?? '…'}</span>
        </h2>
        <table class="grid" aria-label="Health checks">
          <tbody>
            {(health.data?.checks ?? []).map((c) => (
              <tr key={c.name}>
                <td class="mono">{c.name}</td>
                <td>
                  <span class={`pill ${c.status}`}>{c.status}</span>
                </td>
                <td>{c.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="card">
        <h2>Circuits not closed (every worker)</h2>
        {status?.circuits.length === 0 && <p class="muted">Every circuit is closed.</p>}
        <table class="grid" aria-label="Circuits">
          <tbody>
            {(status?.circuits ?? []).map((c) => (
              <tr key={`${c.type} ${c.state}`}>
                <td>{c.type}</td>
                <td>
                  <span class={`pill ${c.state === 'open' ? 'bad' : 'warn'}`}>{c.state}</span>
                </td>
                <td class="mono">{c.workers.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="card">
        <h2>Workers alive</h2>
        <table class="grid" aria-label="Workers">
          <thead>
            <tr>
              <th>Worker</th>
              <th>Host / pid</th>
              <th class="num">Running / concurrency</th>
              <th>Queues</th>
              <th>Open circuits</th>
              <th>Started</th>
              <th>Last seen</th>
            </tr>
          </thead>
          <tbody>
            {(status?.workers ?? []).map((w) => (
              <tr key={w.id}>
                <td class="mono">{w.id}</td>
                <td>
                  {w.host} / {w.pid}
                </td>
                <td class="num">
                  {w.running} / {w.concurrency}
                </td>
                <td>{w.queues?.join(', ') ?? 'all'}</td>
                <td>
                  {w.circuits.length === 0
                    ? '—'
                    : w.circuits.map((c) => `${c.type} (${c.state})`).join(', ')}
                </td>
                <td title={exact(w.startedAt)}>{ago(w.startedAt)}</td>
                <td title={exact(w.lastSeenAt)}>{ago(w.lastSeenAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
