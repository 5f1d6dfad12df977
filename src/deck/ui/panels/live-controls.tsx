/**
 * The live controls of running processes: a worker's concurrency, a job type's retry settings
 * (`chokaq.workers`, reaching every process that runs it until it restarts), and the retention
 * purge now. Each says what it will do and takes an optional reason before it is sent.
 */
import { useRef, useState } from 'preact/hooks';
import type { RetentionEntry, RetentionPurge } from '../../../operator/retention-api.js';
import type { WorkerPresence } from '../../../storage/model.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Dialog } from '../components/dialog.js';
import { ApiError, get, post } from '../lib/api.js';
import { count, duration } from '../lib/format.js';

/** The concurrency of worker `worker`: typed, then confirmed. */
export function ConcurrencyDialog(props: { worker: WorkerPresence; onClose: () => void }) {
  const { worker } = props;
  const [text, setText] = useState(String(worker.concurrency));
  const [next, setNext] = useState<number | null>(null);
  if (next !== null) {
    return (
      <ConfirmDialog
        title={`Set the concurrency of ${worker.id}`}
        fields={{ concurrency: 'Concurrency' }}
        send={async (reason) => {
          await post(`workers/${encodeURIComponent(worker.id)}/concurrency`, {
            concurrency: next,
            ...(reason === undefined ? {} : { reason }),
          });
        }}
        onClose={props.onClose}
      >
        <p>{`Worker ${worker.id} (${worker.host}, pid ${worker.pid}) runs at most ${next} jobs at once instead of ${worker.concurrency}, until it restarts. Running jobs are not stopped.`}</p>
      </ConfirmDialog>
    );
  }
  const value = Number(text);
  const valid = /^\d+$/.test(text.trim()) && value >= 1 && value <= 10_000;
  return (
    <Dialog title={`Concurrency of ${worker.id}`} onClose={props.onClose}>
      <label>
        Jobs at once (1–10,000; now {worker.concurrency}, {worker.running} running)
        <input
          aria-label="Concurrency"
          inputMode="numeric"
          value={text}
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
        />
      </label>
      <div class="buttons">
        <button type="button" disabled={!valid} onClick={() => setNext(value)}>
          Review…
        </button>
      </div>
    </Dialog>
  );
}

/** The retry settings of a job type that live workers run. */
export function RetryCard(props: { types: readonly string[] }) {
  const [type, setType] = useState('');
  const [attempts, setAttempts] = useState('');
  const [delay, setDelay] = useState('');
  const [confirming, setConfirming] = useState(false);
  const chosen = type || props.types[0] || '';
  // A word is not a number of runs (it would travel as null).
  const attemptsOk = attempts.trim() === '' || /^\d+$/.test(attempts.trim());
  const retry: { maxAttempts?: number; baseDelay?: string } = {};
  if (attempts.trim() !== '') retry.maxAttempts = Number(attempts);
  if (delay.trim() !== '') retry.baseDelay = delay.trim();
  const parts = [
    retry.maxAttempts === undefined ? null : `at most ${retry.maxAttempts} runs in all`,
    retry.baseDelay === undefined ? null : `a first retry delay of ${retry.baseDelay}`,
  ].filter((p) => p !== null);
  return (
    <div class="card" aria-label="Retry settings">
      <h2>Retry settings of a job type</h2>
      <p class="muted">
        Applied at once by every live process that runs the type, for every later failure, until it
        restarts (its options say what it starts with).
      </p>
      <div class="row">
        <label>
          Job type
          <select
            aria-label="Job type"
            value={chosen}
            onChange={(e) => setType((e.target as HTMLSelectElement).value)}
          >
            {props.types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Max attempts (runs in all, 1–1,000,000)
          <input
            aria-label="Max attempts"
            inputMode="numeric"
            value={attempts}
            onInput={(e) => setAttempts((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Base delay (such as 3s, 1m)
          <input
            aria-label="Base delay"
            value={delay}
            onInput={(e) => setDelay((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      {!attemptsOk && <p class="error">Max attempts must be a whole number from 1 to 1,000,000.</p>}
      <div class="buttons">
        <button
          type="button"
          disabled={chosen === '' || parts.length === 0 || !attemptsOk}
          onClick={() => setConfirming(true)}
        >
          Apply…
        </button>
      </div>
      {confirming && (
        <ConfirmDialog
          title={`Change the retries of ${chosen}`}
          fields={{ 'retry.maxAttempts': 'Max attempts', 'retry.baseDelay': 'Base delay' }}
          send={async (reason) => {
            await post(`retry/${encodeURIComponent(chosen)}`, {
              ...retry,
              ...(reason === undefined ? {} : { reason }),
            });
          }}
          onClose={() => setConfirming(false)}
        >
          <p>{`Every live process that runs ${chosen} retries it with ${parts.join(' and ')}.`}</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** The retention purge now: what it would delete, then the purge. */
export function PurgeNowCard() {
  const [preview, setPreview] = useState<RetentionEntry[] | null>(null);
  const [done, setDone] = useState<RetentionPurge | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const look = async () => {
    setProblem(null);
    setDone(null);
    try {
      setPreview(await get<RetentionEntry[]>('retention'));
    } catch (e) {
      setProblem(e instanceof ApiError ? `${e.message} [${e.code}]` : String(e));
    }
  };
  const total = (preview ?? []).reduce((n, e) => n + e.rows, 0);
  return (
    <div class="card" aria-label="Retention">
      <h2>Retention: purge now</h2>
      <p class="muted">
        Deletes what the retention rules say is old enough, now, in the same bounded batches as the
        background purge (never two purges at once).
      </p>
      {problem && <p class="error">{problem}</p>}
      {preview === null ? (
        <button type="button" class="small" onClick={() => void look()}>
          Preview the purge…
        </button>
      ) : (
        <>
          <ul class="changes" data-purge-preview={total}>
            {preview
              .filter((e) => e.rows > 0)
              .map((e) => (
                <li key={`${e.table} ${e.queue ?? ''}`}>
                  {count(e.rows)} rows of {e.table}
                  {e.queue === null ? '' : ` (queue ${e.queue})`} older than{' '}
                  {duration(e.olderThanMs)}
                </li>
              ))}
            {total === 0 && <li>Nothing is old enough to purge.</li>}
          </ul>
          {total > 0 && done === null && (
            <ConfirmPurge
              total={total}
              onDone={(result) => {
                setDone(result);
                setPreview(null);
              }}
            />
          )}
        </>
      )}
      {done && (
        <p data-purged={done.entries.reduce((n, e) => n + e.rows, 0)}>
          {done.led
            ? `Purged ${count(done.entries.reduce((n, e) => n + e.rows, 0))} rows.`
            : 'Another process is purging now: nothing was done here.'}
        </p>
      )}
    </div>
  );
}

/** The purge's button, then its confirmation with an optional reason for the audit trail. */
function ConfirmPurge(props: { total: number; onDone: (result: RetentionPurge) => void }) {
  const [confirming, setConfirming] = useState(false);
  const result = useRef<RetentionPurge | null>(null);
  const title = `Purge ${count(props.total)} rows now`;
  if (!confirming) {
    return (
      <button type="button" class="danger small" onClick={() => setConfirming(true)}>
        {title}…
      </button>
    );
  }
  return (
    <ConfirmDialog
      title={title}
      danger
      send={async (reason) => {
        result.current = await post<RetentionPurge>(
          'retention/purge',
          reason === undefined ? {} : { reason },
        );
      }}
      onClose={() => setConfirming(false)}
      onDone={() => {
        setConfirming(false);
        if (result.current !== null) props.onDone(result.current);
      }}
    >
      <p>
        The rows listed are deleted now, for good, in bounded batches (rows that grew old enough
        since the preview go too).
      </p>
    </ConfirmDialog>
  );
}
