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
import { toNewJob } from './new-job.js';
import {
  ENQUEUE_OPTION_KEYS,
  MAX_ENQUEUE_ITEMS,
  type EnqueueItem,
  type EnqueueManyOptions,
  type EnqueueOptions,
} from './options.js';

/** Names of `enqueueMany`'s options. */
const MANY_KEYS = ['client'] as const;

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

  private async write(
    job: unknown,
    items: readonly EnqueueItem<unknown>[],
    client: unknown,
    field: (index: number) => string,
  ): Promise<EnqueueResult[]> {
    const { store, clock, maxPayloadBytes } = this.options;
    const definition = this.definitionFor(job);
    const type = definition?.type ?? (job as string);
    const context = {
      type,
      definition,
      maxPayloadBytes,
      nowMs: clock.now(),
      traceParent: activeTraceParent(),
      defaultsChecked: { queue: false, priority: false },
    };
    // Synchronous checks of every item first; schema validation (possibly async) only after.
    const rows = items.map((item, i) => toNewJob(item, field(i), context));
    if (definition?.schema) {
      await Promise.all(
        items.map((item, i) => parsePayload(definition, item.payload, `${field(i)}.payload`)),
      );
    }
    if (rows.length === 0) return [];
    await this.options.open();
    let results: EnqueueResult[];
    if (client !== undefined) {
      if (!store.jobs.enqueueWithin) {
        throw new ChokaQError(
          'CHOKAQ_TRANSACTION_UNSUPPORTED',
          `storage '${store.kind}' cannot enqueue in a caller transaction (options.client)`,
          { field: 'options.client' },
        );
      }
      results = await store.jobs.enqueueWithin(client, rows);
    } else if (rows.length === 1) {
      results = [await this.inserter.add(rows[0] as NewJob)];
    } else {
      results = await store.jobs.enqueue(rows);
    }
    results.forEach((result, i) => {
      const row = rows[i] as NewJob;
      this.options.events.emit('job:enqueued', {
        id: result.id,
        type: row.type,
        queue: row.queue,
        created: result.created,
      });
    });
    return results;
  }

  /** The definition enqueues of `job` use; a bare type key needs a definition or the pipe. */
  private definitionFor(job: unknown): AnyJobDefinition | undefined {
    if (typeof job !== 'string') {
      if (isJobDefinition(job)) return job;
      throw new ChokaQError(
        'CHOKAQ_INVALID_ARGUMENT',
        `job must be a job definition (from defineJob) or a type key, got ${describeValue(job)}`,
        { field: 'job' },
      );
    }
    validateTypeKey(job, 'job');
    const definition = this.options.registry.find(job);
    if (!definition && !this.options.hasPipe) {
      throw new ChokaQError(
        'CHOKAQ_UNKNOWN_JOB_TYPE',
        `no job definition for type '${job}' and no pipe handler`,
        { field: 'job' },
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
