/**
 * A change said before it is sent, with an optional reason for the audit trail: the one
 * confirmation of queue controls and live controls. Says what went wrong in place.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { refusalText, type FieldLabels } from '../lib/field-labels.js';
import { Dialog } from './dialog.js';
import { toast } from './toasts.js';

/** Shows `children` (what the change does) and a reason field; sends on the titled button. */
export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  /**
   * Sends the change with the reason typed (`undefined`: none); resolves to what the toast says
   * when it went through (default: the title and `done`).
   */
  send: (reason: string | undefined) => Promise<string | void>;
  onClose: () => void;
  /** After the change was sent. Default: `onClose`. */
  onDone?: () => void;
  /** The change deletes or cannot be undone: its button is red. */
  danger?: boolean;
  /** The labels of the fields the change was typed into, named in a refusal for the API's. */
  fields?: FieldLabels;
}) {
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const run = async () => {
    setSending(true);
    setProblem(null);
    try {
      const said = await props.send(reason.trim() === '' ? undefined : reason.trim());
      toast(typeof said === 'string' ? said : `${props.title}: done`);
      (props.onDone ?? props.onClose)();
    } catch (e) {
      setProblem(refusalText(e, props.fields));
    } finally {
      setSending(false);
    }
  };
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      {props.children}
      <label>
        Reason (optional, kept in the audit trail)
        <input
          aria-label="Reason"
          value={reason}
          onInput={(e) => setReason((e.target as HTMLInputElement).value)}
        />
      </label>
      {problem && <p class="error">{problem}</p>}
      <div class="buttons">
        <button type="button" class="ghost" onClick={props.onClose}>
          Keep as is
        </button>
        <button
          type="button"
          class={props.danger === true ? 'danger' : undefined}
          disabled={sending}
          onClick={() => void run()}
        >
          {props.title}
        </button>
      </div>
    </Dialog>
  );
}
