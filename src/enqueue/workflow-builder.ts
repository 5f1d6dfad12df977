/** The builder `chokaq.enqueueWorkflow` hands to its callback (docs/workflows.md). */
import type { AnyJobDefinition } from '../job/registry.js';
import { checkOptions } from '../util/check.js';
import { uuidv7 } from '../util/uuid.js';
import type { WorkflowEntry } from './enqueuer.js';
import { ENQUEUE_ITEM_KEYS, type EnqueueOptions, type PayloadOf } from './options.js';

/** The options of one job of a workflow: those of `enqueue` but `client` (the call's own). */
export type WorkflowJobOptions = Omit<EnqueueOptions, 'client'>;

/**
 * What the callback of `chokaq.enqueueWorkflow` adds jobs with. Each `add` returns the job's id
 * at once (the one given, or a new UUIDv7), so a later job can name it in `dependsOn`; nothing is
 * written until the callback returns, and then all jobs are written in one atomic step.
 */
export interface WorkflowBuilder {
  /**
   * Adds a job of `job` (a definition or a type key) with `payload`; checked with the others
   * when the callback returns.
   * @returns The job's id.
   */
  add<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options?: WorkflowJobOptions,
  ): string;
}

/** The {@link WorkflowBuilder} of one call, which keeps the jobs added. */
export class WorkflowCollector implements WorkflowBuilder {
  /** The jobs added so far, in order. */
  readonly entries: WorkflowEntry[] = [];

  /** {@inheritDoc WorkflowBuilder.add} */
  add<D extends AnyJobDefinition | string>(
    job: D,
    payload: PayloadOf<D>,
    options?: WorkflowJobOptions,
  ): string {
    const field = `workflow[${this.entries.length}]`;
    const given = checkOptions(
      options,
      field,
      ENQUEUE_ITEM_KEYS.filter((key) => key !== 'payload'),
      'CHOKAQ_INVALID_ARGUMENT',
    );
    const id = given.id ?? uuidv7();
    this.entries.push({ job, item: { ...given, id, payload } });
    return id;
  }
}
