/**
 * The durable steps of one run (`ctx.step`, `ctx.sleep`, `ctx.waitForEvent`;
 * docs/workflows.md#durable-steps) over the store's step records. A run reads the job's records
 * once, at its first step, and replays each recorded one by name; a sleep or wait that has not
 * ended gives the job back to the store (scheduled until it ends) and ends the run with
 * {@link JobSuspended}.
 */
import { ChokaQError } from '../errors.js';
import type { EventResult, StepOptions, WaitForEventOptions } from '../job/context.js';
import type { Lease } from '../storage/job-store.js';
import {
  stepChanged,
  type StepKind,
  type StepRecord,
  type StepStore,
  type WaitOutcome,
} from '../storage/step-store.js';
import { checkOptions, invalid } from '../util/check.js';
import type { Clock } from '../util/clock.js';
import { toMs, type Duration } from '../util/duration.js';

/** Longest step name, in characters. */
export const MAX_STEP_NAME = 200;
/** Longest event topic, in characters. */
export const MAX_TOPIC = 200;
/** Largest step result or event, as JSON, in bytes (as a handler's kept result). */
export const MAX_STEP_BYTES = 64 * 1024;
/** Longest sleep or event wait. */
export const MAX_WAIT_MS = 365 * 86_400_000;

/**
 * What ends a run whose sleep or wait gave the job back to the store (the job is scheduled again
 * and no longer held), or found its lease gone (another run holds the job): either way the
 * executor settles nothing for this run.
 */
export class JobSuspended extends Error {
  /** @param wakeAt When the job is due again, unless an event wakes it earlier; `null`: lease lost. */
  constructor(readonly wakeAt: Date | null) {
    super(
      wakeAt === null ? 'lease lost in a sleep or wait' : `suspended until ${wakeAt.toISOString()}`,
    );
    this.name = 'JobSuspended';
  }
}

/** The steps of one run, as `ctx.step`, `ctx.sleep` and `ctx.waitForEvent` call them. */
export interface StepRunner {
  step<T>(name: string, fn: () => T | Promise<T>, options?: StepOptions): Promise<T>;
  sleep(name: string, duration: Duration): Promise<void>;
  waitForEvent<T>(
    name: string,
    topic: string,
    options: WaitForEventOptions,
  ): Promise<EventResult<T>>;
  /** Set once a sleep or wait gave the job back to the store: the run must settle nothing. */
  readonly suspended: JobSuspended | undefined;
}

/** Makes the {@link StepRunner} of a run, on its first step. */
export type StepSource = (id: string, lease: Lease | null) => StepRunner;

/** A {@link StepSource} over `steps`, on the engine's clock. */
export function durableSteps(steps: StepStore, clock: Clock): StepSource {
  return (id, lease) => new DurableSteps(steps, clock, id, lease);
}

/** The step names one run used: each at most once. */
export class StepNames {
  readonly #used = new Set<string>();

  /**
   * Takes `name` for a step of this run.
   * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` for a name that is not a string of
   *   1–{@link MAX_STEP_NAME} characters, `CHOKAQ_STEP_REPEATED` for one this run used already.
   */
  claim(name: string): void {
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_STEP_NAME) {
      throw invalid(
        'CHOKAQ_INVALID_ARGUMENT',
        'name',
        `a string of 1–${MAX_STEP_NAME} characters`,
        name,
      );
    }
    if (this.#used.has(name)) {
      throw new ChokaQError(
        'CHOKAQ_STEP_REPEATED',
        `step "${name}" was called twice in one run; step names are unique within a job`,
        { field: 'name' },
      );
    }
    this.#used.add(name);
  }
}

/** The durable {@link StepRunner}: every step recorded in the store. */
class DurableSteps implements StepRunner {
  #recorded: Map<string, StepRecord> | undefined;
  readonly #names = new StepNames();
  #suspended: JobSuspended | undefined;

  constructor(
    private readonly store: StepStore,
    private readonly clock: Clock,
    private readonly id: string,
    private readonly lease: Lease | null,
  ) {}

  get suspended(): JobSuspended | undefined {
    return this.#suspended;
  }

  async step<T>(name: string, fn: () => T | Promise<T>, options?: StepOptions): Promise<T> {
    this.ended();
    this.#names.claim(name);
    const { client } = checkStepOptions(options);
    const recorded = await this.recorded(name, 'run');
    if (recorded !== undefined) return fromJson(recorded.result) as T;
    if (client !== undefined && this.store.recordWithin === undefined) {
      throw new ChokaQError(
        'CHOKAQ_TRANSACTION_UNSUPPORTED',
        `this storage cannot record step "${name}" in a caller transaction (options.client)`,
        { field: 'options.client' },
      );
    }
    const result = stepJson(name, await fn());
    if (client !== undefined) {
      await this.store.recordWithin?.(client, this.id, { name, result });
      return fromJson(result) as T;
    }
    const stored = await this.store.record(this.id, { name, result });
    if (stored.kind !== 'run') throw stepChanged(name, `recorded as a ${stored.kind} step`);
    // Another run of the job may have recorded the step first: go on with its result.
    return fromJson(stored.result) as T;
  }

  async sleep(name: string, duration: Duration): Promise<void> {
    this.ended();
    this.#names.claim(name);
    const ms = toMs(duration, 'duration', { max: MAX_WAIT_MS });
    const recorded = await this.recorded(name, 'sleep');
    const now = this.clock.now();
    if (recorded?.wakeAt != null && recorded.wakeAt.getTime() <= now) return;
    const wakeAt = recorded?.wakeAt ?? new Date(now + ms);
    const outcome = await this.store.sleep(this.held(), { name, wakeAt });
    this.settleWait(outcome);
  }

  async waitForEvent<T>(
    name: string,
    topic: string,
    options: WaitForEventOptions,
  ): Promise<EventResult<T>> {
    this.ended();
    this.#names.claim(name);
    checkTopic(topic);
    const ms = toMs(options?.timeout, 'options.timeout', { max: MAX_WAIT_MS });
    const recorded = await this.recorded(name, 'event');
    if (recorded?.done === true) return fromJson(recorded.result) as EventResult<T>;
    const timeoutAt = recorded?.wakeAt ?? new Date(this.clock.now() + ms);
    const outcome = await this.store.wait(this.held(), { name, topic, timeoutAt });
    return fromJson(this.settleWait(outcome).result) as EventResult<T>;
  }

  /**
   * Refuses a step after a sleep or wait gave the job back (a handler that caught the throw): the
   * job is not this run's any more, and another run may be running it.
   */
  private ended(): void {
    if (this.#suspended !== undefined) throw this.#suspended;
  }

  /** The record of step `name` from an earlier run, checked to be of `kind`; read once per run. */
  private async recorded(name: string, kind: StepKind): Promise<StepRecord | undefined> {
    this.#recorded ??= new Map((await this.store.list(this.id)).map((step) => [step.name, step]));
    const record = this.#recorded.get(name);
    if (record !== undefined && record.kind !== kind) {
      throw stepChanged(name, `recorded as a ${record.kind} step, now called as a ${kind} step`);
    }
    return record;
  }

  /** The run's lease, which a sleep or wait needs to give the job back. */
  private held(): Lease {
    if (this.lease === null) throw new Error('a sleep or wait needs the run of a claimed job');
    return this.lease;
  }

  /** The record a sleep or wait ended with; a suspension (or a lost lease) ends the run. */
  private settleWait(outcome: WaitOutcome): StepRecord {
    if (outcome.kind === 'done') return outcome.record;
    this.#suspended = new JobSuspended(outcome.kind === 'suspended' ? outcome.wakeAt : null);
    throw this.#suspended;
  }
}

/**
 * Checks an event for `chokaq.sendEvent`: `topic` as a wait names it, and `data` as JSON text
 * (`null` for `undefined`) within {@link MAX_STEP_BYTES}.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming `topic` or `data`.
 */
export function checkEvent(topic: string, data: unknown): string {
  checkTopic(topic);
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch {
    throw invalid('CHOKAQ_INVALID_ARGUMENT', 'data', 'a value JSON can serialize', data);
  }
  if (text === undefined && data !== undefined) {
    throw invalid('CHOKAQ_INVALID_ARGUMENT', 'data', 'a value JSON can serialize', data);
  }
  text ??= 'null';
  if (Buffer.byteLength(text, 'utf8') > MAX_STEP_BYTES) {
    throw invalid(
      'CHOKAQ_INVALID_ARGUMENT',
      'data',
      `at most ${MAX_STEP_BYTES} bytes of JSON`,
      data,
    );
  }
  return text;
}

/** Refuses a topic that is not a string of 1–{@link MAX_TOPIC} characters. */
export function checkTopic(topic: string): void {
  if (typeof topic !== 'string' || topic.length === 0 || topic.length > MAX_TOPIC) {
    throw invalid(
      'CHOKAQ_INVALID_ARGUMENT',
      'topic',
      `a string of 1–${MAX_TOPIC} characters`,
      topic,
    );
  }
}

/**
 * Checks a step's options.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming `options` (not an object) or
 *   `options.client` (`null`), `CHOKAQ_UNKNOWN_OPTION` naming an unknown key.
 */
export function checkStepOptions(options: StepOptions | undefined): StepOptions {
  const checked = checkOptions(options, 'options', ['client'], 'CHOKAQ_INVALID_ARGUMENT');
  if (checked.client === null) {
    throw invalid(
      'CHOKAQ_INVALID_ARGUMENT',
      'options.client',
      'a pg client inside your transaction',
      null,
    );
  }
  return checked;
}

/** `value` as the JSON text a step records (`null` for `undefined`), checked. */
export function stepJson(name: string, value: unknown): string | null {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new ChokaQError(
      'CHOKAQ_STEP_RESULT_INVALID',
      `step "${name}" returned a value that cannot be serialized to JSON: ${String(error)}`,
      { field: 'name', cause: error },
    );
  }
  if (text === undefined) return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_STEP_BYTES) {
    throw new ChokaQError(
      'CHOKAQ_STEP_RESULT_INVALID',
      `step "${name}" returned ${bytes} bytes of JSON; a step result is at most ${MAX_STEP_BYTES}`,
      { field: 'name' },
    );
  }
  return text;
}

/** A recorded JSON text read back; `null` is `undefined` (a step that returned nothing). */
export function fromJson(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}
