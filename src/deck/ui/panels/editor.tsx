/**
 * The editor of a pending job (payload, priority, tags, run-at) or of a DLQ job in place
 * (payload, tags): the payload is checked as JSON as it is typed and shown as a diff against
 * what is stored before it is saved; the server checks it with the job type's schema.
 */
import { useState } from 'preact/hooks';
import type { JobDetail } from '../../../operator/jobs.js';
import { Dialog } from '../components/dialog.js';
import { JsonField, parseJsonText, prettyJson } from '../components/json-view.js';
import { toast } from '../components/toasts.js';
import { ApiError, post } from '../lib/api.js';
import { DiffView } from './diff-view.js';

/** The editor dialog. */
export function EditorDialog(props: {
  detail: JobDetail;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { found } = props.detail;
  const job = found.job;
  const original = prettyJson(JSON.parse(job.payload) as unknown);
  const [text, setText] = useState(original);
  const [tags, setTags] = useState(job.tags ?? '');
  const [priority, setPriority] = useState(found.where === 'hot' ? String(found.job.priority) : '');
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const parsed = parseJsonText(text);
  const hot = found.where === 'hot';

  const save = async () => {
    if ('error' in parsed) return;
    const body: Record<string, unknown> = {};
    if (prettyJson(parsed.value) !== original) body.payload = parsed.value;
    if (tags !== (job.tags ?? '')) body.tags = tags === '' ? null : tags;
    if (hot && priority !== String(found.job.priority)) body.priority = Number(priority);
    if (reason.trim()) body.reason = reason.trim();
    if (Object.keys(body).filter((k) => k !== 'reason').length === 0)
      return setProblem('Nothing changed.');
    try {
      const path = hot
        ? `jobs/${encodeURIComponent(job.id)}/edit`
        : `dlq/${encodeURIComponent(job.id)}/edit`;
      const { edited } = await post<{ edited: boolean }>(path, body);
      if (!edited)
        return setProblem(
          'The job moved on before the edit (it is no longer pending / in the DLQ).',
        );
      toast('Saved');
      props.onSaved();
    } catch (e) {
      setProblem(e instanceof ApiError ? `${e.message} [${e.code}]` : String(e));
    }
  };

  return (
    <Dialog title={`Edit ${job.id}`} onClose={props.onClose} wide>
      <JsonField label="Payload (JSON)" name="Payload" rows={12} value={text} onInput={setText} />
      {'value' in parsed && <DiffView before={original} after={prettyJson(parsed.value)} />}
      <div class="row">
        <label>
          Tags
          <input
            aria-label="Tags"
            value={tags}
            onInput={(e) => setTags((e.target as HTMLInputElement).value)}
          />
        </label>
        {hot && (
          <label>
            Priority
            <input
              aria-label="Priority"
              inputMode="numeric"
              value={priority}
              onInput={(e) => setPriority((e.target as HTMLInputElement).value)}
            />
          </label>
        )}
        <label>
          Reason (optional)
          <input
            aria-label="Reason"
            value={reason}
            onInput={(e) => setReason((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      {problem && <p class="error">{problem}</p>}
      <div class="buttons">
        <button type="button" disabled={'error' in parsed} onClick={() => void save()}>
          Save
        </button>
      </div>
    </Dialog>
  );
}
