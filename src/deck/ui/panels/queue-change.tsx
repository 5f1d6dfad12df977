/**
 * The confirmation of a queue control (pause, resume, deactivate, activate, limits): what the
 * change does, said before it is sent, and an optional reason kept in the audit trail with it,
 * as bulk actions have. Queues of ChokaQ's own (`chokaq.*`) are never offered pause or
 * deactivate; the server refuses those too (`CHOKAQ_INTERNAL_QUEUE`).
 */
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { post } from '../lib/api.js';

/** A queue of ChokaQ's own, which runs bulk actions and other engine work. */
export function isInternalQueue(name: string): boolean {
  return name.startsWith('chokaq.');
}

/** One change of a queue's controls, as the operator chose it. */
export interface QueueChange {
  queue: string;
  /** The button's words, which the confirmation repeats: `Pause`, `Deactivate (stop claims)`, … */
  verb: string;
  /** What it does, in a sentence. */
  effect: string;
  /** The route below `queues/:name/` and its body (without the reason). */
  path: 'pause' | 'resume' | 'update';
  body: object;
}

/** The queue changes of the Queues panel's buttons. */
export const QUEUE_CHANGES = {
  pause: (queue: string): QueueChange => ({
    queue,
    verb: 'Pause',
    effect: `No process claims jobs of ${queue} until it is resumed. Running jobs finish; jobs already fetched go back to pending.`,
    path: 'pause',
    body: {},
  }),
  resume: (queue: string): QueueChange => ({
    queue,
    verb: 'Resume',
    effect: `Processes claim jobs of ${queue} again.`,
    path: 'resume',
    body: {},
  }),
  deactivate: (queue: string): QueueChange => ({
    queue,
    verb: 'Deactivate (stop claims)',
    effect: `No process claims jobs of ${queue} until it is activated again; its jobs wait. Like a pause, kept apart from it (a resume does not undo it).`,
    path: 'update',
    body: { active: false },
  }),
  activate: (queue: string): QueueChange => ({
    queue,
    verb: 'Activate',
    effect: `Processes claim jobs of ${queue} again (unless it is paused).`,
    path: 'update',
    body: { active: true },
  }),
};

/** Asks for the confirmation and a reason, then sends `changes` in order; `onDone` after. */
export function QueueChangeDialog(props: {
  title: string;
  changes: readonly QueueChange[];
  onClose: () => void;
  onDone: () => void;
}) {
  const send = async (reason: string | undefined) => {
    for (const change of props.changes) {
      const body = { ...change.body, ...(reason === undefined ? {} : { reason }) };
      await post(`queues/${encodeURIComponent(change.queue)}/${change.path}`, body);
    }
  };
  return (
    <ConfirmDialog
      title={props.title}
      send={send}
      onClose={props.onClose}
      onDone={props.onDone}
      fields={{ maxWorkers: 'Max workers', timeout: 'Zombie timeout' }}
    >
      <ul class="changes">
        {props.changes.map((c) => (
          <li key={`${c.path} ${JSON.stringify(c.body)}`}>{c.effect}</li>
        ))}
      </ul>
    </ConfirmDialog>
  );
}
