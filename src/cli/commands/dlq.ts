import type { ChokaQ } from '../../chokaq.js';
import type { DeadJobEdit } from '../../chokaq.js';
import type { BulkEdit, BulkRequest, BulkTarget } from '../../operator/bulk-input.js';
import { CliError, subcommandError, type CliIo } from '../io.js';
import { didYouMean } from '../suggest.js';
import { bulkFlow, defaultActor } from '../operator/bulk-flow.js';
import {
  FILTERS_BUT_STATE,
  FILTERS_BUT_STATE_SYNOPSIS,
  FILTER_USAGE,
  hasFilter,
  jsonFlag,
  numberFlag,
  queryFrom,
  type FilterValues,
} from '../operator/filters.js';
import { PAGE_OPTIONS, PAGE_SYNOPSIS, PAGE_USAGE, pageQuery, printPage } from '../operator/list.js';
import { synopsis } from '../usage.js';
import { groupTable } from '../operator/render.js';
import {
  CONNECTION_OPTIONS,
  CONNECTION_SYNOPSIS,
  CONNECTION_USAGE,
  withSession,
} from '../operator/session.js';
import { parseFlags } from '../args.js';
import { SINGLE_ACTION_OPTIONS, onlyOne } from '../operator/action-flags.js';

/** The jobs a bulk command takes, in a synopsis line: exactly one of ids, filters and `--all`. */
const SELECTION_SYNOPSIS = `[--id ID ...] [--flow ID] [--all] ${FILTERS_BUT_STATE_SYNOPSIS}`;

/** Usage text of `chokaq dlq`. */
export const DLQ_USAGE = `${synopsis(`chokaq dlq groups [--queue Q] [--type T] [--limit N] [--json] ${CONNECTION_SYNOPSIS}`)}
${synopsis(`chokaq dlq list ${FILTERS_BUT_STATE_SYNOPSIS} ${PAGE_SYNOPSIS} ${CONNECTION_SYNOPSIS}`)}
${synopsis(`chokaq dlq resurrect ${SELECTION_SYNOPSIS} --reason TEXT [--actor NAME] [--patch JSON [--unchecked]] [--priority N] [--set-tags T] [--yes | --preview] [--json] ${CONNECTION_SYNOPSIS}`)}
${synopsis(`chokaq dlq purge ${SELECTION_SYNOPSIS} --reason TEXT [--actor NAME] [--yes | --preview] [--json] ${CONNECTION_SYNOPSIS}`)}
${synopsis(`chokaq dlq edit <id> [--payload JSON [--unchecked]] [--tags T | --clear-tags] [--reason TEXT] [--actor NAME] [--json] ${CONNECTION_SYNOPSIS}`)}

Triage and repair of the dead-letter queue. 'groups' lists error groups, largest first; 'list'
pages DLQ jobs. 'resurrect' and 'purge' preview the jobs a SELECTION takes (count and sample),
ask you to type the count (or take --yes), then run as a durable bulk action with a progress
bar; Ctrl-C stops it between two batches. 'edit' changes one DLQ job in place.
SELECTION is --id ID (repeatable), --flow ID (the dead jobs of the workflow job ID belongs to,
as 'chokaq jobs flow' shows it), --group FP, filter flags, or --all for the whole DLQ.
  --reason TEXT        why, for the audit trail (required by resurrect and purge)
  --actor NAME         who, for the audit trail (default: cli:user@host)
  --patch JSON         resurrect: a JSON merge patch applied to each payload (RFC 7386)
  --priority N         resurrect: priority of the resurrected jobs (default 10)
  --set-tags T         resurrect: new tags of the resurrected jobs
  --payload JSON       edit: the new payload
  --unchecked          with --patch or --payload: store payloads of job types without a
                       definition here (no --module) unchecked; without it they are refused
                       (checked by the type's schema where --module defines it)
  --tags T             edit: new tags
  --clear-tags         edit: remove the tags
  --yes                run without asking
  --preview            show what would be taken and stop
${PAGE_USAGE}
Filters (list, and SELECTION):
${FILTER_USAGE.split('\n').slice(1).join('\n')}
Store:
${CONNECTION_USAGE}`;

const ACTION_OPTIONS = {
  ...CONNECTION_OPTIONS,
  ...FILTERS_BUT_STATE,
  ...PAGE_OPTIONS,
  id: { type: 'string', multiple: true },
  flow: { type: 'string' },
  all: { type: 'boolean', default: false },
  reason: { type: 'string' },
  actor: { type: 'string' },
  patch: { type: 'string' },
  priority: { type: 'string' },
  'set-tags': { type: 'string' },
  unchecked: { type: 'boolean' },
  yes: { type: 'boolean', default: false },
  preview: { type: 'boolean', default: false },
} as const;

/** `chokaq dlq …`. Resolves to the exit code. */
export async function dlqCommand(
  args: string[],
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'groups':
      return groups(rest, io);
    case 'list': {
      const { values } = parseFlags({
        args: rest,
        options: { ...CONNECTION_OPTIONS, ...FILTERS_BUT_STATE, ...PAGE_OPTIONS },
      });
      const query = { ...pageQuery(values), state: 'dead' as const };
      return withSession(values, io, (chokaq) => printPage(chokaq, query, values.json, io));
    }
    case 'resurrect':
    case 'purge':
      return bulk(sub, rest, io, stopSignal);
    case 'edit':
      return edit(rest, io);
    default:
      throw subcommandError('dlq', sub, ['groups', 'list', 'resurrect', 'purge', 'edit']);
  }
}

async function groups(args: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags({
    args,
    options: {
      ...CONNECTION_OPTIONS,
      queue: { type: 'string', multiple: true },
      type: { type: 'string', multiple: true },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const limit = numberFlag(values.limit, '--limit');
  return withSession(values, io, async (chokaq) => {
    const found = await chokaq.dlq.groups({
      ...(values.queue ? { queue: values.queue } : {}),
      ...(values.type ? { type: values.type } : {}),
      ...(limit === undefined ? {} : { limit }),
    });
    if (found.length === 0 && values.queue !== undefined)
      await requireKnownQueues(chokaq, values.queue);
    if (values.json) io.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
    else if (found.length > 0) io.stdout.write(groupTable(found));
    else if (values.queue === undefined && values.type === undefined)
      io.stderr.write('the DLQ is empty\n');
    else {
      const filters = [
        ...(values.queue ?? []).map((queue) => `--queue ${queue}`),
        ...(values.type ?? []).map((type) => `--type ${type}`),
      ];
      io.stderr.write(`no DLQ job matches ${filters.join(' ')}\n`);
    }
    return 0;
  });
}

/**
 * A queue no job, worker or control has ever named is a typo, not an empty DLQ.
 * @throws CliError naming the unknown queue, the nearest known one and every known one.
 */
async function requireKnownQueues(chokaq: ChokaQ, queues: readonly string[]): Promise<void> {
  const [listed, stats] = await Promise.all([chokaq.queues.list(), chokaq.queues.stats()]);
  const known = [...new Set([...listed.map((q) => q.name), ...stats.map((q) => q.queue)])].sort();
  const unknown = queues.find((queue) => !known.includes(queue));
  if (unknown === undefined) return;
  throw new CliError(
    `--queue: unknown queue '${unknown}'${didYouMean(unknown, known)}; ` +
      (known.length === 0 ? 'this store has no queue yet' : `known queues: ${known.join(', ')}`),
  );
}

async function bulk(
  verb: 'resurrect' | 'purge',
  args: string[],
  io: CliIo,
  stopSignal: AbortSignal | undefined,
): Promise<number> {
  const { values } = parseFlags({ args, options: ACTION_OPTIONS, strict: true });
  const edit = verb === 'resurrect' ? editOf(values) : undefined;
  if (verb === 'purge') refuseEditFlags(values);
  const request: BulkRequest =
    edit === undefined
      ? { action: verb, target: targetOf(values) }
      : { action: 'edit-resurrect', target: targetOf(values), edit };
  return withSession(
    values,
    io,
    (chokaq: ChokaQ) =>
      bulkFlow(
        chokaq,
        request,
        {
          actor: values.actor,
          reason: values.reason,
          yes: values.yes,
          previewOnly: values.preview,
          json: values.json,
          verb,
        },
        io,
        stopSignal,
      ),
    { runsBulk: !values.preview },
  );
}

/**
 * The jobs a bulk command takes: listed ids, a flow's, an error group, filters, or (`--all`)
 * every one.
 */
function targetOf(
  values: FilterValues & { id?: string[] | undefined; flow?: string | undefined; all: boolean },
): BulkTarget {
  const filtered = hasFilter(values);
  const given = [values.id !== undefined, values.flow !== undefined, filtered, values.all].filter(
    Boolean,
  ).length;
  if (given !== 1) {
    throw new CliError(
      given === 0
        ? 'say which jobs: --id ID, --flow ID, --group FP, filter flags, or --all for the whole DLQ'
        : 'give only one of --id, --flow, filter flags (with --group) and --all',
    );
  }
  if (values.id !== undefined) return { ids: values.id };
  if (values.flow !== undefined) return { flow: values.flow };
  const query = queryFrom(values);
  if (Object.keys(query).length === 1 && query.errorGroup !== undefined)
    return { errorGroup: query.errorGroup };
  return { query };
}

/** The edit of `resurrect --patch/--priority/--set-tags`, or `undefined` for a plain resurrect. */
function editOf(values: {
  patch?: string | undefined;
  priority?: string | undefined;
  'set-tags'?: string | undefined;
  unchecked?: boolean | undefined;
}): BulkEdit | undefined {
  const edit: BulkEdit = {};
  if (values.patch !== undefined) edit.patch = jsonFlag(values.patch, '--patch');
  if (values.unchecked === true) edit.unchecked = true;
  const priority = numberFlag(values.priority, '--priority');
  if (priority !== undefined) edit.priority = priority;
  if (values['set-tags'] !== undefined) edit.tags = values['set-tags'];
  return Object.keys(edit).length === 0 ? undefined : edit;
}

function refuseEditFlags(values: Record<string, unknown>): void {
  const given = ['patch', 'priority', 'set-tags', 'unchecked'].filter(
    (flag) => values[flag] !== undefined,
  );
  if (given.length > 0) throw new CliError(`purge takes no --${given.join(', --')}`);
}

async function edit(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags({
    args,
    options: {
      ...SINGLE_ACTION_OPTIONS,
      payload: { type: 'string' },
      tags: { type: 'string' },
      'clear-tags': { type: 'boolean', default: false },
      unchecked: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  const id = onlyOne(positionals, 'dlq edit', 'job id');
  if (values.tags !== undefined && values['clear-tags'])
    throw new CliError('give --tags or --clear-tags, not both');
  const change: DeadJobEdit = { actor: values.actor ?? defaultActor() };
  if (values.reason !== undefined) change.reason = values.reason;
  if (values.payload !== undefined) change.payload = jsonFlag(values.payload, '--payload');
  if (values.unchecked) change.unchecked = true;
  if (values.tags !== undefined) change.tags = values.tags;
  if (values['clear-tags']) change.tags = null;
  if (change.payload === undefined && change.tags === undefined)
    throw new CliError('dlq edit needs --payload, --tags or --clear-tags');
  return withSession(values, io, async (chokaq) => {
    const edited = await chokaq.dlq.edit(id, change);
    if (!edited) {
      io.stderr.write(`no job ${id} in the DLQ; nothing changed\n`);
      return 1;
    }
    const detail = await chokaq.jobs.get(id);
    if (values.json) io.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
    else io.stderr.write(`edited ${id}; resurrect it with 'chokaq dlq resurrect --id ${id}'\n`);
    return 0;
  });
}
