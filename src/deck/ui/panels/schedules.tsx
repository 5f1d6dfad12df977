/**
 * Recurring jobs: every schedule with its cron expression (or interval) and time zone, its next
 * fire time, its last run with where that run's job is now, and whether it is paused; operators
 * pause and resume one (audited, in every process).
 */
import { useState } from 'preact/hooks';
import type { ScheduleInfo } from '../../../schedule/info.js';
import { toast, toastError } from '../components/toasts.js';
import { get, post } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { ago, duration, exact } from '../lib/format.js';
import { href } from '../lib/route.js';

/** The schedules panel. */
export function SchedulesPanel({ operate }: { operate: boolean }) {
  const feed = useFeed();
  // Re-read with the state: next and last runs move with time, not only with actions.
  const at = feed.status ? Date.parse(String(feed.status.at)) : 0;
  const schedules = useData(
    (live) => get<ScheduleInfo[]>('schedules', undefined, live),
    'schedules',
    at,
  );
  const [busy, setBusy] = useState<string | null>(null);
  const act = async (name: string, verb: 'pause' | 'resume') => {
    setBusy(name);
    try {
      await post(`schedules/${encodeURIComponent(name)}/${verb}`);
      toast(`${name}: ${verb === 'pause' ? 'paused' : 'resumed'}`);
      schedules.reload();
    } catch (e) {
      toastError(e);
    } finally {
      setBusy(null);
    }
  };
  return (
    <section aria-labelledby="schedules-title">
      <h1 id="schedules-title">Schedules</h1>
      {schedules.error && <p class="error">{schedules.error.message}</p>}
      {schedules.data?.length === 0 && (
        <p class="card">
          No schedules. Declare them in <span class="mono">new ChokaQ({'{ schedules }'})</span> or
          add them with <span class="mono">chokaq.schedules.add()</span>.
        </p>
      )}
      <table class="grid" aria-label="Schedules">
        <thead>
          <tr>
            <th>Schedule</th>
            <th>Job</th>
            <th>When</th>
            <th>Next run</th>
            <th>Last run</th>
            <th>State</th>
            {operate && <th>Controls</th>}
          </tr>
        </thead>
        <tbody>
          {(schedules.data ?? []).map((s) => (
            <tr key={s.name} data-schedule={s.name}>
              <td class="mono">{s.name}</td>
              <td>
                {s.type} <span class="muted">on {s.queue}</span>
              </td>
              <td>
                {s.cron === null ? (
                  `every ${duration(s.everyMs ?? 0)}`
                ) : (
                  <>
                    <span class="mono" data-cron>
                      {s.cron}
                    </span>{' '}
                    <span class="muted">{s.timeZone}</span>
                  </>
                )}
              </td>
              <td data-next-run title={exact(s.nextRuns[0])}>
                {s.nextRuns[0] === undefined ? '—' : ago(s.nextRuns[0])}
              </td>
              <td>
                <LastRun schedule={s} />
              </td>
              <td>
                <span class={`pill ${s.paused ? 'warn' : 'ok'}`}>
                  {s.paused ? 'paused' : 'active'}
                </span>
              </td>
              {operate && (
                <td class="actions">
                  <button
                    type="button"
                    class="small"
                    disabled={busy === s.name}
                    onClick={() => void act(s.name, s.paused ? 'resume' : 'pause')}
                  >
                    {s.paused ? 'Resume' : 'Pause'}
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function LastRun({ schedule }: { schedule: ScheduleInfo }) {
  const run = schedule.lastRun;
  if (run === null) return <span class="muted">never</span>;
  return (
    <span title={`tick ${exact(run.tickAt)}, fired ${exact(run.firedAt)}`}>
      {ago(run.firedAt)} · {run.outcome}
      {run.manual && ' (triggered)'}
      {run.jobId !== null && (
        <>
          {' '}
          · <a href={href('job', run.jobId)}>{run.jobState ?? 'job'}</a>
        </>
      )}
      {run.error !== null && <span class="muted"> · {run.error}</span>}
    </span>
  );
}
