import type { StatusReport } from '../../operator/status.js';
import type { CliIo } from '../io.js';
import { numberFlag } from '../operator/filters.js';
import { healthText } from '../operator/health-text.js';
import { groupTable, span, table, time } from '../operator/render.js';
import {
  CONNECTION_OPTIONS,
  CONNECTION_SYNOPSIS,
  CONNECTION_USAGE,
  withSession,
} from '../operator/session.js';
import { synopsis } from '../usage.js';
import { CliError } from '../io.js';
import { parseFlags } from '../args.js';

/** Usage text of `chokaq status`. */
export const STATUS_USAGE = `${synopsis(`chokaq status [--watch [--interval SEC]] [--json] ${CONNECTION_SYNOPSIS}`)}

Shows every queue (paused or not; due, scheduled and running jobs; the lag of its
longest-waiting due job; DLQ size; jobs per second and failure rate over the last minute and
five minutes), the health of the whole system (what is not ok: the database, a worker silent
or stalled, a queue's lag past the thresholds its workers run with) and the due jobs no live
worker runs (by queue and type, with why), the five largest DLQ error groups, the circuits
that are open or half-open (and in which workers), the worker processes alive, and flow
control: the five busiest concurrency keys (running/limit, pending) and the five most
throttled rate buckets.
  --watch              redraw every --interval seconds until Ctrl-C
  --interval SEC       seconds between redraws, 1-3600 (default 2)
  --json               print the report as JSON, the health as its 'health' (with --watch:
                       one line per report)
Store:
${CONNECTION_USAGE}`;

/** `chokaq status`. Resolves to the exit code. */
export async function statusCommand(
  args: string[],
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  const { values } = parseFlags({
    args,
    options: {
      ...CONNECTION_OPTIONS,
      watch: { type: 'boolean', default: false },
      interval: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const seconds = numberFlag(values.interval, '--interval') ?? 2;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600)
    throw new CliError(
      `--interval must be a whole number of seconds from 1 to 3600, got '${values.interval}'`,
    );
  return withSession(values, io, async (chokaq) => {
    for (;;) {
      const [report, health] = await Promise.all([chokaq.status(), chokaq.health.system()]);
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ ...report, health }, null, values.watch ? 0 : 2)}\n`);
      } else {
        if (values.watch && io.stdout.isTTY) io.stdout.write('\x1b[2J\x1b[H');
        io.stdout.write(statusText(report, healthText(health)));
      }
      if (!values.watch) return 0;
      const stopped = await waitOrStop(seconds * 1000, stopSignal);
      if (stopped) return 0;
    }
  });
}

/** Waits `ms`; resolves `true` at once when `signal` aborts (or already did). */
function waitOrStop(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const percent = (rate: number | null) => (rate === null ? '-' : `${(rate * 100).toFixed(1)}%`);

/**
 * The report as tables: queues, then `health` (the system's health, as `healthText` wrote it),
 * error groups, circuits that are not closed, workers, concurrency keys and rate buckets.
 */
export function statusText(report: StatusReport, health: string): string {
  const queues = table(
    [
      'QUEUE',
      'STATE',
      'DUE',
      'SCHEDULED',
      'RUNNING',
      'LAG',
      'DLQ',
      '1M JOBS/S',
      '1M FAILED',
      '5M JOBS/S',
      '5M FAILED',
    ],
    report.queues.map((q) => [
      q.queue,
      !q.active ? 'inactive' : q.paused ? 'paused' : 'active',
      String(q.due),
      String(q.scheduled),
      String(q.running),
      q.lagMs === 0 ? '-' : span(q.lagMs),
      String(q.dead),
      q.lastMinute.jobsPerSecond.toFixed(1),
      percent(q.lastMinute.failureRate),
      q.lastFiveMinutes.jobsPerSecond.toFixed(1),
      percent(q.lastFiveMinutes.failureRate),
    ]),
  );
  const groups =
    report.errorGroups.length === 0 ? 'the DLQ is empty\n' : groupTable(report.errorGroups);
  const workers =
    report.workers.length === 0
      ? 'no worker alive\n'
      : table(
          ['WORKER', 'HOST', 'PID', 'RUNNING', 'STARTED', 'LAST SEEN', 'OPEN CIRCUITS'],
          report.workers.map((w) => [
            w.id,
            w.host,
            String(w.pid),
            `${w.running}/${w.concurrency}`,
            time(w.startedAt),
            `${span(Math.max(0, report.at.getTime() - w.lastSeenAt.getTime()))} ago`,
            w.circuits.map((c) => `${c.type} (${c.state})`).join(', ') || '-',
          ]),
        );
  const circuits =
    report.circuits.length === 0
      ? 'every circuit is closed\n'
      : table(
          ['TYPE', 'STATE', 'WORKERS'],
          report.circuits.map((c) => [c.type, c.state, c.workers.join(', ')]),
        );
  return `${time(report.at)}\n\n${queues}\n${health}\nerror groups\n${groups}\ncircuits\n${circuits}\nworkers\n${workers}\n${flowText(report)}`;
}

/** The flow-control part of the report: busiest concurrency keys, most throttled buckets. */
function flowText(report: StatusReport): string {
  const keys =
    report.keys.length === 0
      ? 'no concurrency key in use\n'
      : table(
          ['QUEUE', 'KEY', 'RUNNING', 'PENDING'],
          report.keys.map((k) => [
            k.queue,
            k.key,
            k.limit === null ? String(k.running) : `${k.running}/${k.limit}`,
            String(k.pending),
          ]),
        );
  const buckets =
    report.rateBuckets.length === 0
      ? 'no rate bucket\n'
      : table(
          ['BUCKET', 'LIMIT', 'TOKENS', 'BLOCKED UNTIL', 'GRANTED', 'THROTTLED'],
          report.rateBuckets.map((b) => [
            b.name,
            `${b.limit}/${span(b.perMs)}`,
            b.tokens.toFixed(1),
            b.blockedUntil === null ? '-' : time(b.blockedUntil),
            String(b.grantedTotal),
            String(b.throttledTotal),
          ]),
        );
  return `concurrency keys\n${keys}\nrate buckets\n${buckets}`;
}
