/** Queues: what each holds and does, with pause, resume, hide, caps and zombie timeout. */
import { useState } from 'preact/hooks';
import type { QueueStatus } from '../../../operator/status.js';
import type { QueueInfo } from '../../../storage/model.js';
import { Dialog } from '../components/dialog.js';
import { toast, toastError } from '../components/toasts.js';
import { get, post } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { count, duration, percent } from '../lib/format.js';
import { href } from '../lib/route.js';

type Queue = QueueInfo & { status: QueueStatus | null };

/** The queues panel. */
export function QueuesPanel({ operate }: { operate: boolean }) {
  const feed = useFeed();
  const queues = useData(
    (live) => get<Queue[]>('queues', undefined, live),
    'queues',
    feed.status ? Date.parse(String(feed.status.at)) : 0,
  );
  const [editing, setEditing] = useState<Queue | null>(null);
  const act = async (queue: string, verb: string, body: object = {}) => {
    try {
      await post(`queues/${encodeURIComponent(queue)}/${verb}`, body);
      toast(`${queue}: ${verb} done`);
      queues.reload();
    } catch (e) {
      toastError(e);
    }
  };
  return (
    <section aria-labelledby="queues-title">
      <h1 id="queues-title">Queues</h1>
      {queues.error && <p class="error">{queues.error.message}</p>}
      <table class="grid" aria-label="Queues">
        <thead>
          <tr>
            <th>Queue</th>
            <th>State</th>
            <th class="num">Due</th>
            <th class="num">Scheduled</th>
            <th class="num">Running</th>
            <th class="num">Lag</th>
            <th class="num">Jobs/s 1m · 5m</th>
            <th class="num">Failures 1m</th>
            <th class="num">DLQ</th>
            <th class="num">Max workers</th>
            <th class="num">Zombie timeout</th>
            {operate && <th>Controls</th>}
          </tr>
        </thead>
        <tbody>
          {(queues.data ?? []).map((q) => {
            const s = q.status;
            return (
              <tr key={q.name} data-queue={q.name}>
                <td>
                  <a href={href('jobs', 'active', { q: { queue: q.name } })}>{q.name}</a>
                </td>
                <td>
                  <span class={`pill ${q.paused ? 'warn' : !q.active ? 'muted' : 'ok'}`}>
                    {q.paused ? 'paused' : q.active ? 'active' : 'hidden'}
                  </span>
                </td>
                <td class="num">{count(s?.due ?? 0)}</td>
                <td class="num">{count(s?.scheduled ?? 0)}</td>
                <td class="num">{count(s?.running ?? 0)}</td>
                <td class="num">{duration(s?.lagMs ?? 0)}</td>
                <td class="num">
                  {(s?.lastMinute.jobsPerSecond ?? 0).toFixed(1)} ·{' '}
                  {(s?.lastFiveMinutes.jobsPerSecond ?? 0).toFixed(1)}
                </td>
                <td class="num">{percent(s?.lastMinute.failureRate ?? null)}</td>
                <td class="num">
                  <a href={href('jobs', 'dlq', { q: { queue: q.name } })}>{count(s?.dead ?? 0)}</a>
                </td>
                <td class="num">{q.maxWorkers ?? '∞'}</td>
                <td class="num">
                  {q.zombieTimeoutSeconds === null ? 'default' : `${q.zombieTimeoutSeconds} s`}
                </td>
                {operate && (
                  <td class="actions">
                    {q.paused ? (
                      <button
                        type="button"
                        class="small"
                        onClick={() => void act(q.name, 'resume')}
                      >
                        Resume
                      </button>
                    ) : (
                      <button type="button" class="small" onClick={() => void act(q.name, 'pause')}>
                        Pause
                      </button>
                    )}
                    <button
                      type="button"
                      class="small ghost"
                      onClick={() => void act(q.name, 'update', { active: !q.active })}
                    >
                      {q.active ? 'Hide' : 'Show'}
                    </button>
                    <button type="button" class="small ghost" onClick={() => setEditing(q)}>
                      Limits…
                    </button>
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {editing && (
        <LimitsDialog
          queue={editing}
          onClose={() => setEditing(null)}
          onSave={async (body) => {
            await act(editing.name, 'update', body);
          }}
        />
      )}
    </section>
  );
}

function LimitsDialog(props: {
  queue: Queue;
  onClose: () => void;
  onSave: (body: object) => Promise<void>;
}) {
  const [cap, setCap] = useState(
    props.queue.maxWorkers === null ? '' : String(props.queue.maxWorkers),
  );
  const [zombie, setZombie] = useState(
    props.queue.zombieTimeoutSeconds === null ? '' : `${props.queue.zombieTimeoutSeconds}s`,
  );
  const save = async () => {
    const capValue = cap.trim() === '' ? null : Number(cap);
    if (capValue !== props.queue.maxWorkers) await props.onSave({ maxWorkers: capValue });
    const zombieValue = zombie.trim() === '' ? null : zombie.trim();
    const before =
      props.queue.zombieTimeoutSeconds === null ? null : `${props.queue.zombieTimeoutSeconds}s`;
    if (zombieValue !== before) await props.onSave({ zombieTimeout: zombieValue });
    props.onClose();
  };
  return (
    <Dialog title={`Limits of ${props.queue.name}`} onClose={props.onClose}>
      <label>
        Max workers across all processes (empty: no cap)
        <input
          inputMode="numeric"
          value={cap}
          onInput={(e) => setCap((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Zombie timeout (such as 90s or 20m; empty: the default)
        <input value={zombie} onInput={(e) => setZombie((e.target as HTMLInputElement).value)} />
      </label>
      <div class="buttons">
        <button type="button" onClick={() => void save()}>
          Save
        </button>
      </div>
    </Dialog>
  );
}
