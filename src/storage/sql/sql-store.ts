/**
 * The storage contract over SQL, shared by the `postgres` and `embedded` providers: both send
 * the same statements (PostgreSQL ≥ 13 dialect) through an {@link Executor}. A composition: each
 * capability is a part of its own (`sql-jobs.ts`, `sql-queues.ts`, `sql-operator.ts`, `bulk.ts`,
 * `sql-cluster.ts`, `retention.ts`, `workflows.ts`), all over one {@link SqlContext} (connection, statements,
 * wake-ups).
 */
import type { Logger } from '../../observability/logging/logger.js';
import type { BulkStore } from '../bulk.js';
import type { ClusterStore } from '../cluster-store.js';
import type { JobStore } from '../job-store.js';
import type { OperatorStore } from '../operator-store.js';
import type { QueueStore } from '../queue-store.js';
import type { RetentionStore } from '../retention.js';
import type { Store } from '../store.js';
import type { WorkflowStore } from '../workflow-store.js';
import type { StepStore } from '../step-store.js';
import { SqlBulk } from './bulk.js';
import type { Executor } from './executor.js';
import { SqlIdempotencyClaims } from './idempotency-claims.js';
import { SqlRateLimits } from './rate-limits.js';
import { SqlRetention } from './retention.js';
import { SqlSchedules } from './schedules.js';
import { SqlCluster } from './sql-cluster.js';
import { SqlContext, type SqlStoreOptions } from './sql-context.js';
import { SqlJobs, SqlJobsWithin } from './sql-jobs.js';
import { SqlOperator } from './sql-operator.js';
import { SqlQueues } from './sql-queues.js';
import { SqlWorkflows } from './workflows.js';
import { SqlSteps } from './steps.js';
import { SqlBatches, SqlBatchesWithin } from './batches.js';
import type { BatchStore } from '../batch-store.js';

export type { SqlBackend, SqlStoreOptions, Unlisten } from './sql-context.js';

/** {@link Store} over SQL; `postgres()` and `embedded()` build it with their backend. */
export class SqlStore implements Store {
  /** Provider name: `postgres` or `embedded`. */
  readonly kind: string;
  /** The schema holding the tables. */
  readonly schema: string;
  /** {@inheritDoc Store.jobs} */
  readonly jobs: JobStore;
  /** {@inheritDoc Store.queues} */
  readonly queues: QueueStore;
  /** {@inheritDoc Store.operator} */
  readonly operator: OperatorStore;
  /** {@inheritDoc Store.bulk} */
  readonly bulk: BulkStore;
  /** {@inheritDoc Store.cluster} */
  readonly cluster: ClusterStore;
  /** {@inheritDoc Store.retention} */
  readonly retention: RetentionStore;
  /** {@inheritDoc Store.workflows} */
  readonly workflows: WorkflowStore;
  /** {@inheritDoc Store.steps} */
  readonly steps: StepStore;
  /** {@inheritDoc Store.batches} */
  readonly batches: BatchStore;
  /** What the parts share: the connection, the bound statements, the wake-ups. */
  private readonly context: SqlContext;
  /** {@inheritDoc Store.idempotencyClaims} */
  readonly idempotencyClaims: SqlIdempotencyClaims;
  /** {@inheritDoc Store.rateLimits} */
  readonly rateLimits: SqlRateLimits;
  /** {@inheritDoc Store.schedules} */
  readonly schedules: SqlSchedules;

  /** @param options See {@link SqlStoreOptions}. */
  constructor(options: SqlStoreOptions) {
    this.context = new SqlContext(options);
    this.kind = this.context.kind;
    this.schema = this.context.schema;
    // A backend that runs statements in a caller's transaction gets `jobs.enqueueWithin`.
    const { backend } = options;
    const workflows = new SqlWorkflows(this.context);
    this.workflows = workflows;
    const jobs =
      backend.within === undefined
        ? new SqlJobs(this.context, workflows)
        : new SqlJobsWithin(this.context, workflows, backend.within.bind(backend));
    this.jobs = jobs;
    this.batches =
      backend.within === undefined
        ? new SqlBatches(this.context)
        : new SqlBatchesWithin(this.context, backend.within.bind(backend));
    this.queues = new SqlQueues(this.context);
    this.operator = new SqlOperator(this.context);
    this.bulk = new SqlBulk(this.context);
    this.cluster = new SqlCluster(this.context);
    this.retention = new SqlRetention(this.context);
    this.steps = new SqlSteps(this.context, backend.within?.bind(backend));
    const db = (): Promise<Executor> => this.context.db();
    const now = (): Date | null => this.context.now();
    this.idempotencyClaims = new SqlIdempotencyClaims(db, this.context.sql, now);
    this.rateLimits = new SqlRateLimits(db, this.context.sql, now);
    // The schedules enqueue a tick's job in their own transaction, through the jobs part.
    this.schedules = new SqlSchedules({
      db,
      sql: this.context.sql,
      now,
      enqueueOn: (executor, due) => jobs.enqueueOn(executor, due),
      wake: (queues) => this.context.wake(queues),
    });
  }

  /** {@inheritDoc Store.useLogger} */
  useLogger(logger: Logger): void {
    this.context.logger.adopt(logger);
  }

  /** Opens the backend and migrates (or checks) the schema as `migrate` says. Idempotent. */
  open(): Promise<void> {
    return this.context.open();
  }

  /** Stops listeners and timers and closes the backend. Idempotent; safe without `open()`. */
  close(): Promise<void> {
    return this.context.close();
  }
}
