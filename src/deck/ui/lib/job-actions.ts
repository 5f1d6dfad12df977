/**
 * What an operator can do to one job, the same from the inspector and from a row of the job
 * matrix: resurrect or purge it in the DLQ, cancel it in the hot table, re-run it from the
 * archive (a copy with a new id). Purge, cancel and re-run are said before they are sent and take
 * an optional reason for the audit trail, as queue controls do; resurrect goes at once.
 */
import { post } from './api.js';

/** A single-job action. */
export type JobAction = 'resurrect' | 'purge' | 'cancel' | 'rerun';

/** Each action's request. */
const CALLS: Record<JobAction, { path: (id: string) => string; body: (id: string) => object }> = {
  resurrect: { path: () => 'dlq/resurrect', body: (id) => ({ ids: [id] }) },
  purge: { path: () => 'dlq/purge', body: (id) => ({ ids: [id] }) },
  cancel: { path: () => 'jobs/cancel', body: (id) => ({ ids: [id] }) },
  rerun: { path: (id) => `jobs/${encodeURIComponent(id)}/rerun`, body: () => ({}) },
};

/** What each action's toast says. */
export const DONE: Record<JobAction, (answer: { id?: string }) => string> = {
  resurrect: () => 'Resurrected',
  purge: () => 'Purged',
  cancel: () => 'Cancel requested',
  rerun: (answer) => `Re-run as ${answer.id ?? '?'}`,
};

/** What an action that is confirmed first does, said in its confirmation. */
export const EFFECTS: Partial<Record<JobAction, string>> = {
  purge: 'The job and its history are deleted for good.',
  cancel:
    'A waiting job moves to the DLQ as cancelled; a running one is asked to stop (its handler sees the abort).',
  rerun:
    'A copy of this succeeded job runs again under a new id: whatever its handler does, it does again.',
};

/** Sends `action` on job `id` with the reason typed (if any); resolves to the server's answer. */
export function sendJobAction(
  action: JobAction,
  id: string,
  reason?: string,
): Promise<{ id?: string }> {
  const body = { ...CALLS[action].body(id), ...(reason === undefined ? {} : { reason }) };
  return post<{ id?: string }>(CALLS[action].path(id), body);
}
