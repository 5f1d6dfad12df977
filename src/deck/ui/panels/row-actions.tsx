/**
 * The actions of one row of the job matrix, those that fit its table: cancel (and edit, when
 * pending) in Active; resurrect, edit and purge in the DLQ; copy the id in the Archive. They go
 * through the same endpoints, confirmations and editor as the inspector's; read-only users get
 * none that change anything.
 */
import { useState } from 'preact/hooks';
import type { JobDetail } from '../../../operator/jobs.js';
import type { JobSummary } from '../../../storage/model.js';
import { toast, toastError } from '../components/toasts.js';
import { get } from '../lib/api.js';
import { runJobAction, type JobAction } from '../lib/job-actions.js';
import { EditorDialog } from './editor.js';
import type { Tab } from '../lib/tabs.js';

/** The actions cell of `job`'s row; `onDone` after a change went through. */
export function RowActions(props: {
  job: JobSummary;
  tab: Tab;
  operate: boolean;
  onDone: () => void;
}) {
  const { job, tab } = props;
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState<JobDetail | null>(null);
  const act = async (action: JobAction) => {
    setBusy(true);
    if (await runJobAction(action, job.id)) props.onDone();
    setBusy(false);
  };
  const edit = async () => {
    setBusy(true);
    try {
      setEditing(await get<JobDetail>(`jobs/${encodeURIComponent(job.id)}`));
    } catch (e) {
      toastError(e);
    }
    setBusy(false);
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(job.id);
      toast(`Copied ${job.id}`);
    } catch (e) {
      toastError(e);
    }
  };
  const button = (label: string, run: () => Promise<void>, danger = false) => (
    <button
      type="button"
      class={danger ? 'small ghost danger' : 'small ghost'}
      disabled={busy}
      title={`${label.replace('…', '')} ${job.id}`}
      onClick={() => void run()}
    >
      {label}
    </button>
  );
  return (
    <td class="row-actions">
      {tab === 'archive' && button('Copy id', copy)}
      {props.operate && tab === 'dlq' && (
        <>
          {button('Resurrect', () => act('resurrect'))}
          {button('Edit…', edit)}
          {button('Purge', () => act('purge'), true)}
        </>
      )}
      {props.operate && tab === 'active' && (
        <>
          {job.state === 'pending' && button('Edit…', edit)}
          {button('Cancel', () => act('cancel'), true)}
        </>
      )}
      {editing && (
        <EditorDialog
          detail={editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            props.onDone();
          }}
        />
      )}
    </td>
  );
}
