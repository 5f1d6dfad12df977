/**
 * The memory {@link Store}: the same observable semantics as the SQL providers, over plain maps.
 * A composition of its capability parts, which share one {@link MemoryState} (tables, clock,
 * wake-ups); each of their operations that reads or writes runs through `atomically` (`state.ts`),
 * so it is atomic with respect to every other operation of the store.
 *
 * @internal Use the `memory()` factory.
 */
import type { Clock } from '../../util/clock.js';
import type { BulkStore } from '../bulk.js';
import type { ClusterStore } from '../cluster-store.js';
import type { JobStore } from '../job-store.js';
import type { OperatorStore } from '../operator-store.js';
import type { QueueStore } from '../queue-store.js';
import type { RetentionStore } from '../retention.js';
import type { Store } from '../store.js';
import type { WorkflowStore } from '../workflow-store.js';
import type { StepStore } from '../step-store.js';
import { MemoryBulk } from './bulk.js';
import { MemoryCluster } from './cluster.js';
import { MemoryIdempotencyClaims } from './idempotency-claims.js';
import { MemoryJobs } from './jobs.js';
import { MemoryOperator } from './operator.js';
import { MemoryQueues } from './queues.js';
import { MemoryRateLimits } from './rate-limits.js';
import { MemoryRetention } from './retention.js';
import { MemorySchedules } from './schedules.js';
import { MemoryState } from './state.js';
import { MemorySteps } from './steps.js';
import { MemoryWorkflows } from './workflows.js';
import { MemoryBatches } from './batches.js';
import type { BatchStore } from '../batch-store.js';

/** A volatile, single-process {@link Store} kept in memory. */
export class MemoryStore implements Store {
  /** Provider name for logs. */
  readonly kind = 'memory';
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
  private readonly state: MemoryState;
  /** {@inheritDoc Store.idempotencyClaims} */
  readonly idempotencyClaims: MemoryIdempotencyClaims;
  /** {@inheritDoc Store.rateLimits} */
  readonly rateLimits: MemoryRateLimits;
  /** {@inheritDoc Store.schedules} */
  readonly schedules: MemorySchedules;

  /** @param clock Source of "now" for scheduling, eligibility and every timestamp. */
  constructor(clock: Clock) {
    const state = new MemoryState(clock);
    this.state = state;
    this.idempotencyClaims = new MemoryIdempotencyClaims(clock);
    this.rateLimits = new MemoryRateLimits(clock);
    const jobs = new MemoryJobs(state, this.idempotencyClaims);
    const bulk = new MemoryBulk(state);
    this.schedules = new MemorySchedules({
      now: () => state.time(),
      enqueue: (job) => {
        jobs.insert([job]);
      },
      isHot: (id) => state.tables.hot.has(id),
    });
    this.jobs = jobs;
    this.queues = new MemoryQueues(state);
    this.operator = new MemoryOperator(state);
    this.bulk = bulk;
    this.cluster = new MemoryCluster(state);
    this.retention = new MemoryRetention(state, bulk, this.schedules);
    this.workflows = new MemoryWorkflows(state);
    this.steps = new MemorySteps(state);
    this.batches = new MemoryBatches(state);
  }

  /** Nothing to open: a no-op, safe to call any number of times. */
  open(): Promise<void> {
    return Promise.resolve();
  }

  /** Drops wake-up subscribers; the data stays readable. Idempotent. */
  close(): Promise<void> {
    this.state.wake.clear();
    return Promise.resolve();
  }
}
