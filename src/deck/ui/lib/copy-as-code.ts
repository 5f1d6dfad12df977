/**
 * "Copy as code": the CLI command and the API call that do what a view or a bulk action does,
 * so an operator can script what they just did by hand. Flag names follow `chokaq jobs list`
 * and `chokaq dlq resurrect|purge` (docs/operator-api.md).
 */
import type { JobQuery } from '../../../operator/query-input.js';

/** A shell word, single-quoted when it needs to be. */
function shell(word: string): string {
  return /^[A-Za-z0-9_./:@=,+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

const list = (v: string | readonly string[] | undefined): string[] =>
  v === undefined ? [] : typeof v === 'string' ? [v] : [...v];

/** The filter flags of a query (without `--state` when `withState` is false). */
export function filterFlags(q: JobQuery, withState = true): string[] {
  const flags: string[] = [];
  const add = (flag: string, value: string | number | undefined) => {
    if (value !== undefined) flags.push(`--${flag}`, shell(String(value)));
  };
  if (withState && q.state !== undefined) add('state', list(q.state).join(','));
  for (const queue of list(q.queue)) add('queue', queue);
  for (const type of list(q.type)) add('type', type);
  if (q.tags !== undefined) add('tag', list(q.tags).join(','));
  add('created-from', q.created?.from?.toString());
  add('created-to', q.created?.to?.toString());
  add('finished-from', q.finished?.from?.toString());
  add('finished-to', q.finished?.to?.toString());
  for (const reason of list(q.reason)) add('failure-reason', reason);
  add('group', q.errorGroup);
  add('error', q.errorText);
  add('attempts-min', q.attempts?.min);
  add('attempts-max', q.attempts?.max);
  add('id-prefix', q.idPrefix);
  if (q.payload !== undefined) add('payload-contains', JSON.stringify(q.payload));
  return flags;
}

/** `chokaq jobs list …` and `chokaq.jobs.query(…)` for a view. */
export function queryAsCode(q: JobQuery): { cli: string; api: string } {
  return {
    cli: ['chokaq jobs list', ...filterFlags(q)].join(' '),
    api: `await chokaq.jobs.query(${JSON.stringify(q, null, 2)});`,
  };
}

/** What a bulk action selects. */
export type BulkTargetInput =
  { ids: string[] } | { query: JobQuery } | { errorGroup: string } | { flow: string };

/** The CLI command and API calls of a bulk action on DLQ jobs. */
export function bulkAsCode(
  action: 'resurrect' | 'purge' | 'edit-resurrect' | 'cancel',
  target: BulkTargetInput,
  edit?: { patch?: unknown; unchecked?: true; priority?: number },
): { cli: string; api: string } {
  const selection =
    'ids' in target
      ? target.ids.flatMap((id) => ['--id', shell(id)])
      : 'errorGroup' in target
        ? ['--group', target.errorGroup]
        : 'flow' in target
          ? ['--flow', shell(target.flow)]
          : filterFlags(target.query, false);
  const verb = action === 'purge' ? 'purge' : 'resurrect';
  const extra =
    action === 'edit-resurrect' && edit
      ? [
          ...(edit.patch !== undefined ? ['--patch', shell(JSON.stringify(edit.patch))] : []),
          ...(edit.unchecked === true ? ['--unchecked'] : []),
          ...(edit.priority !== undefined ? ['--priority', String(edit.priority)] : []),
        ]
      : [];
  const cli =
    action === 'cancel'
      ? '# no CLI command: cancel from the API'
      : ['chokaq dlq', verb, ...selection, ...extra, "--reason '…'"].join(' ');
  const request = { action, target, ...(edit ? { edit } : {}) };
  const api = [
    `const preview = await chokaq.bulk.preview(${JSON.stringify(request, null, 2)});`,
    `await chokaq.bulk.run(preview.token, { actor: '…', reason: '…' });`,
  ].join('\n');
  return { cli, api };
}
