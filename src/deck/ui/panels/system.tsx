/**
 * System: the health of the whole system (the database, every worker's heartbeat and own check,
 * every queue's lag against its configured thresholds, due work no live worker runs), circuits
 * and the worker processes alive.
 */
import type { SystemHealth } from '../../../observability/health/system.js';
import type { WorkerPresence } from '../../../storage/model.js';
import { useState } from 'preact/hooks';
import { useFeed } from '../lib/feed.js';
import { ago, count, duration, exact } from '../lib/format.js';
import { href } from '../lib/route.js';
import { strandedWhy, useSystem } from '../lib/system.js';
import { ConcurrencyDialog, PurgeNowCard, RetryCard } from './live-controls.js';

/** The system panel. */
export function SystemPanel({ operate }: { operate: boolean }) {
  const feed = useFeed();
  const system = useSystem();
  const status = feed.status;
  const health = system.data;
  const byWorker = new Map((health?.workers ?? []).map((w) => [w.id, w]));
  const [tuning, setTuning] = useState<WorkerPresence | null>(null);
  // The types some live worker runs (a pipe worker's are unknown: it runs every type), but
  // ChokaQ's own (chokaq.bulk.v1), whose retries the server does not let change.
  const types = [...new Set((status?.workers ?? []).flatMap((w) => w.types ?? []))]
    .filter((t) => !t.startsWith('chokaq.'))
    .sort();
  return (
    <section aria-labelledby="system-title">
      <h1 id="system-title">System</h1>
      {system.error && <p class="error">{system.error.message}</p>}
      {health && <HealthCard health={health} />}
      <CircuitsCard workers={status?.workers ?? []} />
      <div class="card">
        <h2>Workers alive</h2>
        <table class="grid" aria-label="Workers">
          <thead>
            <tr>
              <th>Worker</th>
              <th>Health</th>
              <th>Host / pid</th>
              <th class="num">Running / concurrency</th>
              <th>Queues</th>
              <th>Open circuits</th>
              <th>Started</th>
              <th>Last seen</th>
              {operate && <th>Controls</th>}
            </tr>
          </thead>
          <tbody>
            {(status?.workers ?? []).map((w) => (
              <tr key={w.id} data-worker={w.id}>
                <td class="mono">{w.id}</td>
                <td>
                  <span class={`pill ${byWorker.get(w.id)?.status ?? ''}`}>
                    {byWorker.get(w.id)?.status ?? '…'}
                  </span>{' '}
                  <span class="muted">{byWorker.get(w.id)?.message}</span>
                </td>
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
                {operate && (
                  <td>
                    <button type="button" class="small ghost" onClick={() => setTuning(w)}>
                      Concurrency…
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {operate && types.length > 0 && <RetryCard types={types} />}
      {operate && <PurgeNowCard />}
      {tuning && <ConcurrencyDialog worker={tuning} onClose={() => setTuning(null)} />}
    </section>
  );
}

/** The system's health: overall, then each part against its thresholds. */
function HealthCard({ health }: { health: SystemHealth }) {
  const { thresholds } = health;
  const queues = health.queues.filter((q) => q.due > 0 || q.status !== 'ok');
  return (
    <div class="card" data-system-health={health.status}>
      <h2>
        Health of the system <span class={`pill ${health.status}`}>{health.status}</span>
      </h2>
      <p class="muted">
        Every worker and queue, whichever process serves The Deck. A queue's lag is judged by the
        thresholds its workers run with (their <code>health</code> option and the queue's own; here{' '}
        {duration(thresholds.lag.degradedMs)} degraded, {duration(thresholds.lag.unhealthyMs)}{' '}
        unhealthy when no worker said); a worker is unhealthy when not heard from for{' '}
        {duration(thresholds.workerSilentMs)} or when its own check says so (such as an event-loop
        stall).
      </p>
      <table class="grid" aria-label="Health checks">
        <tbody>
          <tr data-check="database">
            <td>database</td>
            <td>
              <span class={`pill ${health.db.status}`}>{health.db.status}</span>
            </td>
            <td>{health.db.message}</td>
          </tr>
          {health.workers.length === 0 && (
            <tr data-check="workers">
              <td>workers</td>
              <td>
                <span class="pill unhealthy">none</span>
              </td>
              <td>no worker process is alive: nothing runs</td>
            </tr>
          )}
          {health.workers.map((w) => (
            <tr key={w.id} data-check={`worker ${w.id}`}>
              <td class="mono">worker {w.id}</td>
              <td>
                <span class={`pill ${w.status}`}>{w.status}</span>
              </td>
              <td>
                {w.message} · last heard{' '}
                <span title={exact(w.lastSeenAt)}>{ago(w.lastSeenAt)}</span>
              </td>
            </tr>
          ))}
          {queues.map((q) => (
            <tr key={q.queue} data-check={`queue ${q.queue}`}>
              <td>queue {q.queue}</td>
              <td>
                <span class={`pill ${q.status}`}>{q.status}</span>
              </td>
              <td>
                {q.paused || !q.active
                  ? `${q.paused ? 'paused' : 'inactive'}: ${count(q.due)} due wait on purpose`
                  : `${count(q.due)} due, the oldest for ${duration(q.lagMs)} (degraded past ${duration(q.degradedMs)}, unhealthy past ${duration(q.unhealthyMs)})`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {health.stranded.length > 0 && (
        <>
          <h3>Due jobs no live worker runs</h3>
          <table class="grid" aria-label="Stranded jobs">
            <thead>
              <tr>
                <th>Queue</th>
                <th>Type</th>
                <th class="num">Due</th>
                <th>Waiting</th>
                <th>Why</th>
              </tr>
            </thead>
            <tbody>
              {health.stranded.map((w) => (
                <tr key={`${w.queue} ${w.type}`} data-stranded={`${w.queue} ${w.type}`}>
                  <td>
                    <a href={href('jobs', 'active', { q: { queue: w.queue, type: w.type } })}>
                      {w.queue}
                    </a>
                  </td>
                  <td class="mono">{w.type}</td>
                  <td class="num">
                    {health.strandedCapped ? '≥ ' : ''}
                    {count(w.due)}
                  </td>
                  <td>{duration(w.waitingMs)}</td>
                  <td>{strandedWhy(w.reason)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}

/**
 * Every circuit breaker of every worker (a circuit is per process), with its state and, while
 * open, the countdown to the probe it lets through ("ready" once due). The feed re-renders the
 * panel every interval, so the countdown runs.
 */
function CircuitsCard({ workers }: { workers: readonly WorkerPresence[] }) {
  const rows = workers.flatMap((w) => w.breakers.map((b) => ({ worker: w.id, ...b })));
  rows.sort((a, b) =>
    a.type === b.type ? (a.worker < b.worker ? -1 : 1) : a.type < b.type ? -1 : 1,
  );
  return (
    <div class="card">
      <h2>Circuits (every worker)</h2>
      {rows.length === 0 && (
        <p class="muted">No circuit yet: no job type has failed or run with a breaker.</p>
      )}
      {rows.length > 0 && rows.every((r) => r.state === 'closed') && (
        <p class="muted">Every circuit is closed.</p>
      )}
      {rows.length > 0 && (
        <table class="grid" aria-label="Circuits">
          <thead>
            <tr>
              <th>Job type</th>
              <th>State</th>
              <th>Reset</th>
              <th>Worker</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.type} ${r.worker}`} data-circuit={r.type} data-circuit-state={r.state}>
                <td class="mono">{r.type}</td>
                <td>
                  <span
                    class={`pill ${r.state === 'open' ? 'bad' : r.state === 'half-open' ? 'warn' : 'ok'}`}
                  >
                    {r.state}
                  </span>
                </td>
                <td data-circuit-reset>{resetText(r.state, r.resetAt)}</td>
                <td class="mono">{r.worker}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** `probe in 23 s` while open, `ready` once the probe is due, `—` otherwise. */
function resetText(state: string, resetAt: Date | string | null): string {
  if (state !== 'open' || resetAt === null) return '—';
  const left = new Date(resetAt).getTime() - Date.now();
  return left > 0 ? `probe in ${duration(left)}` : 'ready';
}
