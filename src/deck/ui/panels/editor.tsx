/**
 * The editor of a waiting (pending or scheduled) job (payload, priority, tags, run-at) or of a DLQ job in place
 * (payload, tags), which a DLQ job can also save and resurrect in one step: the payload is
 * checked as JSON as it is typed and shown as a diff against what is stored before it is saved;
 * the server checks it with the job type's schema. When this Deck's process does not know that
 * schema, the editor says so first, and a changed payload is stored only by the explicit choice
 * to have it checked as JSON only (recorded in the audit trail).
 */
import { useState } from 'preact/hooks';
import type { JobDetail } from '../../../operator/jobs.js';
import { Dialog } from '../components/dialog.js';
import { JsonField, parseJsonText, prettyJson } from '../components/json-view.js';
import { toast } from '../components/toasts.js';
import { JsonOnlyChoice } from '../components/json-only.js';
import { ApiError, post } from '../lib/api.js';
import { useKnownTypes } from '../lib/known-types.js';
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
  const [jsonOnly, setJsonOnly] = useState(false);
  const knownTypes = useKnownTypes();
  const schemaUnknown = knownTypes !== null && !knownTypes.has(job.type);
  const parsed = parseJsonText(text);
  const hot = found.where === 'hot';
  const payloadChanged = 'value' in parsed && prettyJson(parsed.value) !== original;
  // A changed payload of a type without a known schema waits for the explicit choice.
  const blocked = 'error' in parsed || (schemaUnknown && payloadChanged && !jsonOnly);

  /** Saves the edit; `resurrect` (DLQ jobs) also moves the job back to pending, in one request. */
  const save = async (resurrect: boolean) => {
    if ('error' in parsed) return;
    const body: Record<string, unknown> = {};
    if (payloadChanged) body.payload = parsed.value;
    if (payloadChanged && schemaUnknown && jsonOnly) body.unchecked = true;
    if (tags !== (job.tags ?? '')) body.tags = tags === '' ? null : tags;
    if (hot && priority !== String(found.job.priority)) {
      // A word is not a priority (it would travel as null).
      if (!/^-?\d+$/.test(priority.trim())) return setProblem('Priority must be a whole number.');
      body.priority = Number(priority);
    }
    if (reason.trim()) body.reason = reason.trim();
    if (!resurrect && Object.keys(body).filter((k) => k !== 'reason').length === 0)
      return setProblem('Nothing changed.');
    try {
      const id = encodeURIComponent(job.id);
      const path = hot ? `jobs/${id}/edit` : resurrect ? `dlq/${id}/fix` : `dlq/${id}/edit`;
      const { edited } = await post<{ edited: boolean }>(path, body);
      if (!edited)
        return setProblem(
          'The job moved on before the edit (it is no longer waiting / in the DLQ).',
        );
      toast(resurrect ? 'Saved and resurrected' : 'Saved');
      props.onSaved();
    } catch (e) {
      setProblem(e instanceof ApiError ? `${e.message} [${e.code}]` : String(e));
    }
  };

  return (
    <Dialog title={`Edit ${job.id}`} onClose={props.onClose} wide>
      {schemaUnknown && (
        <JsonOnlyChoice
          types={[job.type]}
          label="Store a changed payload checked as JSON only (recorded in the audit trail)"
          checked={jsonOnly}
          onChange={setJsonOnly}
        />
      )}
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
        <button type="button" disabled={blocked} onClick={() => void save(false)}>
          Save
        </button>
        {!hot && (
          <button type="button" disabled={blocked} onClick={() => void save(true)}>
            Save and resurrect
          </button>
        )}
      </div>
    </Dialog>
  );
}
