/**
 * The actions of one row of the job matrix that are safe to have on every row: resurrect and edit
 * in the DLQ, edit (when pending or scheduled) in Active, re-run in the Archive. The destructive ones (purge,
 * cancel) are in the selection bar, behind a preview. They go through the same endpoints,
 * confirmations and editor as the inspector's; only operate access sees them.
 */
import { useState } from 'preact/hooks';
import type { JobDetail } from '../../../operator/jobs.js';
import type { JobSummary } from '../../../storage/model.js';
import { JobActionButton } from '../components/job-action-button.js';
import { toastError } from '../components/toasts.js';
import { get } from '../lib/api.js';
import { EditorDialog } from './editor.js';
import type { Tab } from '../lib/tabs.js';

/** The actions cell of `job`'s row; `onDone` after a change went through. */
export function RowActions(props: { job: JobSummary; tab: Tab; onDone: () => void }) {
  const { job, tab } = props;
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState<JobDetail | null>(null);
  const edit = async () => {
    setBusy(true);
    try {
      setEditing(await get<JobDetail>(`jobs/${encodeURIComponent(job.id)}`));
    } catch (e) {
      toastError(e);
    }
    setBusy(false);
  };
  const button = (label: string, run: () => Promise<void>) => (
    <button
      type="button"
      class="small ghost"
      disabled={busy}
      title={`${label.replace('…', '')} ${job.id}`}
      onClick={() => void run()}
    >
      {label}
    </button>
  );
  return (
    <td class="row-actions">
      {tab === 'archive' && (
        <JobActionButton action="rerun" id={job.id} class="small ghost" onDone={props.onDone} />
      )}
      {tab === 'dlq' && (
        <>
          <JobActionButton
            action="resurrect"
            id={job.id}
            class="small ghost"
            onDone={props.onDone}
          />
          {button('Edit…', edit)}
        </>
      )}
      {tab === 'active' &&
        (job.state === 'pending' || job.state === 'scheduled') &&
        button('Edit…', edit)}
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
