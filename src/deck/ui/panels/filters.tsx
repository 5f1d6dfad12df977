/**
 * The filter bar of the job matrix: a search (id prefix, type, payload JSON or error words) and
 * the operator query's filters. It edits a draft and applies it to the URL on submit, so each
 * view is a link; the server checks every value and an unknown one is an error, never no filter.
 */
import { useEffect, useState } from 'preact/hooks';
import { FAILURE_REASON_CODE } from '../../../job/state.js';
import type { JobQuery } from '../../../operator/query-input.js';
import { parseJsonText } from '../components/json-view.js';
import type { Tab } from '../lib/tabs.js';

const REASONS = Object.keys(FAILURE_REASON_CODE);

type SearchMode = 'id' | 'type' | 'payload' | 'error';

interface Draft {
  mode: SearchMode;
  search: string;
  queue: string;
  tags: string;
  reason: string;
  attemptsMin: string;
  createdFrom: string;
  createdTo: string;
  errorGroup: string;
}

function toDraft(q: JobQuery): Draft {
  const first = (v: string | readonly string[] | undefined) =>
    v === undefined ? '' : typeof v === 'string' ? v : v.join(',');
  const mode: SearchMode =
    q.payload !== undefined
      ? 'payload'
      : q.type !== undefined
        ? 'type'
        : q.errorText !== undefined
          ? 'error'
          : 'id';
  const search =
    mode === 'payload'
      ? JSON.stringify(q.payload)
      : mode === 'type'
        ? first(q.type)
        : mode === 'error'
          ? (q.errorText ?? '')
          : (q.idPrefix ?? '');
  return {
    mode,
    search,
    queue: first(q.queue),
    tags: first(q.tags),
    reason: first(q.reason),
    attemptsMin: q.attempts?.min === undefined ? '' : String(q.attempts.min),
    createdFrom: typeof q.created?.from === 'string' ? q.created.from : '',
    createdTo: typeof q.created?.to === 'string' ? q.created.to : '',
    errorGroup: q.errorGroup ?? '',
  };
}

const split = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The filters the form edits; the others of a view (state, finished, sort, …) are kept. */
const FORM_KEYS = [
  'idPrefix',
  'type',
  'errorText',
  'payload',
  'queue',
  'tags',
  'reason',
  'created',
  'errorGroup',
] as const;

/** The query of a draft on top of what the form does not edit, or what is wrong with it. */
function toQuery(d: Draft, base: JobQuery): JobQuery | string {
  const q: JobQuery = { ...base };
  for (const key of FORM_KEYS) delete q[key];
  const { max } = base.attempts ?? {};
  if (max === undefined) delete q.attempts;
  else q.attempts = { max };
  const search = d.search.trim();
  if (search !== '') {
    if (d.mode === 'id') q.idPrefix = search;
    else if (d.mode === 'type') q.type = split(search);
    else if (d.mode === 'error') q.errorText = search;
    else {
      const parsed = parseJsonText(search);
      if ('error' in parsed) return `payload: ${parsed.error}`;
      q.payload = parsed.value as Record<string, unknown>;
    }
  }
  if (d.queue.trim()) q.queue = split(d.queue);
  if (d.tags.trim()) q.tags = split(d.tags);
  if (d.reason) q.reason = [d.reason] as NonNullable<JobQuery['reason']>;
  if (d.attemptsMin.trim()) {
    if (!/^\d+$/.test(d.attemptsMin.trim())) return 'attempts≥ must be a whole number, such as 3';
    q.attempts = { ...q.attempts, min: Number(d.attemptsMin) };
  }
  if (d.createdFrom || d.createdTo) {
    q.created = {
      ...(d.createdFrom ? { from: d.createdFrom } : {}),
      ...(d.createdTo ? { to: d.createdTo } : {}),
    };
  }
  if (d.errorGroup.trim()) q.errorGroup = d.errorGroup.trim();
  return q;
}

/** The filter bar. */
export function FilterBar(props: { tab: Tab; query: JobQuery; onChange: (q: JobQuery) => void }) {
  const [draft, setDraft] = useState(() => toDraft(props.query));
  const [problem, setProblem] = useState<string | null>(null);
  const key = JSON.stringify(props.query);
  useEffect(() => setDraft(toDraft(props.query)), [key]);
  const field = (name: keyof Draft) => ({
    value: draft[name],
    onInput: (e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value }),
  });
  const submit = (e: Event) => {
    e.preventDefault();
    const q = toQuery(draft, props.query);
    if (typeof q === 'string') return setProblem(q);
    setProblem(null);
    props.onChange(q);
  };
  return (
    <form class="filters" onSubmit={submit} aria-label="Filters">
      <select
        aria-label="Search by"
        {...field('mode')}
        onChange={(e) =>
          setDraft({ ...draft, mode: (e.target as HTMLSelectElement).value as SearchMode })
        }
      >
        <option value="id">id starts with</option>
        <option value="type">type is</option>
        <option value="payload">payload contains (JSON)</option>
        <option value="error">error has words</option>
      </select>
      <input
        data-search
        aria-label="Search"
        placeholder="search  ( / )"
        class="wide"
        {...field('search')}
      />
      <input aria-label="Queue" placeholder="queue" {...field('queue')} />
      <input aria-label="Tags" placeholder="tags" {...field('tags')} />
      {props.tab === 'dlq' && (
        <select
          aria-label="Reason"
          {...field('reason')}
          onChange={(e) => setDraft({ ...draft, reason: (e.target as HTMLSelectElement).value })}
        >
          <option value="">any reason</option>
          {REASONS.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      )}
      <input
        aria-label="Attempts at least"
        placeholder="attempts≥"
        inputMode="numeric"
        class="narrow"
        {...field('attemptsMin')}
      />
      <input
        aria-label="Created from"
        placeholder="created ≥"
        title="created at or after: an ISO 8601 time"
        class="date"
        {...field('createdFrom')}
      />
      <input
        aria-label="Created to"
        placeholder="created <"
        title="created before: an ISO 8601 time"
        class="date"
        {...field('createdTo')}
      />
      {draft.errorGroup && <input aria-label="Error group" class="mono" {...field('errorGroup')} />}
      <button type="submit">Apply</button>
      <button type="button" class="ghost" onClick={() => props.onChange({})}>
        Reset
      </button>
      {problem && <span class="error">{problem}</span>}
    </form>
  );
}
