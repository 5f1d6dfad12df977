/**
 * A job's timeline, derived without extra writes: its own columns (created, current or final
 * run, cancel request) plus the bounded history the moving statements appended (earlier runs,
 * operator actions and cancels). A job moved to the DLQ without running then (cancelled while
 * pending or fetched, an open circuit) shows a `dead` step, not a run.
 */
import type { FailureReason, JobState } from '../job/state.js';
import type { FoundJob, HistoryRun } from '../storage/model.js';
import type { StepKind, StepRecord } from '../storage/step-store.js';

/** A recorded durable step (docs/workflows.md#durable-steps) as the operator sees it. */
export interface JobStep {
  name: string;
  kind: StepKind;
  /** `done`; `sleeping` (a sleep whose end has not come); `waiting` (an event wait not over). */
  state: 'done' | 'sleeping' | 'waiting';
  /** JSON text: a step's result, a wait's outcome (`{"received":…}`); `null` while not done. */
  result: string | null;
  /** The topic an event wait listens on; `null` for other kinds. */
  topic: string | null;
  /** A sleep's end or a wait's timeout; `null` for run steps. */
  wakeAt: Date | null;
  /** When a run first reached the step. */
  recordedAt: Date;
}

/** One step of a job's life, oldest first in {@link timelineOf}. */
export type TimelineEntry =
  | { kind: 'enqueued'; at: Date; actor: string | null }
  | {
      kind: 'run';
      at: Date;
      attempt: number;
      startedAt: Date | null;
      /** `null` while it runs. */
      endedAt: Date | null;
      workerId: string | null;
      outcome: HistoryRun['outcome'] | 'running' | 'succeeded';
      reason?: FailureReason;
      error: string | null;
    }
  | { kind: 'action'; at: Date; action: 'edit' | 'resurrect'; actor: string }
  | { kind: 'cancel-requested'; at: Date; actor: string | null }
  /** Moved to the DLQ without a run (cancelled while pending or fetched, an open circuit). */
  | { kind: 'dead'; at: Date; reason: FailureReason; error: string | null }
  /** A durable step, at the time a run first reached it. */
  | { kind: 'step'; at: Date; step: JobStep };

/** The state a found job is in. */
export function stateOf(found: FoundJob): JobState {
  if (found.where === 'archive') return 'succeeded';
  if (found.where === 'dlq') return 'dead';
  return found.job.state;
}

/** The timeline of a found job, oldest first. */
export function timelineOf(found: FoundJob): TimelineEntry[] {
  const { job } = found;
  const entries: TimelineEntry[] = [{ kind: 'enqueued', at: job.createdAt, actor: job.createdBy }];
  for (const item of job.history) {
    if (item.kind === 'action') {
      entries.push(
        item.action === 'cancel'
          ? { kind: 'cancel-requested', at: item.at, actor: item.actor }
          : { kind: 'action', at: item.at, action: item.action, actor: item.actor },
      );
    } else if (item.outcome === 'dead' && item.startedAt === null) {
      entries.push({
        kind: 'dead',
        at: item.endedAt,
        reason: item.reason ?? 'Fatal',
        error: item.error,
      });
    } else {
      entries.push({
        kind: 'run',
        at: item.startedAt ?? item.endedAt,
        attempt: item.attempt,
        startedAt: item.startedAt,
        endedAt: item.endedAt,
        workerId: item.workerId,
        outcome: item.outcome,
        ...(item.reason === undefined ? {} : { reason: item.reason }),
        error: item.error,
      });
    }
  }
  if (found.where === 'hot') {
    const hot = found.job;
    if (hot.state === 'processing' && hot.startedAt !== null) {
      entries.push({
        kind: 'run',
        at: hot.startedAt,
        attempt: hot.attempts,
        startedAt: hot.startedAt,
        endedAt: null,
        workerId: hot.workerId,
        outcome: 'running',
        error: null,
      });
    }
    if (hot.cancelRequestedAt !== null) {
      entries.push({
        kind: 'cancel-requested',
        at: hot.cancelRequestedAt,
        actor: hot.cancelRequestedBy,
      });
    }
  } else if (found.where === 'archive') {
    const done = found.job;
    entries.push({
      kind: 'run',
      at: done.startedAt ?? done.finishedAt,
      attempt: done.attempts,
      startedAt: done.startedAt,
      endedAt: done.finishedAt,
      workerId: done.workerId,
      outcome: 'succeeded',
      error: null,
    });
  } else {
    const dead = found.job;
    const startedAt = dead.startedAt;
    entries.push(
      startedAt === null
        ? { kind: 'dead', at: dead.failedAt, reason: dead.reason, error: dead.errorDetails }
        : {
            kind: 'run',
            at: startedAt,
            attempt: dead.attempts,
            startedAt,
            endedAt: dead.failedAt,
            workerId: dead.workerId,
            outcome: 'dead',
            reason: dead.reason,
            error: dead.errorDetails,
          },
    );
  }
  return entries.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** A stored step as the operator sees it, its state as of `now`. */
export function jobStepOf(record: StepRecord, now: Date): JobStep {
  const state: JobStep['state'] =
    record.kind === 'sleep'
      ? record.wakeAt !== null && record.wakeAt.getTime() > now.getTime()
        ? 'sleeping'
        : 'done'
      : record.done
        ? 'done'
        : 'waiting';
  return {
    name: record.name,
    kind: record.kind,
    state,
    result: record.result,
    topic: record.topic,
    wakeAt: record.wakeAt,
    recordedAt: record.recordedAt,
  };
}

/** `timeline` with an entry per step, each at its time (a step after what happened before it). */
export function withSteps(
  timeline: readonly TimelineEntry[],
  steps: readonly JobStep[],
): TimelineEntry[] {
  const entries = [...timeline];
  for (const step of steps) {
    const at = step.recordedAt.getTime();
    const index = entries.findIndex((entry) => entry.at.getTime() > at);
    entries.splice(index < 0 ? entries.length : index, 0, {
      kind: 'step',
      at: step.recordedAt,
      step,
    });
  }
  return entries;
}
