/**
 * What an operator can do to one job, the same from the inspector and from a row of the job
 * matrix: resurrect or purge it in the DLQ (a purge is confirmed first), cancel it in the hot
 * table. Each says what happened in a toast and resolves whether it was done.
 */
import { toast, toastError } from '../components/toasts.js';
import { post } from './api.js';

/** A single-job action. */
export type JobAction = 'resurrect' | 'purge' | 'cancel';

const CALLS: Record<JobAction, { path: string; done: string }> = {
  resurrect: { path: 'dlq/resurrect', done: 'Resurrected' },
  purge: { path: 'dlq/purge', done: 'Purged' },
  cancel: { path: 'jobs/cancel', done: 'Cancel requested' },
};

/** Runs `action` on job `id`; a purge asks first. Resolves `true` when it was sent and done. */
export async function runJobAction(action: JobAction, id: string): Promise<boolean> {
  if (action === 'purge' && !confirm(`Purge ${id} for good?`)) return false;
  try {
    await post(CALLS[action].path, { ids: [id] });
    toast(CALLS[action].done);
    return true;
  } catch (e) {
    toastError(e);
    return false;
  }
}
