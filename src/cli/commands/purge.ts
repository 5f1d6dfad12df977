import type { RetentionEntry } from '../../operator/retention-api.js';
import { CliError, type CliIo } from '../io.js';
import { defaultActor } from '../operator/bulk-flow.js';
import { confirmCount } from '../operator/confirm.js';
import { table } from '../operator/render.js';
import {
  CONNECTION_OPTIONS,
  CONNECTION_SYNOPSIS,
  CONNECTION_USAGE,
  withSession,
} from '../operator/session.js';
import { synopsis } from '../usage.js';
import { parseFlags } from '../args.js';

/** Usage text of `chokaq purge`. */
export const PURGE_USAGE = `${synopsis(`chokaq purge [--archive AGE] [--dlq AGE] [--metric-buckets AGE] [--audit AGE] [--bulk-actions AGE] [--schedule-ticks AGE] [--reason TEXT] [--actor NAME] [--dry-run | --yes] [--json] ${CONNECTION_SYNOPSIS}`)}

Deletes rows past their retention now, in the same bounded batches as the background purge:
succeeded jobs, dead jobs, metric buckets, audit entries, ended bulk actions and fired schedule
ticks. It shows how many rows each rule takes, asks you to type the total (or takes --yes), then
purges. Without its flag a table keeps the default age: archive 7d, dlq 30d, metric buckets 2d,
audit 90d, bulk actions 30d, schedule ticks 30d.
  --archive AGE        succeeded jobs finished longer ago than AGE ('7d', '12h'; 'keep': none,
                       at least 1s)
  --dlq AGE            dead jobs that failed longer ago
  --metric-buckets AGE per-second outcome buckets
  --audit AGE          operator audit entries
  --bulk-actions AGE   bulk actions that ended, with their items
  --schedule-ticks AGE fired ticks of schedules (their jobs stay)
  --reason TEXT        why, for the audit trail (the purge is recorded as retention-purge)
  --actor NAME         who, for the audit trail (default: cli:user@host)
  --dry-run            show the counts and stop
  --yes                purge without asking
  --json               print the counts (and what was purged) as JSON
Store:
${CONNECTION_USAGE}`;

const AGE_FLAGS = {
  archive: 'archive',
  dlq: 'dlq',
  'metric-buckets': 'metricBuckets',
  audit: 'audit',
  'bulk-actions': 'bulkActions',
  'schedule-ticks': 'scheduleTicks',
} as const;

/** `chokaq purge`. Resolves to the exit code. */
export async function purgeCommand(
  args: string[],
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  const { values } = parseFlags({
    args,
    options: {
      ...CONNECTION_OPTIONS,
      archive: { type: 'string' },
      dlq: { type: 'string' },
      'metric-buckets': { type: 'string' },
      audit: { type: 'string' },
      'bulk-actions': { type: 'string' },
      'schedule-ticks': { type: 'string' },
      reason: { type: 'string' },
      actor: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      yes: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  if (values['dry-run'] && values.yes) throw new CliError('give --dry-run or --yes, not both');
  const ages: Record<string, string | null> = {};
  for (const [flag, key] of Object.entries(AGE_FLAGS)) {
    const value = values[flag as keyof typeof AGE_FLAGS];
    if (value !== undefined) ages[key] = value === 'keep' ? null : value;
  }
  return withSession(values, io, async (chokaq) => {
    const preview = await chokaq.retention.preview(ages);
    const total = preview.reduce((n, e) => n + e.rows, 0);
    if (values.json && (values['dry-run'] || total === 0)) {
      io.stdout.write(`${JSON.stringify({ preview }, null, 2)}\n`);
    } else if (!values.json) io.stdout.write(entriesTable(preview, 'WOULD GO'));
    if (values['dry-run'] || total === 0) {
      if (total === 0) io.stderr.write('nothing to purge\n');
      return 0;
    }
    if (!values.yes && !(await confirmCount(total, 'purge', io, stopSignal))) {
      io.stderr.write('not confirmed; nothing changed\n');
      return 1;
    }
    const purged = await chokaq.retention.purge(ages, {
      actor: values.actor ?? defaultActor(),
      ...(values.reason === undefined ? {} : { reason: values.reason }),
    });
    if (!purged.led) {
      io.stderr.write('another process is purging now (it holds the retention lease); try later\n');
      return 1;
    }
    if (values.json)
      io.stdout.write(`${JSON.stringify({ preview, purged: purged.entries }, null, 2)}\n`);
    else io.stdout.write(entriesTable(purged.entries, 'PURGED'));
    io.stderr.write(`purged ${purged.entries.reduce((n, e) => n + e.rows, 0)} rows\n`);
    return 0;
  });
}

/** Rules as a table: table, queue, age and rows. */
function entriesTable(entries: readonly RetentionEntry[], rows: string): string {
  return table(
    ['TABLE', 'QUEUE', 'OLDER THAN', rows],
    entries.map((e) => [e.table, e.queue ?? '(all)', age(e.olderThanMs), String(e.rows)]),
  );
}

/** An age in the largest whole unit: `7d`, `12h`, `90s`. */
function age(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
