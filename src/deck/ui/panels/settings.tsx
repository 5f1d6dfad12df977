/**
 * The running configuration, read-only: the engine's resolved options (worker, timing, retries,
 * circuits, telemetry, health, retention), every queue with what it runs with, and The Deck's
 * own options. The server leaves out anything secret.
 */
import { Fragment, type ComponentChildren } from 'preact';
import type { SettingsView } from '../../api/settings.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { count, duration } from '../lib/format.js';

/** A duration in ms, or "kept for good" for a `null` age. */
const age = (ms: number | null) => (ms === null ? 'kept for good' : duration(ms));
const yes = (on: boolean) => (on ? 'on' : 'off');

/** The settings panel. */
export function SettingsPanel() {
  const feed = useFeed();
  // Queue controls change live; the rest only with a restart.
  const view = useData(
    (live) => get<SettingsView>('settings', undefined, live),
    'settings',
    feed.changes,
  );
  if (view.error) return <p class="error">{view.error.message}</p>;
  if (!view.data) return <p>Loading…</p>;
  const { engine: e, queues, deck } = view.data;
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <p class="muted">
        What this process runs with (ChokaQ {view.data.version}), after defaults; change it in the
        options of <span class="mono">new ChokaQ()</span> and <span class="mono">createDeck()</span>
        , or the queue controls on the Queues panel.
      </p>
      <div class="settings">
        <Facts
          title="Engine"
          rows={[
            ['Worker id', <span class="mono">{e.workerId}</span>],
            ['Storage', e.storage],
            ['Runs workers', e.worker ? 'yes' : 'no (enqueue only)'],
            ['Worker queues', e.workerQueues?.join(', ') ?? 'all'],
            ['Concurrency', count(e.concurrency)],
            ['Prefetch', e.prefetch === 'auto' ? 'auto (up to 500)' : count(e.prefetch)],
            ['Poll interval', duration(e.pollIntervalMs)],
            ['Largest payload', `${count(e.maxPayloadBytes)} bytes`],
            ['Job types', e.jobTypes.map((t) => `${t.type} (${t.queue})`).join(', ') || 'none'],
            ['Pipe handler', e.pipe ? 'yes' : 'no'],
            ['Middleware', count(e.middleware)],
            ['Declared schedules', count(e.declaredSchedules)],
          ]}
        />
        <Facts
          title="Runs and leases"
          rows={[
            ['Handler timeout', duration(e.timing.timeoutMs)],
            ['Heartbeat interval', duration(e.timing.heartbeatIntervalMs)],
            ['Zombie timeout', duration(e.timing.zombieTimeoutMs)],
            ['Claimed, not started, for', duration(e.timing.fetchedTimeoutMs)],
            ['Recovery interval', duration(e.timing.rescueIntervalMs)],
            ['Heartbeat failures tolerated', count(e.timing.heartbeatFailureThreshold)],
            ['Cancel on failing heartbeats', yes(e.timing.cancelOnHeartbeatFailure)],
            ['Shutdown grace', duration(e.timing.shutdownGraceMs)],
            ['Abort grace', duration(e.timing.abortGraceMs)],
          ]}
        />
        <Facts
          title="Retries and circuits"
          rows={[
            ['Attempts', count(e.retry.maxAttempts)],
            [
              'Backoff',
              `${duration(e.retry.baseDelayMs)} × ${e.retry.multiplier}ⁿ, at most ${duration(e.retry.maxDelayMs)}, ± ${duration(e.retry.jitterMs)}`,
            ],
            ['Retry for at most', age(e.retry.maxAgeMs)],
            [
              'Circuit breaker',
              e.circuitBreaker === false
                ? 'off'
                : `${e.circuitBreaker.failureThreshold} failures within ${duration(e.circuitBreaker.failureWindowMs)} open it for ${duration(e.circuitBreaker.breakMs)}`,
            ],
            ['Delay while open', duration(e.circuitBreakerDelayMs)],
          ]}
        />
        <Facts
          title="Telemetry and health"
          rows={[
            ['Metrics', yes(e.telemetry.metrics)],
            ['Meter provider', e.telemetry.meterProvider ? 'given' : 'global'],
            ['Tracer provider', e.telemetry.tracerProvider ? 'given' : 'global'],
            [
              'Cross-process events',
              e.clusterEventsIntervalMs === null
                ? 'off'
                : `every ${duration(e.clusterEventsIntervalMs)}`,
            ],
            ['Database check timeout', duration(e.health.dbTimeoutMs)],
            ['Worker stalled after', duration(e.health.stallTimeoutMs)],
            [
              'Lag degraded / unhealthy',
              `${duration(e.health.degradedMs)} / ${duration(e.health.unhealthyMs)}`,
            ],
          ]}
        />
        <Facts
          title="Retention"
          rows={[
            [
              'Background purge',
              e.retention.enabled
                ? `every ${duration(e.retention.intervalMs)}, ${count(e.retention.batchSize)} rows at a time`
                : 'off',
            ],
            ...Object.entries(e.retention.ages).map(([table, ms]): [string, ComponentChildren] => [
              table,
              age(ms),
            ]),
          ]}
        />
        <Facts
          title="The Deck"
          rows={[
            ['Mounted at', deck.basePath || '/ (or the framework’s prefix)'],
            ['Environment', deck.environment ?? '—'],
            ['Live feed reads every', duration(deck.feedIntervalMs)],
            ['Sign-in lasts', duration(deck.sessionTtlMs)],
            ['Anonymous access', deck.anonymous],
            ['authorize(req)', deck.authorize ? 'given' : 'none'],
            ['Tokens', `${deck.tokens.read} read, ${deck.tokens.operate} operate`],
          ]}
        />
      </div>
      <h2>Queues</h2>
      <table class="grid" aria-label="Queue settings">
        <thead>
          <tr>
            <th>Queue</th>
            <th>State</th>
            <th class="num">Max workers</th>
            <th class="num">Zombie timeout</th>
            <th class="num">Handler timeout</th>
            <th class="num">Lag degraded / unhealthy</th>
            <th class="num">Keep archive / DLQ</th>
          </tr>
        </thead>
        <tbody>
          {queues.map((q) => (
            <tr key={q.name} data-queue-settings={q.name}>
              <td>{q.name}</td>
              <td>{q.paused ? 'paused' : q.active ? 'active' : 'inactive'}</td>
              <td class="num">{q.maxWorkers ?? '∞'}</td>
              <td class="num">
                {duration(
                  q.zombieTimeoutSeconds === null
                    ? e.timing.zombieTimeoutMs
                    : q.zombieTimeoutSeconds * 1000,
                )}
              </td>
              <td class="num">{duration(q.timeoutMs)}</td>
              <td class="num">
                {duration(q.lagDegradedMs)} / {duration(q.lagUnhealthyMs)}
              </td>
              <td class="num">
                {age(q.retention.archiveMs)} / {age(q.retention.dlqMs)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Facts(props: { title: string; rows: [string, ComponentChildren][] }) {
  return (
    <div class="card">
      <h2>{props.title}</h2>
      <dl class="meta" aria-label={props.title}>
        {props.rows.map(([label, value]) => (
          <Fragment key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </Fragment>
        ))}
      </dl>
    </div>
  );
}
