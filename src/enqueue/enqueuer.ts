import { ChokaQError } from '../errors.js';
import { parsePayload } from '../job/define-job.js';
import { validateTypeKey } from '../job/envelope.js';
import { isJobDefinition, type AnyJobDefinition, type JobRegistry } from '../job/registry.js';
import type { ChokaQEvents } from '../runtime/events.js';
import type { EnqueueResult } from '../storage/model.js';
import type { Store } from '../storage/store.js';
import type { NewJob } from '../storage/model.js';
import { Batcher, ItemFailure } from '../util/batcher.js';
import { checkArray, checkOptions, describeValue } from '../util/check.js';
import type { Clock } from '../util/clock.js';
import { activeTraceParent } from '../observability/tracing/spans.js';
import { checkAcyclic } from './dependencies.js';
import {
  BATCH_CALLBACK_KINDS,
  type BatchCallbackKind,
  type NewBatch,
} from '../storage/batch-store.js';
import { uuidv7 } from '../util/uuid.js';
import { toNewJob, type NewJobContext } from './new-job.js';
import {
  ENQUEUE_OPTION_KEYS,
  MAX_ENQUEUE_ITEMS,
  type EnqueueItem,
  type EnqueueManyOptions,
  type EnqueueOptions,
} from './options.js';

/** Names of `enqueueMany`'s options. */
const MANY_KEYS = ['client'] as const;

/** A job definition (or a bare type key) as the enqueue pipeline resolved it. */
interface EnqueueTarget {
  definition: AnyJobDefinition | undefined;
  type: string;
}

/** One job of {@link Enqueuer.workflow}: its definition or type key, and its item. */
export interface WorkflowEntry {
  job: unknown;
  item: EnqueueItem<unknown>;
}

/** The public name of each callback kind's builder method (`BatchBuilder`), for error fields. */
export const CALLBACK_METHOD: Record<BatchCallbackKind, string> = {
  success: 'onSuccess',
  complete: 'onComplete',
  death: 'onDeath',
};

/** What `chokaq.enqueueBatch` resolves to. */
export interface EnqueueBatchResult {
  /** The batch's id, for `chokaq.batches.get` (a new UUIDv7). */
  id: string;
  /** Each member's result, in the order added (always `created: true`). */
  jobs: EnqueueResult[];
  /** The callback jobs' ids, by kind (those named). */
  callbacks: Partial<Record<BatchCallbackKind, string>>;
}

/** Dependencies of an {@link Enqueuer}. */
export interface EnqueuerOptions {
  store: Store;
  /** Opens the store once (shared with the runtime). */
  open: () => Promise<void>;
  registry: JobRegistry;
  /** Whether a pipe handler takes type keys without a definition. */
  hasPipe: boolean;
  maxPayloadBytes: number;
  events: ChokaQEvents;
  clock: Clock;
}

/**
 * The enqueue pipeline: checks every item (envelope first, then the payload schema), builds the
 * rows, writes them in one atomic call, and emits `job:enqueued`. Single enqueues that arrive in
 * the same event-loop turn share one insert.
 */
export class Enqueuer {
  private readonly inserter = new Batcher<NewJob, EnqueueResult>({
    run: (rows) => this.insertBatch(rows),
  });

  constructor(private readonly options: EnqueuerOptions) {}

  /**
   * Enqueues one job (see {@link Enqueuer.many}); errors name the field as `options.<name>`.
   * @throws ChokaQError with a stable code naming the field; nothing is written.
   */
  async one(
    job: unknown,
    payload: unknown,
    options: EnqueueOptions | undefined,
  ): Promise<EnqueueResult> {
    const { client, ...item } = checkOptions(
      options,
      'options',
      ENQUEUE_OPTION_KEYS,
      'CHOKAQ_INVALID_ARGUMENT',
    );
    const [result] = await this.write(job, [{ ...item, payload }], client, () => 'options');
    return result as EnqueueResult;
  }

  /**
   * Enqueues `items` of one job type atomically: all are checked first (envelopes, then payload
   * schemas), then either all are written or none. Errors name the item: `items[3].priority`.
   * @throws ChokaQError with a stable code naming the field; nothing is written.
   */
  async many(
    job: unknown,
    items: unknown,
    options: EnqueueManyOptions | undefined,
  ): Promise<EnqueueResult[]> {
    const list = checkArray(items, 'items', MAX_ENQUEUE_ITEMS) as readonly EnqueueItem<unknown>[];
    const { client } = checkOptions(options, 'options', MANY_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
    return this.write(job, list, client, (i) => `items[${i}]`);
  }

  /**
   * Enqueues the jobs of a workflow (jobs of any types, which may wait for each other) atomically,
   * as {@link Enqueuer.many} does; errors name the job: `workflow[2].dependsOn[0]`.
   * @throws ChokaQError with a stable code naming the field; nothing is written.
   */
  async workflow(
    jobs: readonly WorkflowEntry[],
    options: EnqueueManyOptions | undefined,
  ): Promise<EnqueueResult[]> {
    const list = checkArray(jobs, 'workflow', MAX_ENQUEUE_ITEMS) as readonly WorkflowEntry[];
    const { client } = checkOptions(options, 'options', MANY_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
    const field = (i: number): string => `workflow[${i}]`;
    return this.writeAll(this.targetsOf(list, field), client, field);
  }

  private write(
    job: unknown,
    items: readonly EnqueueItem<unknown>[],
    client: unknown,
    field: (index: number) => string,
  ): Promise<EnqueueResult[]> {
    const target = this.targetOf(job, 'job');
    return this.writeAll(
      items.map((item) => ({ target, item })),
      client,
      field,
    );
  }

  /**
   * The rows of `entries`, every envelope checked first, then the payload schemas; errors name the
   * field as `field(i)` says.
   * @throws ChokaQError with a stable code naming the field.
   */
  private async rowsOf(
    entries: readonly { target: EnqueueTarget; item: EnqueueItem<unknown> }[],
    field: (index: number) => string,
  ): Promise<NewJob[]> {
    const { clock, maxPayloadBytes } = this.options;
    const nowMs = clock.now();
    const traceParent = activeTraceParent();
    const contexts = new Map<EnqueueTarget, NewJobContext>();
    // enqueueMany's thousands of items share one target: no map lookup for each.
    let last: { target: EnqueueTarget; context: NewJobContext } | undefined;
    const contextOf = (target: EnqueueTarget): NewJobContext => {
      if (last?.target === target) return last.context;
      let context = contexts.get(target);
      if (context === undefined) {
        context = {
          type: target.type,
          definition: target.definition,
          maxPayloadBytes,
          nowMs,
          traceParent,
          defaultsChecked: { queue: false, priority: false },
        };
        contexts.set(target, context);
      }
      last = { target, context };
      return context;
    };
    // Synchronous checks of every item first; schema validation (possibly async) only after.
    const rows = entries.map((entry, i) => toNewJob(entry.item, field(i), contextOf(entry.target)));
    if (rows.some((row) => row.dependsOn !== undefined)) checkAcyclic(rows);
    await Promise.all(
      entries.flatMap(({ target, item }, i) =>
        target.definition?.schema
          ? [parsePayload(target.definition, item.payload, `${field(i)}.payload`)]
          : [],
      ),
    );
    return rows;
  }

  private async writeAll(
    entries: readonly { target: EnqueueTarget; item: EnqueueItem<unknown> }[],
    client: unknown,
    field: (index: number) => string,
  ): Promise<EnqueueResult[]> {
    const { store } = this.options;
    const rows = await this.rowsOf(entries, field);
    if (rows.length === 0) return [];
    await this.options.open();
    let results: EnqueueResult[];
    if (client !== undefined) {
      if (!store.jobs.enqueueWithin) throw transactionUnsupported(store.kind);
      results = await store.jobs.enqueueWithin(client, rows);
    } else if (rows.length === 1) {
      results = [await this.inserter.add(rows[0] as NewJob)];
    } else {
      results = await store.jobs.enqueue(rows);
    }
    this.emitEnqueued(rows, results);
    return results;
  }

  /**
   * Enqueues a batch (docs/workflows.md, "Batches"): its members and callbacks are checked as
   * {@link Enqueuer.workflow} checks jobs, then written with the batch row in one atomic step.
   * Errors name the job: `batch[2].priority`, `batch.onSuccess.payload`.
   * @throws ChokaQError with a stable code naming the field; nothing is written.
   */
  async batch(
    members: readonly WorkflowEntry[],
    callbacks: Partial<Record<BatchCallbackKind, WorkflowEntry>>,
    options: EnqueueManyOptions | undefined,
  ): Promise<EnqueueBatchResult> {
    const { store } = this.options;
    const list = checkArray(members, 'batch', MAX_ENQUEUE_ITEMS) as readonly WorkflowEntry[];
    if (list.length === 0) {
      throw new ChokaQError('CHOKAQ_INVALID_ARGUMENT', 'batch must add at least one job', {
        field: 'batch',
      });
    }
    const { client } = checkOptions(options, 'options', MANY_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
    const kinds = BATCH_CALLBACK_KINDS.filter((kind) => callbacks[kind] !== undefined);
    const entries = [...list, ...kinds.map((kind) => callbacks[kind] as WorkflowEntry)];
    const fieldOf = (i: number): string =>
      i < list.length
        ? `batch[${i}]`
        : `batch.${CALLBACK_METHOD[kinds[i - list.length] ?? 'success']}`;
    const rows = await this.rowsOf(this.targetsOf(entries, fieldOf), fieldOf);
    const batch: NewBatch = {
      id: uuidv7(),
      members: rows.slice(0, list.length),
      callbacks: Object.fromEntries(kinds.map((kind, i) => [kind, rows[list.length + i]])),
    };
    await this.options.open();
    let results: EnqueueResult[];
    if (client !== undefined) {
      if (!store.batches.enqueueWithin) throw transactionUnsupported(store.kind);
      results = await store.batches.enqueueWithin(client, batch);
    } else {
      results = await store.batches.enqueue(batch);
    }
    this.emitEnqueued(rows, results);
    return {
      id: batch.id,
      jobs: results.slice(0, list.length),
      callbacks: Object.fromEntries(kinds.map((kind, i) => [kind, rows[list.length + i]?.id])),
    };
  }

  /** Emits `job:enqueued` for each of `rows` with its result. */
  private emitEnqueued(rows: readonly NewJob[], results: readonly EnqueueResult[]): void {
    results.forEach((result, i) => {
      const row = rows[i] as NewJob;
      this.options.events.emit('job:enqueued', {
        id: result.id,
        type: row.type,
        queue: row.queue,
        created: result.created,
      });
    });
  }

  /**
   * Each entry with the definition and type key its job resolves to, looked up once per distinct
   * job (errors name it as `field(i).job`).
   */
  private targetsOf(
    entries: readonly WorkflowEntry[],
    field: (index: number) => string,
  ): { target: EnqueueTarget; item: EnqueueItem<unknown> }[] {
    const targets = new Map<unknown, EnqueueTarget>();
    return entries.map((entry, i) => {
      let target = targets.get(entry.job);
      if (target === undefined) {
        target = this.targetOf(entry.job, `${field(i)}.job`);
        targets.set(entry.job, target);
      }
      return { target, item: entry.item };
    });
  }

  /** The definition and type key enqueues of `job` use (`field` names it in errors). */
  private targetOf(job: unknown, field: string): EnqueueTarget {
    const definition = this.definitionFor(job, field);
    return { definition, type: definition?.type ?? (job as string) };
  }

  /** The definition enqueues of `job` use; a bare type key needs a definition or the pipe. */
  private definitionFor(job: unknown, field: string): AnyJobDefinition | undefined {
    if (typeof job !== 'string') {
      if (isJobDefinition(job)) return job;
      throw new ChokaQError(
        'CHOKAQ_INVALID_ARGUMENT',
        `${field} must be a job definition (from defineJob) or a type key, got ${describeValue(job)}`,
        { field },
      );
    }
    validateTypeKey(job, field);
    const definition = this.options.registry.find(job);
    if (!definition && !this.options.hasPipe) {
      throw new ChokaQError(
        'CHOKAQ_UNKNOWN_JOB_TYPE',
        `no job definition for type '${job}' and no pipe handler`,
        { field },
      );
    }
    return definition;
  }

  /**
   * Writes single enqueues that arrive in the same event-loop turn with one statement: one
   * commit for many callers instead of one each. The statement is atomic, so if it fails for one
   * row (a duplicate id), the rows are written one by one and only that caller sees the error.
   */
  private async insertBatch(rows: NewJob[]): Promise<(EnqueueResult | ItemFailure)[]> {
    const { store } = this.options;
    try {
      return await store.jobs.enqueue(rows);
    } catch (error) {
      const retryable = error instanceof ChokaQError && error.retryable;
      if (rows.length === 1 || retryable) throw error;
      return Promise.all(
        rows.map((row) =>
          store.jobs.enqueue([row]).then(
            ([result]) => result as EnqueueResult,
            (rowError: unknown) => new ItemFailure(rowError),
          ),
        ),
      );
    }
  }
}

/** The error of `options.client` given to a store that cannot enqueue in a caller transaction. */
function transactionUnsupported(kind: string): ChokaQError {
  return new ChokaQError(
    'CHOKAQ_TRANSACTION_UNSUPPORTED',
    `storage '${kind}' cannot enqueue in a caller transaction (options.client)`,
    { field: 'options.client' },
  );
}
