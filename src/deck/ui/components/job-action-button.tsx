/**
 * The button of one single-job action (see lib/job-actions.ts): resurrect at once; purge, cancel
 * and re-run through a confirmation that says what happens and takes an optional reason.
 */
import { useState } from 'preact/hooks';
import { DONE, EFFECTS, sendJobAction, type JobAction } from '../lib/job-actions.js';
import { ConfirmDialog } from './confirm-dialog.js';
import { toast, toastError } from './toasts.js';

/** The words of each action's button (`…` when it is confirmed first). */
const LABELS: Record<JobAction, string> = {
  resurrect: 'Resurrect',
  purge: 'Purge…',
  cancel: 'Cancel…',
  rerun: 'Re-run…',
};

/** What each confirmation's button says. */
const VERBS: Record<JobAction, string> = {
  resurrect: 'Resurrect',
  purge: 'Purge',
  cancel: 'Cancel',
  rerun: 'Re-run',
};

/** A button that runs `action` on job `id`; `onDone` after it went through. */
export function JobActionButton(props: {
  action: JobAction;
  id: string;
  class?: string;
  onDone: () => void;
}) {
  const { action, id } = props;
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const effect = EFFECTS[action];
  const now = async () => {
    setBusy(true);
    try {
      toast(DONE[action](await sendJobAction(action, id)));
      props.onDone();
    } catch (e) {
      toastError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        class={props.class}
        disabled={busy}
        title={`${VERBS[action]} ${id}`}
        onClick={() => (effect === undefined ? void now() : setConfirming(true))}
      >
        {LABELS[action]}
      </button>
      {confirming && effect !== undefined && (
        <ConfirmDialog
          title={`${VERBS[action]} ${id.slice(0, 8)}`}
          danger={action !== 'rerun'}
          send={async (reason) => DONE[action](await sendJobAction(action, id, reason))}
          onClose={() => setConfirming(false)}
          onDone={() => {
            setConfirming(false);
            props.onDone();
          }}
        >
          <p>
            <span class="mono">{id}</span>: {effect}
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
