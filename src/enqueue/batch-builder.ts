/** The builder `chokaq.enqueueBatch` hands to its callback (docs/workflows.md, "Batches"). */
import type { AnyJobDefinition } from '../job/registry.js';
import type { BatchCallbackKind } from '../storage/batch-store.js';
import { checkOptions } from '../util/check.js';
import { ChokaQError } from '../errors.js';
import { uuidv7 } from '../util/uuid.js';
import { CALLBACK_METHOD, type WorkflowEntry } from './enqueuer.js';
import { ENQUEUE_ITEM_KEYS, type EnqueueOptions, type PayloadOf } from './options.js';

/**
 * The options of one job of a batch: those of `enqueue` but `client` (the call's own) and
 * `idempotencyKey` (a batch's jobs are all new: one deduplicated into another job could not be
 * counted).
 */
export type BatchJobOptions = Omit<EnqueueOptions, 'client' | 'idempotencyKey'>;

/** The options of a callback job: those of a member but `dependsOn` (its batch fires it). */
export type BatchCallbackOptions = Omit<BatchJobOptions, 'dependsOn'>;

/**
 * What the callback of `chokaq.enqueueBatch` adds jobs and names callbacks with. Nothing is
 * written until the callback returns; then the batch, its jobs and its callbacks are written in
 * one atomic step.
 */
export interface BatchBuilder {
  /**
   * Adds a member: a job of `job` (a definition or a type key) with `payload`; checked with the
   * others when the callback returns.
   * @returns The job's id (the one given, or a new UUIDv7).
   */
  add<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options?: BatchJobOptions,
  ): string;
  /**
   * Names the job that runs once when every member has succeeded (a member that died and was
   * resurrected counts once it succeeds). At most one. Default: none.
   * @returns The callback job's id.
   */
  onSuccess<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options?: BatchCallbackOptions,
  ): string;
  /**
   * Names the job that runs once when every member has finished once: succeeded, died or
   * cancelled. At most one. Default: none.
   * @returns The callback job's id.
   */
  onComplete<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options?: BatchCallbackOptions,
  ): string;
  /**
   * Names the job that runs once, at the first member's death (a move to the DLQ other than a
   * cancel). At most one. Default: none.
   * @returns The callback job's id.
   */
  onDeath<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options?: BatchCallbackOptions,
  ): string;
}

/** The member option names a batch takes. */
const MEMBER_KEYS = ENQUEUE_ITEM_KEYS.filter(
  (key) => key !== 'payload' && key !== 'idempotencyKey',
);
/** The callback option names a batch takes. */
const CALLBACK_KEYS = MEMBER_KEYS.filter((key) => key !== 'dependsOn');

/** The {@link BatchBuilder} of one call, which keeps what was added. */
export class BatchCollector implements BatchBuilder {
  /** The members added so far, in order. */
  readonly members: WorkflowEntry[] = [];
  /** The callbacks named, by kind. */
  readonly callbacks: Partial<Record<BatchCallbackKind, WorkflowEntry>> = {};

  /** {@inheritDoc BatchBuilder.add} */
  add<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options?: BatchJobOptions,
  ): string {
    const field = `batch[${this.members.length}]`;
    const given = checkOptions(options, field, MEMBER_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
    const id = given.id ?? uuidv7();
    this.members.push({ job, item: { ...given, id, payload } });
    return id;
  }

  /** {@inheritDoc BatchBuilder.onSuccess} */
  onSuccess<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options?: BatchCallbackOptions,
  ): string {
    return this.callback('success', job, payload, options);
  }

  /** {@inheritDoc BatchBuilder.onComplete} */
  onComplete<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options?: BatchCallbackOptions,
  ): string {
    return this.callback('complete', job, payload, options);
  }

  /** {@inheritDoc BatchBuilder.onDeath} */
  onDeath<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options?: BatchCallbackOptions,
  ): string {
    return this.callback('death', job, payload, options);
  }

  private callback(
    kind: BatchCallbackKind,
    job: unknown,
    payload: unknown,
    options: BatchCallbackOptions | undefined,
  ): string {
    const field = `batch.${CALLBACK_METHOD[kind]}`;
    if (this.callbacks[kind] !== undefined) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_ARGUMENT',
        `${field} was given twice; a batch has at most one`,
        { field },
      );
    }
    const given = checkOptions(options, field, CALLBACK_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
    const id = given.id ?? uuidv7();
    this.callbacks[kind] = { job, item: { ...given, id, payload } };
    return id;
  }
}
