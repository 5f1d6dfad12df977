/**
 * The overview's charts, of every queue or of one (the queue picker): finished jobs per interval
 * over 15 minutes, and the lag of each queue in a unit people read (s, min), both from zero and
 * resistant to one spike.
 */
import { useState } from 'preact/hooks';
import type { ThroughputSeries } from '../../../operator/status.js';
import type { LagSample } from '../../feed.js';
import { Chart } from '../components/chart.js';
import { get } from '../lib/api.js';
import { compactCount, durationUnit } from '../lib/chart-scale.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { stamp } from '../lib/format.js';

interface Series {
  throughput: ThroughputSeries;
  lag: Record<string, LagSample[]>;
}

/** The charts; `queues` are the names the picker offers. */
export function OverviewCharts({ queues }: { queues: string[] }) {
  const feed = useFeed();
  const [queue, setQueue] = useState('');
  const series = useData(
    (live) => get<Series>('series', { minutes: 15, ...(queue ? { queue } : {}) }, live),
    `series|${queue}`,
    feed.status ? Date.parse(String(feed.status.at)) : 0,
  );
  const points = series.data?.throughput.points ?? [];
  const lag = lagTimeline(series.data?.lag ?? {});
  const maxLag = Math.max(0, ...lag.series.flatMap((s) => s.values.map((v) => v ?? 0)));
  const unit = durationUnit(maxLag);
  // Lag is sampled by this Deck's live feed, not stored: while its samples cover less than the
  // throughput chart's 15 minutes, the title says since when, so the two axes are not compared.
  const [first, last] = [lag.times[0], lag.times[lag.times.length - 1]];
  const since =
    first !== undefined && last !== undefined && last - first < 14 * 60_000
      ? `, sampled by this Deck since ${stamp(first).slice(11)}`
      : '';
  const inUnit = (ms: number) =>
    `${+(ms / unit.ms).toFixed(ms / unit.ms < 10 ? 1 : 0)} ${unit.name}`;
  return (
    <>
      <div class="chart-controls">
        <label class="inline">
          Charts of{' '}
          <select
            aria-label="Charts of"
            value={queue}
            onChange={(e) => setQueue((e.target as HTMLSelectElement).value)}
          >
            <option value="">every queue</option>
            {queues.map((q) => (
              <option key={q} value={q}>
                {q}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div class="charts">
        <Chart
          title={`Finished jobs per ${series.data?.throughput.stepSeconds ?? 1} s (15 min)`}
          times={points.map((p) => Date.parse(String(p.at)))}
          series={[
            { label: 'succeeded', values: points.map((p) => p.succeeded), color: '--ok' },
            { label: 'failed', values: points.map((p) => p.failed), color: '--bad' },
          ]}
          format={compactCount}
        />
        <Chart
          title={`Lag of the oldest due job (${unit.name})${since}`}
          times={lag.times}
          series={lag.series}
          format={inUnit}
        />
      </div>
    </>
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
