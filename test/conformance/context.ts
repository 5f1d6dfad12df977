/**
 * What every capability file of the conformance suite receives: the store of the running test and
 * the suite's helpers bound to it. `describeStoreConformance` (suite.ts) builds one per provider
 * and hands it to each file's `describe…` function; the files hold the contracts, this file none.
 */
import type { ArchivedJob, DeadJob, HotJob, NewJob, QueueStats } from '../../src/storage/model.js';
import type { FailureReason } from '../../src/job/state.js';
import type { MetricBucket } from '../../src/storage/queue-store.js';
import type { Store } from '../../src/storage/store.js';

/** The store of the running test and the suite's helpers bound to it. */
export interface ConformanceContext {
  /** The provider's name (`memory`, `embedded`, `postgres`), for skip messages. */
  provider: string;
  /** The current test's store (a new one per test). */
  store: () => Store;
  /** Enqueues one job (defaults from `newJob`) and checks that it was created; its id. */
  enqueueOne: (overrides?: Partial<NewJob>) => Promise<string>;
  /** Enqueues `count` default jobs into `queue`; their ids, in input order. */
  enqueueMany: (queue: string, count: number) => Promise<string[]>;
  hot: (id: string) => Promise<HotJob>;
  archived: (id: string) => Promise<ArchivedJob>;
  dead: (id: string) => Promise<DeadJob>;
  /** Enqueues `count` jobs into an idle `queue` and claims them all. */
  fetched: (queue: string, count: number, workerId?: string) => Promise<HotJob[]>;
  /** Like `fetched`, then starts them all. */
  processing: (queue: string, count: number, workerId?: string) => Promise<HotJob[]>;
  /** Runs one job of `queue` to the DLQ with `reason`; its id. */
  toDead: (queue: string, reason?: FailureReason) => Promise<string>;
  /** Enqueues a job of `queue` (of `type`, if given) and runs it to the DLQ with `error`; its id. */
  failToDead: (queue: string, error: string, type?: string) => Promise<string>;
  statsOf: (queue: string) => Promise<QueueStats>;
  bucketsOf: (queue: string) => Promise<MetricBucket[]>;
  /** Moves the store's (fake) clock to a later millisecond than `after`, without waiting. */
  storeTimePasses: (after: Date | number) => Promise<void>;
}
