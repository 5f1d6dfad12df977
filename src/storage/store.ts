/**
 * The storage seam: every provider (memory, embedded, postgres) implements {@link Store} and
 * passes the same conformance suite (test/conformance). Core code talks to storage only through
 * it. The verbs are domain verbs, not SQL: a SQL Server provider could implement them too. `Store`
 * is an aggregate of capabilities, each its own interface: jobs (`job-store.ts`), queues
 * (`queue-store.ts`), operator reads and edits (`operator-store.ts`), bulk actions and the audit
 * trail (`bulk.ts`), the cluster (`cluster-store.ts`), retention (`retention.ts`), workflows
 * (`workflow-store.ts`) and batches (`batch-store.ts`), beside the idempotency claims, rate limits and schedules a store hands
 * out. Code that needs part of the store names the capabilities it uses (`Pick<Store, 'jobs' |
 * 'cluster'>`) and reaches each through its property (`store.jobs.claim(…)`).
 *
 * Times: the store owns the clock used for scheduling and eligibility (the database clock for SQL
 * stores, the injected clock for memory), so callers pass delays, never timestamps.
 *
 * The package root exports the {@link Store} type only so that provider objects made by
 * `memory()`, `embedded()` and `postgres()` can be named; its methods are ChokaQ's internal seam,
 * unstable until 1.0 — call ChokaQ's own methods instead. Users see the shapes of
 * `storage/model.ts`.
 */
import type { Logger } from '../observability/logging/logger.js';
import type { BatchStore } from './batch-store.js';
import type { BulkStore } from './bulk.js';
import type { ClusterStore } from './cluster-store.js';
import type { IdempotencyClaims } from './idempotency.js';
import type { JobStore } from './job-store.js';
import type { OperatorStore } from './operator-store.js';
import type { QueueStore } from './queue-store.js';
import type { RateLimits } from './rate-limits.js';
import type { RetentionStore } from './retention.js';
import type { ScheduleStore } from './schedules.js';
import type { WorkflowStore } from './workflow-store.js';
import type { StepStore } from './step-store.js';

/** What every storage provider offers. All methods may throw `ChokaQError` with a stable code. */
export interface Store {
  /** Short provider name for logs: `memory`, `embedded` or `postgres`. */
  readonly kind: string;

  /** A job's life cycle: enqueue, claim, start, settle, heartbeat, rescue, promote, cancel. */
  readonly jobs: JobStore;
  /** Queue controls, counts, gauges and metric buckets. */
  readonly queues: QueueStore;
  /** The operator's reads and edits of jobs, and the DLQ's error groups. */
  readonly operator: OperatorStore;
  /** Durable bulk actions and the audit trail. */
  readonly bulk: BulkStore;
  /** Wake-ups, broadcasts, duty leases, worker presence and the store clock. */
  readonly cluster: ClusterStore;
  /** Deleting what retention allows. */
  readonly retention: RetentionStore;
  /** Jobs that wait for other jobs: the resolver and the dependencies' states. */
  readonly workflows: WorkflowStore;
  /** Durable steps: each job's recorded steps, its sleeps and event waits, the events sent to it. */
  readonly steps: StepStore;
  /** Batches with callbacks: writing, reading and retiring them. */
  readonly batches: BatchStore;

  /**
   * Adopts ChokaQ's logger (scoped to the provider, e.g. `chokaq:postgres`) unless the provider was
   * given its own `logger`; ChokaQ calls it once when constructed. Providers that log nothing
   * omit it.
   */
  useLogger?(logger: Logger): void;

  /** Applies pending migrations (no-op for memory) and opens resources. Idempotent. */
  open(): Promise<void>;
  /** Releases connections, files and timers. Idempotent; safe without `open()`. */
  close(): Promise<void>;

  /** The idempotency claim store sharing this store's database (memory: this process). */
  readonly idempotencyClaims: IdempotencyClaims;
  /** The rate buckets of `rateLimit`s, in this store's database (memory: this process). */
  readonly rateLimits: RateLimits;
  /** The schedules and ticks of recurring jobs, in this store's database. */
  readonly schedules: ScheduleStore;
}
