/** The overview: stats cards, throughput, failures and lag over time, top error groups. */
import type { QueueStatus, ThroughputSeries } from '../../../operator/status.js';
import type { LagSample } from '../../feed.js';
import { Chart } from '../components/chart.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { count, duration, percent } from '../lib/format.js';
import { href } from '../lib/route.js';
import { BulkProgress } from './bulk-progress.js';

interface Series {
  throughput: ThroughputSeries;
  lag: Record<string, LagSample[]>;
}

/** The overview panel. */
export function OverviewPanel() {
  const feed = useFeed();
  const status = feed.status;
  const series = useData(
    (live) => get<Series>('series', { minutes: 15 }, live),
    'series',
    feed.status ? Date.parse(String(feed.status.at)) : 0,
  );
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
  const openCircuits = status.circuits.length;
  const points = series.data?.throughput.points ?? [];
  const lagTimes = lagTimeline(series.data?.lag ?? {});
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
        <Card
          label="Worst lag"
          value={duration(worstLag)}
          tone={worstLag > 10_000 ? 'bad' : worstLag > 5000 ? 'warn' : undefined}
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
      <div class="charts">
        <Chart
          title={`Finished jobs per ${series.data?.throughput.stepSeconds ?? 1} s (15 min)`}
          times={points.map((p) => Date.parse(String(p.at)))}
          series={[
            { label: 'succeeded', values: points.map((p) => p.succeeded), color: '--ok' },
            { label: 'failed', values: points.map((p) => p.failed), color: '--bad' },
          ]}
        />
        <Chart
          title="Lag of the oldest due job (ms)"
          times={lagTimes.times}
          series={lagTimes.series}
        />
      </div>
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
}) {
  const body = (
    <>
      <span class="card-label">{props.label}</span>
      <span class="card-value">{props.value}</span>
    </>
  );
  return props.href ? (
    <a class={`stat ${props.tone ?? ''}`} href={props.href}>
      {body}
    </a>
  ) : (
    <div class={`stat ${props.tone ?? ''}`}>{body}</div>
  );
}

const LAG_COLORS = ['--accent', '--warn', '--ok', '--bad', '--muted'];

/** Lag samples of up to five queues on one time axis. */
function lagTimeline(lag: Record<string, LagSample[]>) {
  const queues = Object.keys(lag).slice(0, 5);
  const times = [...new Set(queues.flatMap((q) => lag[q]!.map((s) => s.at)))].sort((a, b) => a - b);
  const series = queues.map((q, k) => {
    const byTime = new Map(lag[q]!.map((s) => [s.at, s.lagMs]));
    return { label: q, values: times.map((t) => byTime.get(t) ?? null), color: LAG_COLORS[k]! };
  });
  return { times, series };
}
