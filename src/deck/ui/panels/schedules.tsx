/**
 * Recurring jobs: every schedule with its cron expression (or interval) and time zone, its next
 * fire time, its last run with where that run's job is now, and whether it is paused; operators
 * pause and resume one (audited, in every process), or trigger it now: its job runs once, at
 * once, whether it is paused or not, and its own ticks stay where they were (audited). Each is
 * said before it is sent and takes an optional reason, as queue controls do.
 */
import { useState } from 'preact/hooks';
import type { ScheduleInfo } from '../../../schedule/info.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { get, post } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { ago, duration, exact } from '../lib/format.js';
import { href } from '../lib/route.js';

/** A schedule control. */
type Verb = 'pause' | 'resume' | 'trigger';

/** What each control's toast says. */
const DONE: Record<Verb, string> = {
  pause: 'paused',
  resume: 'resumed',
  trigger: 'triggered, job',
};

/** Each control's confirmation: its title and what it does. */
const CONFIRM: Record<Verb, (name: string) => { title: string; effect: string }> = {
  pause: (name) => ({
    title: `Pause ${name}`,
    effect: `No process fires ${name} until it is resumed.`,
  }),
  resume: (name) => ({ title: `Resume ${name}`, effect: `${name} fires again at its next time.` }),
  trigger: (name) => ({
    title: `Trigger ${name} now`,
    effect: `The job of ${name} is enqueued once, now, paused or not; the schedule's own runs stay as they are.`,
  }),
};

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
  const [confirming, setConfirming] = useState<{ name: string; verb: Verb } | null>(null);
  const send = async (name: string, verb: Verb, reason: string | undefined) => {
    const answer = await post<{ jobId?: string }>(
      `schedules/${encodeURIComponent(name)}/${verb}`,
      reason === undefined ? {} : { reason },
    );
    return `${name}: ${DONE[verb]}${answer.jobId ? ` ${answer.jobId}` : ''}`;
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
              <td class="nowrap" data-next-run title={exact(s.nextRuns[0])}>
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
                    onClick={() =>
                      setConfirming({ name: s.name, verb: s.paused ? 'resume' : 'pause' })
                    }
                  >
                    {s.paused ? 'Resume…' : 'Pause…'}
                  </button>{' '}
                  <button
                    type="button"
                    class="small ghost"
                    title="Run the job once now; the schedule's own runs stay as they are"
                    onClick={() => setConfirming({ name: s.name, verb: 'trigger' })}
                  >
                    Trigger now…
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {confirming && (
        <ConfirmDialog
          title={CONFIRM[confirming.verb](confirming.name).title}
          send={(reason) => send(confirming.name, confirming.verb, reason)}
          onClose={() => setConfirming(null)}
          onDone={() => {
            setConfirming(null);
            schedules.reload();
          }}
        >
          <p>{CONFIRM[confirming.verb](confirming.name).effect}</p>
        </ConfirmDialog>
      )}
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
