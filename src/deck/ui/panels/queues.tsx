/**
 * Queues: what each holds and does, with pause, resume, deactivate, caps and zombie timeout —
 * each confirmed with an optional reason first. ChokaQ's own queues (`chokaq.*`) offer no pause
 * or deactivate.
 */
import { useState } from 'preact/hooks';
import type { QueueStatus } from '../../../operator/status.js';
import type { QueueInfo } from '../../../storage/model.js';
import { Dialog } from '../components/dialog.js';
import { get } from '../lib/api.js';
import { useData } from '../lib/data.js';
import { useFeed } from '../lib/feed.js';
import { count, duration, percent } from '../lib/format.js';
import { href } from '../lib/route.js';
import { strandedWhy, toneOf, useSystem } from '../lib/system.js';
import {
  isInternalQueue,
  QUEUE_CHANGES,
  QueueChangeDialog,
  type QueueChange,
} from './queue-change.js';

type Queue = QueueInfo & { status: QueueStatus | null };

/** The queues panel. */
export function QueuesPanel({ operate }: { operate: boolean }) {
  const feed = useFeed();
  const queues = useData(
    (live) => get<Queue[]>('queues', undefined, live),
    'queues',
    feed.status ? Date.parse(String(feed.status.at)) : 0,
  );
  const system = useSystem().data;
  const [editing, setEditing] = useState<Queue | null>(null);
  const [confirming, setConfirming] = useState<QueueChange | null>(null);
  return (
    <section aria-labelledby="queues-title">
      <h1 id="queues-title">Queues</h1>
      {queues.error && <p class="error">{queues.error.message}</p>}
      <table class="grid queues" aria-label="Queues">
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
            <th class="num" title="Zombie timeout">
              Zombie after
            </th>
            {operate && <th>Controls</th>}
          </tr>
        </thead>
        <tbody>
          {(queues.data ?? []).map((q) => {
            const s = q.status;
            const lag = system?.queues.find((l) => l.queue === q.name);
            const stranded = system?.stranded.filter((w) => w.queue === q.name) ?? [];
            return (
              <tr key={q.name} data-queue={q.name}>
                <td>
                  <a href={href('jobs', 'active', { q: { queue: q.name } })}>{q.name}</a>
                  {stranded.map((w) => (
                    <div key={w.type} class="stranded" data-stranded={w.type}>
                      {count(w.due)} due of <span class="mono">{w.type}</span>:{' '}
                      {strandedWhy(w.reason)}
                    </div>
                  ))}
                </td>
                <td>
                  <span class={`pill ${q.paused ? 'warn' : !q.active ? 'muted' : 'ok'}`}>
                    {q.paused ? 'paused' : q.active ? 'active' : 'inactive'}
                  </span>
                  {!q.keepSucceeded && (
                    <span class="pill muted" title="Succeeded jobs are counted, not archived">
                      no history
                    </span>
                  )}
                  {isInternalQueue(q.name) && (
                    <span class="muted internal" title="runs bulk actions and other engine work">
                      {' '}
                      ChokaQ's own
                    </span>
                  )}
                </td>
                <td class="num">{count(s?.due ?? 0)}</td>
                <td class="num">{count(s?.scheduled ?? 0)}</td>
                <td class="num">{count(s?.running ?? 0)}</td>
                <td
                  class={`num ${toneOf(lag?.status) ?? ''}`}
                  data-lag-status={lag?.status}
                  title={
                    lag
                      ? `degraded past ${duration(lag.degradedMs)}, unhealthy past ${duration(lag.unhealthyMs)}`
                      : undefined
                  }
                >
                  {duration(s?.lagMs ?? 0)}
                </td>
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
                        onClick={() => setConfirming(QUEUE_CHANGES.resume(q.name))}
                      >
                        Resume…
                      </button>
                    ) : (
                      !isInternalQueue(q.name) && (
                        <button
                          type="button"
                          class="small"
                          onClick={() => setConfirming(QUEUE_CHANGES.pause(q.name))}
                        >
                          Pause…
                        </button>
                      )
                    )}
                    {!q.active ? (
                      <button
                        type="button"
                        class="small ghost"
                        onClick={() => setConfirming(QUEUE_CHANGES.activate(q.name))}
                      >
                        Activate…
                      </button>
                    ) : (
                      !isInternalQueue(q.name) && (
                        <button
                          type="button"
                          class="small ghost"
                          aria-label="Deactivate (stop claims)…"
                          title="Stop claims of this queue until it is activated again"
                          onClick={() => setConfirming(QUEUE_CHANGES.deactivate(q.name))}
                        >
                          Deactivate…
                        </button>
                      )
                    )}
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
          onDone={() => {
            setEditing(null);
            queues.reload();
          }}
        />
      )}
      {confirming && (
        <QueueChangeDialog
          title={`${confirming.verb} ${confirming.queue}`}
          changes={[confirming]}
          onClose={() => setConfirming(null)}
          onDone={() => {
            setConfirming(null);
            queues.reload();
          }}
        />
      )}
    </section>
  );
}

/** The caps of a queue: typed first, then confirmed (before → after) with a reason. */
function LimitsDialog(props: { queue: Queue; onClose: () => void; onDone: () => void }) {
  const { queue } = props;
  const [cap, setCap] = useState(queue.maxWorkers === null ? '' : String(queue.maxWorkers));
  const zombieBefore =
    queue.zombieTimeoutSeconds === null ? null : `${queue.zombieTimeoutSeconds}s`;
  const [zombie, setZombie] = useState(zombieBefore ?? '');
  const [changes, setChanges] = useState<QueueChange[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const next = () => {
    const chosen: QueueChange[] = [];
    // A word is not a cap (it would travel as null: no cap at all).
    if (cap.trim() !== '' && !/^\d+$/.test(cap.trim())) {
      setProblem('Max workers must be a whole number from 1 to 1,000,000, or empty for no cap.');
      return;
    }
    const capValue = cap.trim() === '' ? null : Number(cap);
    if (capValue !== queue.maxWorkers) {
      chosen.push({
        queue: queue.name,
        verb: 'Set max workers',
        effect: `Max workers across all processes: ${queue.maxWorkers ?? 'no cap'} → ${capValue ?? 'no cap'}.`,
        path: 'update',
        body: { maxWorkers: capValue },
      });
    }
    const zombieValue = zombie.trim() === '' ? null : zombie.trim();
    if (zombieValue !== zombieBefore) {
      chosen.push({
        queue: queue.name,
        verb: 'Set zombie timeout',
        effect: `Zombie timeout: ${zombieBefore ?? 'the default'} → ${zombieValue ?? 'the default'}.`,
        path: 'update',
        body: { zombieTimeout: zombieValue },
      });
    }
    if (chosen.length === 0) setProblem('Nothing changed.');
    else setChanges(chosen);
  };
  if (changes !== null) {
    return (
      <QueueChangeDialog
        title={`Change the limits of ${queue.name}`}
        changes={changes}
        onClose={props.onClose}
        onDone={props.onDone}
      />
    );
  }
  return (
    <Dialog title={`Limits of ${queue.name}`} onClose={props.onClose}>
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
      {problem && <p class="error">{problem}</p>}
      <div class="buttons">
        <button type="button" onClick={next}>
          Review…
        </button>
      </div>
    </Dialog>
  );
}
