import type { JobDefinition } from '../job/define-job.js';
import type { Duration } from '../util/duration.js';
import type { Dependency } from './dependencies.js';

/** Options of one enqueue. */
export interface EnqueueOptions {
  /** Job id (1–50 characters), unique among active jobs. Default: a new UUIDv7. */
  id?: string;
  /** Default: the definition's queue, else `'default'`. */
  queue?: string;
  /** Higher runs first; a 32-bit integer. Default: the definition's priority, else `10`. */
  priority?: number;
  /** Wait this long before the job may run (at most 36,500 days). Default: none. */
  delay?: Duration;
  /**
   * Run no earlier than this time (wins over `delay`; a past time means now; at most 36,500 days
   * ahead). Default: none.
   */
  runAt?: Date;
  /**
   * While a job with this key is pending or running, enqueueing the same key again returns that
   * job's id and writes nothing (`created: false`). Trimmed; blank means none; at most 255
   * characters. Default: none.
   */
  idempotencyKey?: string | null;
  /** Free-form tags, comma-separated by convention (≤ 1000 characters). Default: none. */
  tags?: string | null;
  /** Who enqueued (≤ 100 characters), shown to operators. Default: none. */
  createdBy?: string | null;
  /**
   * The job's concurrency key (≤ 255 characters, or an integer; `null`: none), instead of the
   * one the definition's `concurrencyKey` gives. Default: the definition's, else none.
   */
  concurrencyKey?: string | number | null;
  /**
   * Most jobs of the key fetched or running at once in the queue (1–1,000,000; only for a job
   * with a key), instead of the definition's `concurrencyLimit`. Default: the definition's, else
   * no limit.
   */
  concurrencyLimit?: number;
  /**
   * The jobs this one waits for (docs/workflows.md): ids of jobs enqueued before, or in the same
   * call (`enqueueMany`, `enqueueWorkflow`), each a string or `{ id, onDeath }` (what its death
   * does to this job: `'fail'`, `'skip'` or `'continue'`; default `'fail'`); at most 1,000. The
   * job is `awaiting` until they finish. Default: none.
   */
  dependsOn?: readonly Dependency[];
  /**
   * Enqueue inside your own open transaction (PostgreSQL: a `pg` client after `BEGIN`): the job
   * commits or rolls back with your data. Default: ChokaQ's own transaction.
   */
  client?: unknown;
}

/** One item of `enqueueMany`: its payload and the options of {@link EnqueueOptions} but `client`. */
export interface EnqueueItem<P> extends Omit<EnqueueOptions, 'client'> {
  payload: P;
}

/** Options of `enqueueMany` as a whole. */
export interface EnqueueManyOptions {
  /** As {@link EnqueueOptions.client}, for every item. Default: ChokaQ's own transaction. */
  client?: unknown;
}

/** The payload type enqueue accepts for a definition (`unknown` for a bare type key). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PayloadOf<D> = D extends JobDefinition<infer In, any> ? In : unknown;

/** Names of {@link EnqueueOptions}, for the unknown-option check. */
export const ENQUEUE_OPTION_KEYS = [
  'id',
  'queue',
  'priority',
  'delay',
  'runAt',
  'idempotencyKey',
  'tags',
  'createdBy',
  'concurrencyKey',
  'concurrencyLimit',
  'dependsOn',
  'client',
] as const satisfies readonly (keyof EnqueueOptions)[];

/** Names of an {@link EnqueueItem}'s fields. */
export const ENQUEUE_ITEM_KEYS = [
  ...ENQUEUE_OPTION_KEYS.filter((key) => key !== 'client'),
  'payload',
] as const;

/** Most items one `enqueueMany` call takes. */
export const MAX_ENQUEUE_ITEMS = 100_000;
