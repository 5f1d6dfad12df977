/**
 * A bulk action in three steps: (for edit and resurrect) the patch, with the diff it makes to a
 * sample job; the preview — how many jobs, which ones, the code that does the same; then the
 * confirmation — the count typed back and a reason — and the run, with its progress, which can be
 * stopped between two batches. The run is a durable job of the engine: closing the dialog (or the
 * page) does not stop it; the Bulk actions panel follows it.
 */
import { ErrorLine } from '../components/error-view.js';
import { useEffect, useState } from 'preact/hooks';
import type { JobDetail } from '../../../operator/jobs.js';
import type { JobFlow } from '../../../operator/job-flow.js';
import type { BulkPreview } from '../../../operator/bulk.js';
import type { BulkAction } from '../../../storage/bulk.js';
import { mergePatch } from '../../../util/merge-patch.js';
import { Dialog } from '../components/dialog.js';
import { JsonField, parseJsonText, prettyJson } from '../components/json-view.js';
import { toast, toastError } from '../components/toasts.js';
import { JsonOnlyChoice } from '../components/json-only.js';
import { ApiError, get, post } from '../lib/api.js';
import { unknownTypes, useKnownTypes } from '../lib/known-types.js';
import { bulkAsCode, type BulkTargetInput } from '../lib/copy-as-code.js';
import { count } from '../lib/format.js';
import { BulkProgress } from './bulk-progress.js';
import { CodeDialog } from './code-dialog.js';
import { DiffView } from './diff-view.js';

/** What the operator chose. */
export interface BulkRequestDraft {
  action: 'resurrect' | 'edit-resurrect' | 'purge' | 'cancel';
  target: BulkTargetInput;
  /** The job types of the selection when known (an error group's); else the sample's is used. */
  types?: readonly string[];
}

const VERBS: Record<BulkRequestDraft['action'], string> = {
  resurrect: 'Resurrect',
  'edit-resurrect': 'Edit and resurrect',
  purge: 'Purge',
  cancel: 'Cancel',
};

interface Edit {
  patch?: unknown;
  /** Apply the patch to types whose schema this process does not know, checked as JSON only. */
  unchecked?: true;
  priority?: number;
  tags?: string | null;
}

/** The bulk dialog. */
export function BulkDialog(props: { draft: BulkRequestDraft; onClose: () => void }) {
  const { action, target } = props.draft;
  const [edit, setEdit] = useState<Edit | null>(action === 'edit-resurrect' ? null : {});
  const [preview, setPreview] = useState<BulkPreview | null>(null);
  const [running, setRunning] = useState<BulkAction | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const verb = VERBS[action];

  const ask = async (chosen: Edit) => {
    setFailed(null);
    try {
      const request = { action, target, ...(action === 'edit-resurrect' ? { edit: chosen } : {}) };
      setPreview(await post<BulkPreview>('bulk/preview', request));
      setEdit(chosen);
    } catch (e) {
      setFailed(e instanceof ApiError ? `${e.message} [${e.code}]` : String(e));
    }
  };
  useEffect(() => {
    if (action !== 'edit-resurrect') void ask({});
  }, []);

  return (
    <Dialog title={`${verb}: ${describeTarget(target)}`} onClose={props.onClose} wide>
      {edit === null && (
        <EditStep
          target={target}
          {...(props.draft.types === undefined ? {} : { types: props.draft.types })}
          onNext={(e) => void ask(e)}
        />
      )}
      {failed !== null && <p class="error">The preview failed: {failed}</p>}
      {edit !== null && preview === null && failed === null && <p>Reading the selection…</p>}
      {preview !== null && running === null && (
        <ConfirmStep
          verb={verb}
          action={action}
          target={target}
          edit={edit ?? {}}
          preview={preview}
          onStarted={setRunning}
        />
      )}
      {running !== null && <RunStep first={running} />}
    </Dialog>
  );
}

function describeTarget(target: BulkTargetInput): string {
  if ('ids' in target) return `${count(target.ids.length)} chosen jobs`;
  if ('errorGroup' in target) return `error group ${target.errorGroup}`;
  if ('flow' in target) return `the flow of job ${target.flow}`;
  return 'every job the filter matches';
}

/**
 * The patch, priority and tags of an edit, with the diff it makes to one job of the selection;
 * for types whose schema this process does not know, the notice and the JSON-only choice first.
 */
function EditStep(props: {
  target: BulkTargetInput;
  types?: readonly string[];
  onNext: (edit: Edit) => void;
}) {
  const [patchText, setPatchText] = useState('{\n  \n}');
  const [priority, setPriority] = useState('');
  const [tags, setTags] = useState('');
  const [sample, setSample] = useState<{ type: string; payload: unknown } | undefined>(undefined);
  const [jsonOnly, setJsonOnly] = useState(false);
  const knownTypes = useKnownTypes();
  useEffect(() => {
    void sampleOf(props.target).then(setSample, () => setSample(undefined));
  }, []);
  const types = props.types ?? (sample === undefined ? [] : [sample.type]);
  const unknown = knownTypes === null ? [] : unknownTypes(types, knownTypes);
  const parsed = parseJsonText(patchText);
  const patch = 'value' in parsed ? parsed.value : undefined;
  const patching =
    patch !== undefined &&
    !(typeof patch === 'object' && patch !== null && Object.keys(patch).length === 0);
  // A word is not a priority (it would travel as null).
  const priorityOk = priority.trim() === '' || /^-?\d+$/.test(priority.trim());
  const next = () => {
    const edit: Edit = {};
    if (patching) {
      edit.patch = patch;
      if (unknown.length > 0 && jsonOnly) edit.unchecked = true;
    }
    if (priority.trim() !== '') edit.priority = Number(priority);
    if (tags.trim() !== '') edit.tags = tags.trim();
    props.onNext(edit);
  };
  return (
    <div class="edit-step">
      {unknown.length > 0 && (
        <JsonOnlyChoice
          types={unknown}
          label="Apply the patch checked as JSON only (recorded in the audit trail)"
          checked={jsonOnly}
          onChange={setJsonOnly}
        />
      )}
      <JsonField
        label="JSON merge patch for each payload (RFC 7386: a key set to null is removed)"
        name="Patch"
        rows={6}
        value={patchText}
        onInput={setPatchText}
      />
      <div class="row">
        <label>
          Priority (optional)
          <input
            inputMode="numeric"
            value={priority}
            onInput={(e) => setPriority((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Tags (optional)
          <input value={tags} onInput={(e) => setTags((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      {sample !== undefined && patch !== undefined && (
        <>
          <h3>What the patch does to one job of the selection</h3>
          <DiffView
            before={prettyJson(sample.payload)}
            after={prettyJson(mergePatch(sample.payload, patch))}
          />
        </>
      )}
      {!priorityOk && <p class="error">Priority must be a whole number.</p>}
      <p class="muted">
        Each patched payload is checked by its job type's schema; a job that fails it is skipped and
        reported.
      </p>
      <div class="buttons">
        <button
          type="button"
          disabled={
            'error' in parsed || (patching && unknown.length > 0 && !jsonOnly) || !priorityOk
          }
          onClick={next}
        >
          Preview
        </button>
      </div>
    </div>
  );
}

/** The type and payload of the first job of a selection, for the diff. */
async function sampleOf(
  target: BulkTargetInput,
): Promise<{ type: string; payload: unknown } | undefined> {
  let id: string | undefined;
  if ('ids' in target) id = target.ids[0];
  else if ('flow' in target) {
    const flow = await get<JobFlow>(`jobs/${encodeURIComponent(target.flow)}/flow`);
    id = flow.nodes.find((node) => node.state === 'dead')?.id;
  } else {
    const query =
      'errorGroup' in target ? { state: ['dead'], errorGroup: target.errorGroup } : target.query;
    id = (await get<{ jobs: { id: string }[] }>('jobs', { ...query, limit: 1 })).jobs[0]?.id;
  }
  if (id === undefined) return undefined;
  const { job } = (await get<JobDetail>(`jobs/${encodeURIComponent(id)}`)).found;
  return { type: job.type, payload: JSON.parse(job.payload) as unknown };
}

function ConfirmStep(props: {
  verb: string;
  action: BulkRequestDraft['action'];
  target: BulkTargetInput;
  edit: Edit;
  preview: BulkPreview;
  onStarted: (a: BulkAction) => void;
}) {
  const { preview } = props;
  const [typed, setTyped] = useState('');
  const [reason, setReason] = useState('');
  const [code, setCode] = useState(false);
  const [sending, setSending] = useState(false);
  // "10,000", "10 000" and "10000" all say the count.
  const typedCount = typed.replace(/[\s,._']/g, '');
  const ready = typedCount === String(preview.count) && reason.trim() !== '' && preview.count > 0;
  const run = async () => {
    setSending(true);
    try {
      props.onStarted(
        await post<BulkAction>('bulk/run', { token: preview.token, reason: reason.trim() }),
      );
      toast(`${props.verb} started for ${count(preview.count)} jobs`);
    } catch (e) {
      toastError(e);
    } finally {
      setSending(false);
    }
  };
  return (
    <div class="confirm-step">
      <p class="big" data-preview-count={preview.count}>
        {props.verb} <b>{count(preview.count)}</b> jobs.
        {preview.notFound.length > 0 && (
          <span class="muted">
            {' '}
            {count(preview.notFound.length)} chosen ids are not there any more.
          </span>
        )}
      </p>
      <p class="muted">
        Exactly these jobs: the selection is frozen until{' '}
        {new Date(preview.expiresAt).toLocaleTimeString()}. A job that changes before its batch runs
        is skipped and reported, never half-moved.
      </p>
      <div class="scroll">
        <table class="grid" aria-label="Sample">
          <thead>
            <tr>
              <th>Id</th>
              <th>Type</th>
              <th>Queue</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
            {preview.sample.map((j) => (
              <tr key={j.id}>
                <td class="mono">{j.id}</td>
                <td>{j.type}</td>
                <td>{j.queue}</td>
                <td class="clip">{j.error && <ErrorLine text={j.error} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {preview.count > preview.sample.length && (
        <p class="muted">and {count(preview.count - preview.sample.length)} more</p>
      )}
      <label>
        Type {count(preview.count)} to confirm
        <input
          aria-label="Confirmation count"
          value={typed}
          onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Reason (kept in the audit trail)
        <input
          aria-label="Reason"
          value={reason}
          onInput={(e) => setReason((e.target as HTMLInputElement).value)}
        />
      </label>
      <div class="buttons">
        <button type="button" class="ghost" onClick={() => setCode(true)}>
          Copy as code
        </button>
        <button
          type="button"
          class={props.action === 'purge' || props.action === 'cancel' ? 'danger' : ''}
          disabled={!ready || sending}
          onClick={() => void run()}
        >
          {props.verb} {count(preview.count)} jobs
        </button>
      </div>
      {code && (
        <CodeDialog
          title="This action as code"
          code={bulkAsCode(
            props.action,
            props.target,
            props.action === 'edit-resurrect' ? props.edit : undefined,
          )}
          onClose={() => setCode(false)}
        />
      )}
    </div>
  );
}

/** Follows a started action until it ends. */
function RunStep({ first }: { first: BulkAction }) {
  const [action, setAction] = useState(first);
  useEffect(() => {
    if (action.status !== 'running') return;
    const timer = setTimeout(() => {
      void get<{ action: BulkAction }>(`bulk/${encodeURIComponent(action.id)}`).then(
        (r) => setAction(r.action),
        // A failed read (a restart, a blip) is tried again; the action runs on regardless.
        () => setAction({ ...action }),
      );
    }, 500);
    return () => clearTimeout(timer);
  }, [action]);
  return (
    <div class="run-step">
      <BulkProgress action={action} operate />
      {action.status !== 'running' && (
        <p data-bulk-status={action.status}>
          Finished: {action.status}, {count(action.applied)} applied, {count(action.skipped)}{' '}
          skipped.
        </p>
      )}
    </div>
  );
}
