/**
 * One bulk action's progress bar, with what it acts on, its counts and a stop button while it
 * runs.
 */
import type { BulkAction } from '../../../storage/bulk.js';
import { toast, toastError } from '../components/toasts.js';
import { post } from '../lib/api.js';
import { bulkSummary, shownStatus } from '../lib/bulk-summary.js';
import { count } from '../lib/format.js';
import { href } from '../lib/route.js';

/** The progress of `action`. */
export function BulkProgress({ action, operate }: { action: BulkAction; operate?: boolean }) {
  const share = action.total === 0 ? 1 : action.done / action.total;
  const stop = async () => {
    try {
      await post(`bulk/${encodeURIComponent(action.id)}/cancel`);
      toast('Stop requested: the action ends before its next batch');
    } catch (e) {
      toastError(e);
    }
  };
  return (
    <div class="bulk-progress" data-bulk={action.id}>
      <a href={href('bulk', action.id)} data-bulk-summary>
        {action.action} · {bulkSummary(action)} · {shownStatus(action)}
      </a>
      <progress max={1} value={share} aria-label={`${action.action} progress`} />
      <span class="muted">
        {count(action.done)} / {count(action.total)} ({count(action.applied)} applied,{' '}
        {count(action.skipped)} skipped)
      </span>
      {operate && action.status === 'running' && action.cancelRequestedAt === null && (
        <button type="button" class="danger small" onClick={() => void stop()}>
          Stop
        </button>
      )}
    </div>
  );
}
