/**
 * A bulk action from the terminal: preview (count and sample), a typed confirmation (the count,
 * or `--yes`), the durable run with a progress bar, and the final counts. The first Ctrl-C stops
 * the action between two batches (no job half-moved); its record keeps what was done.
 */
import { userInfo, hostname } from 'node:os';
import type { ChokaQ } from '../../chokaq.js';
import type { BulkRequest } from '../../operator/bulk-input.js';
import type { BulkSelection } from '../../operator/bulk.js';
import type { BulkAction } from '../../storage/bulk.js';
import { CliError, type CliIo } from '../io.js';
import { confirmCount } from './confirm.js';
import { bulkLine, jobTable } from './render.js';

/** How often the progress is read back while the action runs. */
const PROGRESS_POLL_MS = 200;

/** Width of the progress bar, in characters. */
const BAR_WIDTH = 30;

/** What a bulk command was told besides the selection. */
export interface BulkFlowOptions {
  actor: string | undefined;
  reason: string | undefined;
  /** Run without asking. */
  yes: boolean;
  /** Show the preview and stop. */
  previewOnly: boolean;
  json: boolean;
  /** The verb the confirmation names: `resurrect`, `purge`, … */
  verb: string;
}

/** The actor a command records when `--actor` is not given: `cli:user@host`. */
export function defaultActor(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No user name for this uid (a container): keep 'unknown'.
  }
  return `cli:${user}@${hostname()}`.slice(0, 100);
}

/** Runs one bulk action to its end. Resolves to the exit code: 0 when it succeeded. */
export async function bulkFlow(
  chokaq: ChokaQ,
  request: BulkRequest,
  options: BulkFlowOptions,
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  if (!options.previewOnly && options.reason === undefined) {
    throw new CliError(
      `--reason is required: say why you ${options.verb} these jobs, for the audit trail`,
    );
  }
  const actor = options.actor ?? defaultActor();
  const say = (text: string) => io.stderr.write(text);
  if (options.previewOnly) {
    // A preview only reads: no bulk action is recorded for it.
    const selection = await chokaq.bulk.select(request);
    showSelection(selection, options, io);
    say(`${jobCount(selection.count)} to ${options.verb}\n`);
    if (options.json) io.stdout.write(`${JSON.stringify(selection, null, 2)}\n`);
    if (selection.count === 0) say('nothing to do\n');
    return 0;
  }
  const preview = await chokaq.bulk.preview(request);
  const { token, ...shown } = preview;
  showSelection(preview, options, io);
  say(`${jobCount(preview.count)} to ${options.verb} (bulk action ${preview.id})\n`);
  if (preview.count === 0) {
    if (options.json) io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    await chokaq.bulk.cancel(preview.id, { actor });
    say('nothing to do\n');
    return 0;
  }
  if (!options.yes && !(await confirmCount(preview.count, options.verb, io, stopSignal))) {
    await chokaq.bulk.cancel(preview.id, { actor });
    say('not confirmed; nothing changed\n');
    return 1;
  }
  await chokaq.bulk.run(token, { actor, reason: options.reason! });
  const final = await watch(chokaq, preview.id, actor, io, stopSignal);
  if (options.json) io.stdout.write(`${JSON.stringify(final, null, 2)}\n`);
  else say(`${bulkLine(final)}\n`);
  if (final.skipped > 0 && !options.json) {
    const skips = await chokaq.bulk.skipped(final.id, { limit: 20 });
    for (const skip of skips) say(`  skipped ${skip.jobId}: ${skip.note}\n`);
    if (final.skipped > skips.length) say(`  … and ${final.skipped - skips.length} more\n`);
  }
  if (final.status === 'failed') say(`the action failed: ${final.error ?? 'unknown error'}\n`);
  return final.status === 'succeeded' ? 0 : 1;
}

/** "1 job", "3 jobs". */
function jobCount(count: number): string {
  return `${count} job${count === 1 ? '' : 's'}`;
}

/** The sample of a selection and the ids left out, unless the output is JSON. */
function showSelection(selection: BulkSelection, options: BulkFlowOptions, io: CliIo): void {
  if (options.json) return;
  if (selection.sample.length > 0) {
    io.stdout.write(jobTable(selection.sample));
    if (selection.count > selection.sample.length)
      io.stdout.write(`… and ${selection.count - selection.sample.length} more\n`);
  }
  if (selection.notFound.length > 0) {
    io.stderr.write(
      `not where '${options.verb}' applies, left out: ${selection.notFound.join(', ')}\n`,
    );
  }
}

/** Follows a running action to its end, drawing progress; a stop requests its cancel. */
async function watch(
  chokaq: ChokaQ,
  id: string,
  actor: string,
  io: CliIo,
  stopSignal: AbortSignal | undefined,
): Promise<BulkAction> {
  const bar = progressBar(io);
  let cancelAsked = false;
  for (;;) {
    const action = await chokaq.bulk.get(id);
    if (action === null) throw new CliError(`bulk action ${id} disappeared`, 1);
    bar.draw(action);
    if (action.status !== 'running' && action.status !== 'previewed') {
      bar.end();
      return action;
    }
    if (stopSignal?.aborted && !cancelAsked) {
      cancelAsked = true;
      io.stderr.write('\nstopping after the current batch…\n');
      await chokaq.bulk.cancel(id, { actor });
    }
    await new Promise((resolve) => setTimeout(resolve, PROGRESS_POLL_MS));
  }
}

/** A progress bar on a terminal; on a pipe, a line at every tenth of the way. */
function progressBar(io: CliIo): { draw(action: BulkAction): void; end(): void } {
  const tty = io.stderr.isTTY === true;
  let lastTenth = -1;
  let drawn = false;
  return {
    draw(action) {
      const share = action.total === 0 ? 1 : action.done / action.total;
      if (tty) {
        const filled = Math.round(share * BAR_WIDTH);
        const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
        io.stderr.write(`\r${bar} ${Math.floor(share * 100)}% ${action.done}/${action.total}`);
        drawn = true;
        return;
      }
      const tenth = Math.floor(share * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        io.stderr.write(`progress ${action.done}/${action.total}\n`);
      }
    },
    end() {
      if (drawn) io.stderr.write('\n');
    },
  };
}
