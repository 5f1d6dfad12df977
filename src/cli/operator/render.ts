/**
 * How the operator commands print for people: aligned tables, times in UTC, a job's detail with
 * its timeline. (`--json` prints the API's own results instead.)
 */
import type { BatchMembership } from '../../storage/batch-store.js';
import type { JobDetail } from '../../operator/jobs.js';
import type { JobStep, TimelineEntry } from '../../operator/timeline.js';
import type { BulkAction } from '../../storage/bulk.js';
import type { ErrorGroup, JobSummary } from '../../storage/model.js';

/** A time as `2026-12-01 22:44:41Z`; `-` for none. */
export function time(date: Date | null): string {
  return date === null ? '-' : `${date.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** A duration for people: `850ms`, `12.3s`, `4m 05s`, `2h 10m`. */
export function span(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60)
    return `${minutes}m ${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** `text` cut to `width` characters, with an ellipsis when cut. */
function cut(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/** Rows under a header, each column as wide as its widest cell; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** A page of jobs as a table. */
export function jobTable(jobs: readonly JobSummary[]): string {
  return table(
    ['ID', 'STATE', 'QUEUE', 'TYPE', 'ATTEMPTS', 'CREATED', 'FINISHED', 'ERROR'],
    jobs.map((job) => [
      job.id,
      job.reason === null ? job.state : `${job.state} (${job.reason})`,
      cut(job.queue, 24),
      cut(job.type, 32),
      String(job.attempts),
      time(job.createdAt),
      time(job.finishedAt),
      cut(job.error ?? '', 60),
    ]),
  );
}

/** DLQ error groups as a table, with each group's message and frame below its row. */
export function groupTable(groups: readonly ErrorGroup[]): string {
  return table(
    ['GROUP', 'COUNT', 'FIRST SEEN', 'LAST SEEN', 'QUEUES', 'TYPES', 'ERROR'],
    groups.map((group) => [
      group.fingerprint,
      String(group.count),
      time(group.firstSeen),
      time(group.lastSeen),
      cut(group.queues.join(','), 24),
      cut(group.types.join(','), 32),
      cut(`${group.errorClass}: ${group.message}${group.frame ? ` at ${group.frame}` : ''}`, 100),
    ]),
  );
}

/** A JSON text, indented when it parses; as it is otherwise. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** `text` with every line indented by `pad`. */
function indent(text: string, pad = '    '): string {
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
}

/** Longest step result a timeline line shows, in characters. */
const STEP_RESULT_WIDTH = 60;

/** A durable step in a line: its kind, name and state, with its result or what it waits for. */
function stepText(step: JobStep): string {
  const name = JSON.stringify(step.name);
  const until = step.wakeAt ? ` until ${time(step.wakeAt)}` : '';
  if (step.kind === 'sleep') return `sleep ${name}: ${step.state}${until}`;
  const result = step.result === null ? '' : ` → ${cut(step.result, STEP_RESULT_WIDTH)}`;
  if (step.kind === 'event') {
    const topic = JSON.stringify(step.topic);
    return step.state === 'waiting'
      ? `wait ${name}: waiting for an event on ${topic}${until}`
      : `wait ${name} on ${topic}: done${result}`;
  }
  return `step ${name}: done${result}`;
}

/** One timeline entry as a line (and the error of a failed run below it). */
function timelineLine(entry: TimelineEntry): string {
  const at = time(entry.at);
  switch (entry.kind) {
    case 'enqueued':
      return `  ${at}  enqueued${entry.actor ? ` by ${entry.actor}` : ''}`;
    case 'action':
      return `  ${at}  ${entry.action} by ${entry.actor}`;
    case 'cancel-requested':
      return `  ${at}  cancel requested${entry.actor ? ` by ${entry.actor}` : ''}`;
    case 'step':
      return `  ${at}  ${stepText(entry.step)}`;
    case 'dead': {
      const head = `  ${at}  dead (${entry.reason}) without running`;
      return entry.error ? `${head}\n${'      ' + (entry.error.split('\n', 1)[0] ?? '')}` : head;
    }
    case 'run': {
      const ended = entry.endedAt ? `, ended ${time(entry.endedAt)}` : '';
      const reason = entry.reason ? ` (${entry.reason})` : '';
      const worker = entry.workerId ? ` on ${entry.workerId}` : '';
      const head = `  ${at}  run ${entry.attempt}: ${entry.outcome}${reason}${worker}${ended}`;
      return entry.error ? `${head}\n${'      ' + (entry.error.split('\n', 1)[0] ?? '')}` : head;
    }
  }
}

/** A job's detail: its fields, payload, result or error, and timeline. */
export function jobDetailText(detail: JobDetail): string {
  const { found } = detail;
  const job = found.job;
  const fields: [string, string][] = [
    ['id', job.id],
    ['state', detail.state],
    ['queue', job.queue],
    ['type', job.type],
    ['tags', job.tags ?? '-'],
    ['attempts', String(job.attempts)],
    ['created', `${time(job.createdAt)}${job.createdBy ? ` by ${job.createdBy}` : ''}`],
  ];
  if (detail.batch !== null) fields.push(['batch', batchLine(detail.batch)]);
  if (found.where === 'hot') {
    fields.push(['priority', String(found.job.priority)], ['run at', time(found.job.runAt)]);
    if (found.job.workerId) fields.push(['worker', found.job.workerId]);
    if (found.job.progress !== null) fields.push(['progress', `${found.job.progress}%`]);
  } else if (found.where === 'archive') {
    fields.push(['finished', time(found.job.finishedAt)]);
    if (found.job.durationMs !== null)
      fields.push(['duration', `${found.job.durationMs.toFixed(1)} ms`]);
    if (found.job.note) fields.push(['note', found.job.note]);
  } else {
    fields.push(
      ['failed', time(found.job.failedAt)],
      ['reason', found.job.reason],
      ['group', found.job.fingerprint],
    );
    if (found.job.editedAt) fields.push(['edited', time(found.job.editedAt)]);
    if (found.job.progress !== null) fields.push(['progress', `${found.job.progress}%`]);
  }
  const width = Math.max(...fields.map(([name]) => name.length));
  let out = fields.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n') + '\n';
  out += `\npayload\n${indent(prettyJson(job.payload))}\n`;
  if (found.where === 'archive' && found.job.result !== null)
    out += `\nresult\n${indent(prettyJson(found.job.result))}\n`;
  const error =
    found.where === 'dlq'
      ? found.job.errorDetails
      : found.where === 'hot'
        ? found.job.lastError
        : null;
  if (error) out += `\n${found.where === 'dlq' ? 'error' : 'last error'}\n${indent(error)}\n`;
  if (detail.dependencies.length > 0) {
    const lines = detail.dependencies.map(
      (d) => `  ${d.id}  ${d.state}  (on death: ${d.onDeath})${d.reason ? `  ${d.reason}` : ''}`,
    );
    out += `\nwaits for\n${lines.join('\n')}\n`;
  }
  if (detail.dependents.length > 0) {
    out += `\nwaited for by\n${detail.dependents.map((id) => `  ${id}`).join('\n')}\n`;
  }
  out += `\ntimeline\n${detail.timeline.map(timelineLine).join('\n')}\n`;
  if (detail.runsNotKept > 0) out += `  (${detail.runsNotKept} earlier runs are no longer kept)\n`;
  return out;
}

/**
 * A job's batch in one line: its id, the job's role, the counts and which callbacks fired, as
 * `0193… (member): 7/10 succeeded, 1 died, 0 cancelled, 2 pending; success waiting, death fired`.
 */
export function batchLine({ batch, role }: BatchMembership): string {
  const callbacks = batch.callbacks
    .map((c) => `${c.kind} ${c.firedAt === null ? 'waiting' : 'fired'}`)
    .join(', ');
  return (
    `${batch.id} (${role === 'member' ? 'member' : `${role} callback`}): ` +
    `${batch.succeeded}/${batch.total} succeeded, ${batch.died} died, ` +
    `${batch.cancelled} cancelled, ${batch.pending} pending` +
    (callbacks === '' ? '' : `; ${callbacks}`)
  );
}

/** A bulk action's counts in one line. */
export function bulkLine(action: BulkAction): string {
  return `${action.status}: ${action.done}/${action.total} done, ${action.applied} applied, ${action.skipped} skipped`;
}
