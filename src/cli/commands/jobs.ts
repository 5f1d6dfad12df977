import { parseArgs } from 'node:util';
import { CliError, subcommandError, type CliIo } from '../io.js';
import { FILTER_OPTIONS, FILTER_USAGE } from '../operator/filters.js';
import { PAGE_OPTIONS, PAGE_USAGE, pageQuery, printPage } from '../operator/list.js';
import { jobDetailText } from '../operator/render.js';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withSession } from '../operator/session.js';

/** Usage text of `chokaq jobs`. */
export const JOBS_USAGE = `chokaq jobs list [filters] [--sort KEY] [--order asc|desc] [--limit N] [--cursor C] [--json]
chokaq jobs show <id> [--json]

Lists jobs wherever they are (pending, running, archive, DLQ), or shows one with its timeline.
${PAGE_USAGE}
Filters:
${FILTER_USAGE}
Store:
${CONNECTION_USAGE}`;

/** `chokaq jobs list|show`. Resolves to the exit code. */
export async function jobsCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list') {
    const { values } = parseArgs({
      args: rest,
      options: { ...CONNECTION_OPTIONS, ...FILTER_OPTIONS, ...PAGE_OPTIONS },
      strict: true,
    });
    const query = pageQuery(values);
    return withSession(values, io, (chokaq) => printPage(chokaq, query, values.json, io));
  }
  if (sub === 'show') {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...CONNECTION_OPTIONS, json: { type: 'boolean', default: false } },
      allowPositionals: true,
      strict: true,
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
  throw subcommandError('jobs', sub, ['list', 'show']);
}
