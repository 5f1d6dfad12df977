import { CliError, subcommandError, type CliIo } from '../io.js';
import { FILTER_OPTIONS, FILTER_SYNOPSIS, FILTER_USAGE } from '../operator/filters.js';
import { synopsis } from '../usage.js';
import { PAGE_OPTIONS, PAGE_SYNOPSIS, PAGE_USAGE, pageQuery, printPage } from '../operator/list.js';
import { jobDetailText } from '../operator/render.js';
import { flowText } from '../operator/flow-text.js';
import { MAX_FLOW_NODES } from '../../operator/job-flow.js';
import {
  CONNECTION_OPTIONS,
  CONNECTION_SYNOPSIS,
  CONNECTION_USAGE,
  withSession,
} from '../operator/session.js';
import { parseFlags } from '../args.js';
import { SINGLE_ACTION_OPTIONS, actorOf, onlyOne } from '../operator/action-flags.js';

/** Usage text of `chokaq jobs`. */
export const JOBS_USAGE = `${synopsis(`chokaq jobs list ${FILTER_SYNOPSIS} ${PAGE_SYNOPSIS} ${CONNECTION_SYNOPSIS}`)}
${synopsis(`chokaq jobs show <id> [--json] ${CONNECTION_SYNOPSIS}`)}
${synopsis(`chokaq jobs flow <id> [--limit N] [--json] ${CONNECTION_SYNOPSIS}`)}
${synopsis(`chokaq jobs rerun <id> [--reason TEXT] [--actor NAME] [--json] ${CONNECTION_SYNOPSIS}`)}

Lists jobs wherever they are (pending, running, archive, DLQ), or shows one with its timeline.
'flow' shows the workflow a job belongs to: every job connected to it through dependencies,
layer by layer from the jobs that wait for nothing, each with its state and the jobs it waits
for (at most --limit jobs, 1-1000, default 1000: the nearest).
'rerun' runs a succeeded job again: a copy of the archived job under a new id, due now, audited
(the archived job stays).
${PAGE_USAGE}
Filters:
${FILTER_USAGE}
Store:
${CONNECTION_USAGE}`;

/** `chokaq jobs list|show|flow|rerun`. Resolves to the exit code. */
export async function jobsCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list') {
    const { values } = parseFlags({
      args: rest,
      options: { ...CONNECTION_OPTIONS, ...FILTER_OPTIONS, ...PAGE_OPTIONS },
    });
    const query = pageQuery(values);
    return withSession(values, io, (chokaq) => printPage(chokaq, query, values.json, io));
  }
  if (sub === 'show') {
    const { values, positionals } = parseFlags({
      args: rest,
      options: { ...CONNECTION_OPTIONS, json: { type: 'boolean', default: false } },
      allowPositionals: true,
    });
    const [id] = positionals;
    if (id === undefined || positionals.length > 1)
      throw new CliError('jobs show needs exactly one job id');
    return withSession(values, io, async (chokaq) => {
      const detail = await chokaq.jobs.get(id);
      if (detail === null) {
        io.stderr.write(`no job ${id} in the hot table, the archive or the DLQ\n`);
        return 1;
      }
      io.stdout.write(values.json ? `${JSON.stringify(detail, null, 2)}\n` : jobDetailText(detail));
      return 0;
    });
  }
  if (sub === 'flow') return flow(rest, io);
  if (sub === 'rerun') return rerun(rest, io);
  throw subcommandError('jobs', sub, ['list', 'show', 'flow', 'rerun']);
}

/** `chokaq jobs flow <id>`: the workflow of a job, read only. */
async function flow(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags({
    args,
    options: {
      ...CONNECTION_OPTIONS,
      json: { type: 'boolean', default: false },
      limit: { type: 'string' },
    },
    allowPositionals: true,
  });
  const id = onlyOne(positionals, 'jobs flow', 'job id');
  const limit = values.limit === undefined ? undefined : limitOf(values.limit);
  return withSession(values, io, async (chokaq) => {
    const found = await chokaq.jobs.flow(id, limit === undefined ? {} : { limit });
    if (found === null) {
      io.stderr.write(`no job ${id} in the hot table, the archive or the DLQ\n`);
      return 1;
    }
    io.stdout.write(values.json ? `${JSON.stringify(found, null, 2)}\n` : flowText(found));
    return 0;
  });
}

/** `--limit` as a number from 1 to {@link MAX_FLOW_NODES}, checked before the store opens. */
function limitOf(text: string): number {
  const limit = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_FLOW_NODES)) {
    throw new CliError(`--limit must be a whole number from 1 to ${MAX_FLOW_NODES}, got '${text}'`);
  }
  return limit;
}

/** `chokaq jobs rerun <id>`: enqueues a copy of a succeeded job. */
async function rerun(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags({
    args,
    options: SINGLE_ACTION_OPTIONS,
    allowPositionals: true,
  });
  const id = onlyOne(positionals, 'jobs rerun', 'job id');
  return withSession(values, io, async (chokaq) => {
    const result = await chokaq.jobs.rerun(id, actorOf(values));
    if (result === null) {
      io.stderr.write(`no succeeded job ${id} in the archive; nothing enqueued\n`);
      return 1;
    }
    if (values.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else io.stderr.write(`enqueued ${result.id}, a copy of ${result.from}\n`);
    return 0;
  });
}
