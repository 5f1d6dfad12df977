/**
 * `chokaq schedules list|pause|resume|trigger`: the recurring jobs of a store with their next
 * fire time and last run, and the operator actions on one of them, through `chokaq.schedules`.
 */
import type { ScheduleInfo } from '../../schedule/info.js';
import { subcommandError, type CliIo } from '../io.js';
import { SINGLE_ACTION_OPTIONS, actorOf, onlyOne } from '../operator/action-flags.js';
import { table, time } from '../operator/render.js';
import {
  CONNECTION_OPTIONS,
  CONNECTION_SYNOPSIS,
  CONNECTION_USAGE,
  withSession,
} from '../operator/session.js';
import { synopsis } from '../usage.js';
import { parseFlags } from '../args.js';

/** Usage text of `chokaq schedules`. */
export const SCHEDULES_USAGE = `${synopsis(`chokaq schedules list [--json] ${CONNECTION_SYNOPSIS}`)}
${synopsis(`chokaq schedules pause|resume|trigger <name> [--reason TEXT] [--actor NAME] [--json] ${CONNECTION_SYNOPSIS}`)}

Lists the recurring jobs with their next fire time and last run, pauses or resumes one in every
process, or enqueues its job now (a schedule whose payload is a function needs --module with the
module that defines it).
  --reason TEXT        why, for the audit trail
  --actor NAME         who, for the audit trail (default: cli:user@host)
  --json               print the API's result as JSON
Store:
${CONNECTION_USAGE}`;

const SUBCOMMANDS = ['list', 'pause', 'resume', 'trigger'] as const;

/** When a schedule fires, as people read it. */
function when(info: ScheduleInfo): string {
  const rule = info.cron !== null ? info.cron : `every ${(info.everyMs ?? 0) / 1000}s`;
  return info.timeZone === 'UTC' ? rule : `${rule} (${info.timeZone})`;
}

/** The last run: its tick, outcome and where its job is now. */
function lastRun(info: ScheduleInfo): string {
  const run = info.lastRun;
  if (run === null) return '-';
  const outcome = run.jobState === null ? run.outcome : `${run.outcome}, ${run.jobState}`;
  return `${time(run.tickAt)}${run.manual ? ' (trigger)' : ''} ${outcome}`;
}

/** Schedules as a table. */
export function scheduleTable(schedules: readonly ScheduleInfo[]): string {
  return table(
    ['NAME', 'WHEN', 'TYPE', 'STATE', 'NEXT', 'LAST RUN'],
    schedules.map((info) => [
      info.name,
      when(info),
      info.type,
      info.paused ? 'paused' : 'active',
      time(info.nextRuns[0] ?? null),
      lastRun(info),
    ]),
  );
}

/** `chokaq schedules …`. Resolves to the exit code. */
export async function schedulesCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list') {
    const { values } = parseFlags({
      args: rest,
      options: { ...CONNECTION_OPTIONS, json: { type: 'boolean', default: false } },
    });
    return withSession(values, io, async (chokaq) => {
      const schedules = await chokaq.schedules.list();
      if (values.json) io.stdout.write(`${JSON.stringify(schedules, null, 2)}\n`);
      else if (schedules.length === 0) io.stderr.write('no schedules\n');
      else io.stdout.write(scheduleTable(schedules));
      return 0;
    });
  }
  if (sub !== 'pause' && sub !== 'resume' && sub !== 'trigger') {
    throw subcommandError('schedules', sub, SUBCOMMANDS);
  }
  const { values, positionals } = parseFlags({
    args: rest,
    options: SINGLE_ACTION_OPTIONS,
    allowPositionals: true,
  });
  const name = onlyOne(positionals, `schedules ${sub}`, 'schedule name');
  const who = actorOf(values);
  return withSession(values, io, async (chokaq) => {
    if (sub === 'trigger') {
      const fired = await chokaq.schedules.trigger(name, who);
      io.stdout.write(
        values.json
          ? `${JSON.stringify(fired, null, 2)}\n`
          : `enqueued job ${fired.jobId} for ${name} (tick ${time(fired.tickAt)})\n`,
      );
      return 0;
    }
    const info =
      sub === 'pause'
        ? await chokaq.schedules.pause(name, who)
        : await chokaq.schedules.resume(name, who);
    io.stdout.write(
      values.json
        ? `${JSON.stringify(info, null, 2)}\n`
        : `${name} is ${info.paused ? 'paused' : `active; next run ${time(info.nextRuns[0] ?? null)}`}\n`,
    );
    return 0;
  });
}
