/**
 * The durable steps capability of the storage seam (docs/workflows.md#durable-steps): each job's
 * recorded steps, the sleeps and event waits that hand a job's slot back until they end, and the
 * events sent to waiting jobs.
 */
import { ChokaQError } from '../errors.js';
import type { Lease } from './job-store.js';

/** What a step record stands for: a step that ran, a sleep, or a wait for an event. */
export type StepKind = 'run' | 'sleep' | 'event';

/** One recorded step of a job. */
export interface StepRecord {
  /** The step's name, unique within its job. */
  name: string;
  kind: StepKind;
  /**
   * `true` once the step is over: a run step when recorded, an event wait once it received its
   * event or timed out. A sleep's record stays `false`; it is over once `wakeAt` has passed.
   */
  done: boolean;
  /**
   * JSON text: a run step's result (`null` for `undefined`), an event wait's outcome
   * (`{"received":true,"data":…}` or `{"received":false}`); `null` while not done.
   */
  result: string | null;
  /** The topic an event wait listens on; `null` for other kinds. */
  topic: string | null;
  /** A sleep's end, or an event wait's timeout; `null` for run steps. */
  wakeAt: Date | null;
  /** When the step was first recorded. */
  recordedAt: Date;
}

/** A step to record as done: its name and its result as JSON text. */
export interface StepResult {
  name: string;
  /** JSON text of the result; `null` records `undefined`. */
  result: string | null;
}

/** A sleep to record: the job leaves its slot until `wakeAt`. */
export interface SleepRequest {
  name: string;
  /** When the sleep ends, unless an earlier record of the step says otherwise. */
  wakeAt: Date;
}

/** An event wait: the job takes the oldest event on `topic`, or leaves its slot until one comes. */
export interface WaitRequest {
  name: string;
  topic: string;
  /** When the wait times out, unless an earlier record of the step says otherwise. */
  timeoutAt: Date;
}

/**
 * How a sleep or wait ended its call: `done` (the step's record, over), `suspended` (the job is
 * scheduled again and no longer held by the run), or `lost` (the run no longer holds the lease:
 * nothing written).
 */
export type WaitOutcome =
  { kind: 'done'; record: StepRecord } | { kind: 'suspended'; wakeAt: Date } | { kind: 'lost' };

/** What {@link StepStore.send} did with an event. */
export interface SendEventResult {
  /** `true` when the event woke the job from a wait on its topic (it is due now). */
  woke: boolean;
}

/** The steps of jobs; every provider holds the same rules (test/conformance/steps.ts). */
export interface StepStore {
  /** The recorded steps of job `id`, in the order they were first recorded; `[]` for none. */
  list(id: string): Promise<StepRecord[]>;
  /**
   * Records a run step of job `id` as done; the first record of a name wins, and its record is
   * returned (so a run racing another one goes on with the winner's result).
   */
  record(id: string, step: StepResult): Promise<StepRecord>;
  /**
   * Records a run step of job `id` as done inside the caller's open transaction (a `pg` client
   * after `BEGIN`), so it commits with the caller's writes. A name recorded already fails the
   * statement with `CHOKAQ_STEP_RECORDED`, which aborts the caller's transaction. Providers
   * without caller transactions omit it.
   */
  recordWithin?(transaction: unknown, id: string, step: StepResult): Promise<void>;
  /**
   * Records a sleep (its first `wakeAt` stays) and moves the held job back to `scheduled` until
   * the sleep ends, its attempt refunded and a `suspended` history entry appended.
   */
  sleep(lease: Lease, request: SleepRequest): Promise<WaitOutcome>;
  /**
   * An event wait of the held job: takes the oldest event on the topic sent to the job and
   * records it (`done`); past the timeout (the first one recorded stays) records that none came
   * (`done`); otherwise records the wait and moves the job back to `scheduled` until the timeout
   * (`suspended`), as {@link StepStore.sleep} does. An event sent at any moment is never missed.
   */
  wait(lease: Lease, request: WaitRequest): Promise<WaitOutcome>;
  /**
   * Sends an event (`data`: JSON text) on `topic` to the hot job `id`, kept until a wait on the
   * topic takes it; a job suspended in such a wait is made due now. Throws `CHOKAQ_NOT_FOUND`
   * when `id` is not a hot job (finished or unknown: nobody would take the event).
   */
  send(id: string, topic: string, data: string): Promise<SendEventResult>;
  /**
   * Retention: one window of a scan over the events in the order they were sent. Reads at most
   * `limit` events after `after` (`null`: from the first) and deletes those whose job is gone (in
   * no table: it kept no succeeded row, or was deleted). The memory store reads every event in one
   * window.
   */
  purgeEvents(limit: number, after: number | null): Promise<EventPurge>;
}

/** What one window of retention's scan of events did (see {@link StepStore.purgeEvents}). */
export interface EventPurge {
  /** Events deleted. */
  deleted: number;
  /** Where the next window starts; `null` once the scan read the last event. */
  after: number | null;
}

/** The codes of {@link StepKind} as stored in `job_steps.kind`. */
export const STEP_KIND_CODE: Readonly<Record<StepKind, number>> = { run: 0, sleep: 1, event: 2 };

/** A {@link StepKind} by its stored code; `undefined` for a code this release does not know. */
export const STEP_KIND_BY_CODE: Readonly<Record<number, StepKind>> = {
  0: 'run',
  1: 'sleep',
  2: 'event',
};

/**
 * The coded error of a step called as what its name is not recorded as: `how` says what differs
 * (its kind, an event wait's topic).
 */
export function stepChanged(name: string, how: string): ChokaQError {
  return new ChokaQError(
    'CHOKAQ_STEP_CHANGED',
    `step "${name}" is ${how}: the handler's steps changed (docs/workflows.md, changing steps)`,
    { field: 'name' },
  );
}

/** The outcome an event wait records when it times out without an event. */
export const NO_EVENT_RESULT = '{"received":false}';

/** The outcome an event wait records when it took an event whose data is the JSON text `data`. */
export function receivedResult(data: string): string {
  return `{"received":true,"data":${data}}`;
}

/** The history note of a run suspended until `wakeAt` by step `name` (a sleep, or a wait on `topic`). */
export function suspendNote(name: string, wakeAt: Date, topic: string | null): string {
  const until = wakeAt.toISOString();
  return topic === null
    ? `sleeping in step "${name}" until ${until}`
    : `waiting in step "${name}" for an event on "${topic}" until ${until}`;
}
