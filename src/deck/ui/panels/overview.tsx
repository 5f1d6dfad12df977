/** The overview: stats cards, throughput, failures and lag over time, top error groups. */
import type { QueueStatus } from '../../../operator/status.js';
import { useFeed } from '../lib/feed.js';
import { count, duration, percent } from '../lib/format.js';
import { href } from '../lib/route.js';
import { toneOf, useSystem } from '../lib/system.js';
import { BulkProgress } from './bulk-progress.js';
import { OverviewCharts } from './overview-charts.js';

/** The overview panel. */
export function OverviewPanel() {
  const feed = useFeed();
  const status = feed.status;
  const system = useSystem().data;
  if (status === null) return <p>Waiting for the live feed…</p>;
  const sum = (pick: (q: QueueStatus) => number) => status.queues.reduce((n, q) => n + pick(q), 0);
  const minute = status.queues.reduce(
    (r, q) => ({
      succeeded: r.succeeded + q.lastMinute.succeeded,
      failed: r.failed + q.lastMinute.failed,
    }),
    { succeeded: 0, failed: 0 },
  );
  const finished = minute.succeeded + minute.failed;
  const worstLag = Math.max(0, ...status.queues.map((q) => q.lagMs));
  // Coloured by the configured lag thresholds (the health option), as the health checks are.
  const lagStatuses = system?.queues.map((q) => q.status) ?? [];
  const lagTone = toneOf(
    lagStatuses.includes('unhealthy')
      ? 'unhealthy'
      : lagStatuses.includes('degraded')
        ? 'degraded'
        : 'ok',
  );
  const stranded = system?.stranded ?? [];
  const strandedDue = stranded.reduce((n, w) => n + w.due, 0);
  const openCircuits = status.circuits.length;
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <div class="cards">
        <Card label="Due now" value={count(sum((q) => q.due))} />
        <Card label="Scheduled" value={count(sum((q) => q.scheduled))} />
        <Card label="Running" value={count(sum((q) => q.running))} />
        <Card
          label="Dead (DLQ)"
          value={count(sum((q) => q.dead))}
          href={href('inbox')}
          tone={sum((q) => q.dead) > 0 ? 'bad' : undefined}
        />
        <Card label="Jobs/s (1 min)" value={(finished / 60).toFixed(1)} />
        <Card
          label="Failure rate (1 min)"
          value={percent(finished === 0 ? null : minute.failed / finished)}
          tone={minute.failed > 0 ? 'warn' : undefined}
        />
        <Card label="Worst lag" value={duration(worstLag)} tone={lagTone} />
        {stranded.length > 0 && (
          <Card
            label="Due, no worker runs them"
            value={count(strandedDue)}
            href={href('system')}
            tone="bad"
            title={stranded.map((w) => `${count(w.due)} ${w.type} in ${w.queue}`).join('; ')}
          />
        )}
        <Card
          label="Succeeded (all time)"
          value={count(sum((q) => q.succeededTotal))}
          href={href('jobs', 'archive')}
        />
        <Card
          label="Failed (all time)"
          value={count(sum((q) => q.failedTotal))}
          href={href('inbox')}
        />
        <Card label="Workers alive" value={count(status.workers.length)} href={href('system')} />
        <Card
          label="Open circuits"
          value={count(openCircuits)}
          href={href('system')}
          tone={openCircuits > 0 ? 'warn' : undefined}
        />
      </div>
      {status.bulk.length > 0 && (
        <div class="card">
          <h2>Bulk actions in progress</h2>
          {status.bulk.map((b) => (
            <BulkProgress key={b.id} action={b} />
          ))}
        </div>
      )}
      <OverviewCharts queues={status.queues.map((q) => q.queue)} />
      <div class="card">
        <h2>Top error groups</h2>
        {status.errorGroups.length === 0 ? (
          <p class="muted">The DLQ is empty.</p>
        ) : (
          <table class="grid">
            <thead>
              <tr>
                <th>Error</th>
                <th class="num">Jobs</th>
                <th>Queues</th>
              </tr>
            </thead>
            <tbody>
              {status.errorGroups.map((g) => (
                <tr key={g.fingerprint}>
                  <td>
                    <a href={href('jobs', 'dlq', { q: { errorGroup: g.fingerprint } })}>
                      <b>{g.errorClass}</b> {g.message}
                    </a>
                  </td>
                  <td class="num">{count(g.count)}</td>
                  <td>{g.queues.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </section>
  );
}

function Card(props: {
  label: string;
  value: string;
  href?: string;
  tone?: 'warn' | 'bad' | undefined;
  /** More than the value says, on hover. */
  title?: string;
}) {
  const body = (
    <>
      <span class="card-label">{props.label}</span>
      <span class="card-value">{props.value}</span>
    </>
  );
  return props.href ? (
    <a class={`stat ${props.tone ?? ''}`} href={props.href} title={props.title}>
      {body}
    </a>
  ) : (
    <div class={`stat ${props.tone ?? ''}`}>{body}</div>
  );
}
