/**
 * The memory {@link Store}: the same observable semantics as the SQL providers, over plain maps.
 * Every operation runs synchronously from start to end inside one promise executor, so it is
 * atomic with respect to every other operation (JavaScript runs one of them at a time), and a
 * throw rejects the returned promise having written nothing.
 *
 * @internal Use the `memory()` factory.
 */
import type { FailureReason, HotState } from '../../job/state.js';
import type { Clock } from '../../util/clock.js';
import { uuidv7 } from '../../util/uuid.js';
import type {
  ArchivedJob,
  CancelResult,
  DeadJob,
  EnqueueResult,
  ErrorGroup,
  FoundJob,
  HotJob,
  KeyUsage,
  DueTypeCount,
  QueueGauges,
  QueueInfo,
  WorkerPresence,
  QueueStats,
} from '../model.js';
import type {
  ClaimRequest,
  HeartbeatResult,
  HandoffRequest,
  HandoffResult,
  HeartbeatLease,
  Lease,
  RescueOptions,
  PromoteResult,
  RescueResult,
  Settlement,
  JobStore,
} from '../job-store.js';
import type {
  DeadEdit,
  ErrorGroupFilter,
  GroupHour,
  PendingEdit,
  ResurrectRequest,
  OperatorStore,
} from '../operator-store.js';
import type { MetricBucket, QueuePatch, QueueStore } from '../queue-store.js';
import type { Store } from '../store.js';
import type { ClusterStore } from '../cluster-store.js';
import type { NewJob } from '../model.js';
import type { JobTable, TableCount, TablePage, TableQuery } from '../job-query.js';
import { editPendingJob, upsertQueue } from './admin.js';
import { errorGroupHours, listErrorGroups } from './error-groups.js';
import { countMemoryTable, queryMemoryTable } from './job-query.js';
import { cancelJobs } from './cancel.js';
import { claimJobs, startJobs } from './claim.js';
import { copyArchived, copyBucket, copyDead, copyHot, copyQueue } from './copy.js';
import type {
  AuditEntry,
  BulkAction,
  BulkBatch,
  BulkBatchResult,
  BulkEnd,
  BulkItem,
  BulkSkip,
  BulkSnapshot,
  BulkStart,
  NewAuditEntry,
  BulkStore,
} from '../bulk.js';
import { MemoryBulk } from './bulk.js';
import { deleteRows, expiredRows } from './retention.js';
import type { RetentionRule, RetentionStore } from '../retention.js';
import { editDeadJob, purgeDeadJobs, resurrectJobs } from './dlq.js';
import { enqueueJobs } from './enqueue.js';
import {
  bucketsSince,
  listArchiveRows,
  listDeadRows,
  listHotRows,
  dueByTypeOf,
  queueGaugesOf,
  queueStatsOf,
  sortedQueues,
} from './reads.js';
import { keyUsageOf } from './key-usage.js';
import { MemoryIdempotencyClaims } from './idempotency-claims.js';
import { MemoryRateLimits } from './rate-limits.js';
import { MemorySchedules } from './schedules.js';
import { heartbeatJobs, rescueJobs } from './recovery.js';
import { settleOne } from './settle.js';
import { handOff } from './handoff.js';
import { Tables } from './tables.js';
import { promoteDue } from './promote.js';
import { WakeHub } from './wake.js';

/** Runs `operation` synchronously, turning its result or throw into a settled promise. */
function atomically<T>(operation: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(operation()));
}

/** A volatile, single-process {@link Store} kept in memory. */
export class MemoryStore
  implements Store, JobStore, QueueStore, OperatorStore, BulkStore, ClusterStore, RetentionStore
{
  /** Provider name for logs. */
  readonly kind = 'memory';
  // Each capability is this store itself until the provider is split into its parts.
  readonly jobs: JobStore = this;
  readonly queues: QueueStore = this;
  readonly operator: OperatorStore = this;
  readonly bulk: BulkStore = this;
  readonly cluster: ClusterStore = this;
  readonly retention: RetentionStore = this;
  private readonly clock: Clock;
  private readonly tables: Tables;
  private readonly wake = new WakeHub();
  private readonly bulkTables: MemoryBulk;

  /** @param clock Source of "now" for scheduling, eligibility and every timestamp. */
  constructor(clock: Clock) {
    this.clock = clock;
    this.tables = new Tables(this.time());
    this.bulkTables = new MemoryBulk(
      this.tables,
      () => this.time(),
      (queues) => this.wake.notify(queues),
    );
  }

  /** The store clock's current time. */
  private time(): Date {
    return new Date(this.clock.now());
  }

  /** Nothing to open: a no-op, safe to call any number of times. */
  open(): Promise<void> {
    return Promise.resolve();
  }

  /** Drops wake-up subscribers; the data stays readable. Idempotent. */
  close(): Promise<void> {
    this.wake.clear();
    return Promise.resolve();
  }

  /** {@inheritDoc Store.enqueue} */
  enqueue(jobs: readonly NewJob[]): Promise<EnqueueResult[]> {
    return atomically(() => {
      const outcome = enqueueJobs(this.tables, jobs, this.time());
      this.wake.notify(outcome.wokenQueues);
      return outcome.results;
    });
  }

  /** {@inheritDoc Store.listen} */
  listen(onWake: (queue: string) => void): Promise<() => Promise<void>> {
    return Promise.resolve(this.wake.subscribe(onWake));
  }

  /** {@inheritDoc Store.claim} */
  claim(request: ClaimRequest): Promise<HotJob[]> {
    return atomically(() => claimJobs(this.tables, request, uuidv7(), this.time()).map(copyHot));
  }

  /** {@inheritDoc Store.start} */
  start(leases: readonly Lease[]): Promise<HotJob[]> {
    return atomically(() => startJobs(this.tables, leases, this.time()).map(copyHot));
  }

  /** {@inheritDoc Store.settle} */
  settle(settlements: readonly Settlement[]): Promise<boolean[]> {
    return atomically(() => {
      const { applied, released, archived } = this.settleNow(settlements, this.time());
      this.wakeCapped([...released, ...archived]);
      return applied;
    });
  }

  /** {@inheritDoc Store.settleAndClaim} */
  settleAndClaim(
    settlements: readonly Settlement[],
    handoff: HandoffRequest,
  ): Promise<HandoffResult> {
    return atomically(() => {
      const now = this.time();
      const { applied, released, archived } = this.settleNow(settlements, now);
      const { started, filled } = handOff(this.tables, archived, handoff, uuidv7(), now);
      // An archived row's queue is woken only when the hand-off left room in it.
      this.wakeCapped([...released, ...archived.filter((queue) => !filled.has(queue))]);
      return { applied, started: started.map(copyHot) };
    });
  }

  /**
   * Applies `settlements` (a lease id given twice counts once: its first occurrence, as in SQL);
   * returns what applied and the queue of each row that left fetched or processing: archived, or
   * moved otherwise (released).
   */
  private settleNow(
    settlements: readonly Settlement[],
    now: Date,
  ): { applied: boolean[]; released: string[]; archived: string[] } {
    const seen = new Set<string>();
    const released: string[] = [];
    const archived: string[] = [];
    const applied = settlements.map((settlement) => {
      if (seen.has(settlement.lease.id)) return false;
      seen.add(settlement.lease.id);
      const row = this.tables.hot.get(settlement.lease.id);
      const done = settleOne(this.tables, settlement, now);
      if (done && row !== undefined) {
        (settlement.kind === 'archive' ? archived : released).push(row.queue);
      }
      return done;
    });
    return { applied, released, archived };
  }

  /**
   * Wakes listeners of the capped queues among `jobs`' queues, whose rows just left fetched or
   * processing: a freed slot of a capped queue is claimed at once, not at the next poll.
   */
  private wakeCapped(freed: readonly string[]): void {
    const queues = new Set(freed);
    this.wake.notify(
      [...queues].filter((queue) => (this.tables.queues.get(queue)?.maxWorkers ?? null) !== null),
    );
  }

  /** {@inheritDoc Store.heartbeat} */
  heartbeat(leases: readonly HeartbeatLease[]): Promise<HeartbeatResult[]> {
    return atomically(() => heartbeatJobs(this.tables, leases, this.time()));
  }

  /**
   * {@inheritDoc Store.rescue}
   *
   * The memory store serves one process, so a rescue is never skipped.
   */
  rescue(options: RescueOptions): Promise<RescueResult> {
    return atomically(() => {
      const outcome = rescueJobs(this.tables, options, this.time());
      this.wakeCapped(
        [...outcome.dead, ...outcome.retried, ...outcome.cancelled].map((j) => j.queue),
      );
      return {
        skipped: false,
        ...outcome,
        idempotencyClaimsPurged: this.claims?.purgeNow() ?? 0,
      };
    });
  }

  /** {@inheritDoc Store.promote} */
  promote(limit: number): Promise<PromoteResult> {
    return atomically(() => {
      const result = promoteDue(this.tables, this.time(), limit);
      this.wake.notify(result.promoted.map((p) => p.queue));
      return result;
    });
  }

  /** {@inheritDoc Store.cancel} */
  cancel(ids: readonly string[], actor: string): Promise<CancelResult> {
    return atomically(() => cancelJobs(this.tables, ids, actor, this.time()));
  }

  /** {@inheritDoc Store.getJob} */
  getJob(id: string): Promise<FoundJob | null> {
    return atomically((): FoundJob | null => {
      const hot = this.tables.hot.get(id);
      if (hot !== undefined) return { where: 'hot', job: copyHot(hot) };
      const archived = this.tables.archive.get(id);
      if (archived !== undefined) return { where: 'archive', job: copyArchived(archived) };
      const dead = this.tables.dead.get(id);
      if (dead !== undefined) return { where: 'dlq', job: copyDead(dead) };
      return null;
    });
  }

  /** {@inheritDoc Store.listHot} */
  listHot(filter: { queue?: string; state?: HotState; limit: number }): Promise<HotJob[]> {
    return atomically(() => listHotRows(this.tables, filter).map(copyHot));
  }

  /** {@inheritDoc Store.listArchive} */
  listArchive(filter: { queue?: string; limit: number }): Promise<ArchivedJob[]> {
    return atomically(() => listArchiveRows(this.tables, filter).map(copyArchived));
  }

  /** {@inheritDoc Store.queryTable} */
  queryTable(table: JobTable, query: TableQuery): Promise<TablePage> {
    return atomically(() => queryMemoryTable(this.tables, table, query));
  }

  /** {@inheritDoc Store.countTable} */
  countTable(table: JobTable, query: TableQuery): Promise<TableCount> {
    return atomically(() => countMemoryTable(this.tables, table, query));
  }

  /** {@inheritDoc Store.errorGroups} */
  errorGroups(filter: ErrorGroupFilter): Promise<ErrorGroup[]> {
    return atomically(() => listErrorGroups(this.tables, filter));
  }

  /** {@inheritDoc Store.errorGroupHours} */
  errorGroupHours(fingerprints: readonly string[], since: Date): Promise<GroupHour[]> {
    return atomically(() => errorGroupHours(this.tables, fingerprints, since));
  }

  /** {@inheritDoc Store.listDead} */
  listDead(filter: { queue?: string; reason?: FailureReason; limit: number }): Promise<DeadJob[]> {
    return atomically(() => listDeadRows(this.tables, filter).map(copyDead));
  }

  /** {@inheritDoc Store.resurrect} */
  resurrect(ids: readonly string[], options: ResurrectRequest): Promise<string[]> {
    return atomically(() => {
      const targets = [...new Set(ids)].map((id) => ({ id }));
      const outcome = resurrectJobs(this.tables, targets, options, this.time());
      this.wake.notify(outcome.wokenQueues);
      return outcome.moved;
    });
  }

  /** {@inheritDoc Store.purgeDead} */
  purgeDead(ids: readonly string[]): Promise<number> {
    return atomically(
      () =>
        purgeDeadJobs(
          this.tables,
          ids.map((id) => ({ id })),
        ).length,
    );
  }

  /** {@inheritDoc Store.editDead} */
  editDead(id: string, edit: DeadEdit): Promise<boolean> {
    return atomically(() => editDeadJob(this.tables, id, edit, this.time()));
  }

  /** {@inheritDoc BulkStore.createBulk} */
  createBulk(snapshot: BulkSnapshot): Promise<void> {
    return atomically(() => this.bulkTables.createBulk(snapshot));
  }

  /** {@inheritDoc BulkStore.getBulk} */
  getBulk(id: string): Promise<BulkAction | null> {
    return atomically(() => this.bulkTables.getBulk(id));
  }

  /** {@inheritDoc BulkStore.listBulk} */
  listBulk(limit: number): Promise<BulkAction[]> {
    return atomically(() => this.bulkTables.listBulk(limit));
  }

  /** {@inheritDoc BulkStore.startBulk} */
  startBulk(id: string, tokenHash: string, actor: string, reason: string): Promise<BulkStart> {
    return atomically(() => this.bulkTables.startBulk(id, tokenHash, actor, reason));
  }

  /** {@inheritDoc BulkStore.nextBulkItems} */
  nextBulkItems(id: string, limit: number): Promise<{ action: BulkAction; items: BulkItem[] }> {
    return atomically(() => this.bulkTables.nextBulkItems(id, limit));
  }

  /** {@inheritDoc BulkStore.applyBulkBatch} */
  applyBulkBatch(id: string, batch: BulkBatch): Promise<BulkBatchResult> {
    return atomically(() => this.bulkTables.applyBulkBatch(id, batch));
  }

  /** {@inheritDoc BulkStore.bulkSkips} */
  bulkSkips(id: string, limit: number): Promise<BulkSkip[]> {
    return atomically(() => this.bulkTables.bulkSkips(id, limit));
  }

  /** {@inheritDoc BulkStore.finishBulk} */
  finishBulk(id: string, status: BulkEnd, error?: string): Promise<void> {
    return atomically(() => this.bulkTables.finishBulk(id, status, error));
  }

  /** {@inheritDoc BulkStore.requestBulkCancel} */
  requestBulkCancel(id: string, actor: string): Promise<BulkAction | null> {
    return atomically(() => this.bulkTables.requestBulkCancel(id, actor));
  }

  /** {@inheritDoc BulkStore.recordAction} */
  recordAction(entry: NewAuditEntry): Promise<AuditEntry> {
    return atomically(() => this.bulkTables.recordAction(entry));
  }

  /** {@inheritDoc BulkStore.listActions} */
  listActions(limit: number, beforeId?: string): Promise<AuditEntry[]> {
    return atomically(() => this.bulkTables.listActions(limit, beforeId));
  }

  /** {@inheritDoc Store.editPending} */
  editPending(id: string, edit: PendingEdit): Promise<boolean> {
    return atomically(() => editPendingJob(this.tables, id, edit, this.time()));
  }

  /** {@inheritDoc Store.listQueues} */
  listQueues(): Promise<QueueInfo[]> {
    return atomically(() => sortedQueues(this.tables).map(copyQueue));
  }

  /** {@inheritDoc Store.updateQueue} */
  updateQueue(name: string, patch: QueuePatch): Promise<QueueInfo> {
    return atomically(() => copyQueue(upsertQueue(this.tables, name, patch, this.time())));
  }

  /** {@inheritDoc Store.queueStats} */
  queueStats(): Promise<QueueStats[]> {
    return atomically(() => queueStatsOf(this.tables));
  }

  /** Subscribers of {@link MemoryStore.broadcast}: every ChokaQ sharing this store. */
  private readonly subscribers = new Set<(message: string) => void>();

  /** {@inheritDoc Store.broadcast} Delivered on a later turn of the event loop, as a network would. */
  broadcast(message: string): Promise<void> {
    for (const subscriber of this.subscribers) {
      setImmediate(() => {
        if (!this.subscribers.has(subscriber)) return;
        try {
          subscriber(message);
        } catch {
          // A subscriber's failure is its own (ChokaQ's logs it); the others still get theirs.
        }
      });
    }
    return Promise.resolve();
  }

  /** {@inheritDoc Store.subscribe} */
  subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>> {
    const subscriber = (message: string): void => onMessage(message);
    this.subscribers.add(subscriber);
    return Promise.resolve(() => {
      this.subscribers.delete(subscriber);
      return Promise.resolve();
    });
  }

  /** {@inheritDoc Store.purgeBatch} */
  purgeBatch(rule: RetentionRule, limit: number): Promise<number> {
    return atomically(() => {
      const now = this.time();
      const cutoff = new Date(now.getTime() - rule.olderThanMs);
      if (rule.table === 'audit') return this.bulkTables.purgeAudit(cutoff, limit);
      if (rule.table === 'bulkActions') return this.bulkTables.purgeActions(cutoff, limit);
      if (rule.table === 'scheduleTicks') return this.scheduleStore.purgeTicks(cutoff, limit);
      const expired = expiredRows(this.tables, rule, cutoff).slice(0, limit);
      return deleteRows(this.tables, rule, expired, cutoff, now);
    });
  }

  /** {@inheritDoc Store.countPurgeable} */
  countPurgeable(rule: RetentionRule): Promise<number> {
    return atomically(() => {
      const cutoff = new Date(this.time().getTime() - rule.olderThanMs);
      if (rule.table === 'audit') return this.bulkTables.countAudit(cutoff);
      if (rule.table === 'bulkActions') return this.bulkTables.countActions(cutoff);
      if (rule.table === 'scheduleTicks') return this.scheduleStore.countTicks(cutoff);
      return expiredRows(this.tables, rule, cutoff).length;
    });
  }

  /** Leases by duty name. */
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();

  /** {@inheritDoc Store.takeLease} */
  takeLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    return atomically(() => {
      const now = this.time().getTime();
      const lease = this.leases.get(name);
      if (lease !== undefined && lease.holder !== holder && lease.expiresAt >= now) return false;
      this.leases.set(name, { holder, expiresAt: now + ttlMs });
      return true;
    });
  }

  /** Worker processes by id. */
  private readonly workers = new Map<string, WorkerPresence>();

  /** {@inheritDoc Store.recordWorker} */
  recordWorker(worker: Omit<WorkerPresence, 'lastSeenAt'>): Promise<void> {
    return atomically(() => {
      const now = this.time();
      for (const [id, seen] of this.workers) {
        if (seen.lastSeenAt.getTime() < now.getTime() - 86_400_000) this.workers.delete(id);
      }
      this.workers.set(worker.id, structuredClone({ ...worker, lastSeenAt: now }));
    });
  }

  /** {@inheritDoc Store.forgetWorker} */
  forgetWorker(id: string): Promise<void> {
    return atomically(() => {
      this.workers.delete(id);
    });
  }

  /** {@inheritDoc Store.listWorkers} */
  listWorkers(withinMs: number): Promise<WorkerPresence[]> {
    return atomically(() => {
      const since = this.time().getTime() - withinMs;
      return [...this.workers.values()]
        .filter((w) => w.lastSeenAt.getTime() >= since)
        .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? -1 : 1))
        .map((w) => structuredClone(w));
    });
  }

  /** {@inheritDoc Store.keyUsage} */
  keyUsage(filter: { queue?: string; limit: number }): Promise<KeyUsage[]> {
    return atomically(() => keyUsageOf(this.tables, filter));
  }

  /** {@inheritDoc Store.dueByType} */
  dueByType(queues: readonly string[], limit: number): Promise<DueTypeCount[]> {
    return atomically(() => dueByTypeOf(this.tables, this.time(), queues, limit));
  }

  /** {@inheritDoc Store.queueGauges} */
  queueGauges(): Promise<QueueGauges[]> {
    return atomically(() => queueGaugesOf(this.tables, this.time()));
  }

  /** {@inheritDoc Store.metricBuckets} */
  metricBuckets(since: Date): Promise<MetricBucket[]> {
    return atomically(() => bucketsSince(this.tables, since).map(copyBucket));
  }

  /** {@inheritDoc Store.now} */
  now(): Promise<Date> {
    return Promise.resolve(this.time());
  }

  /** Made on first use; one per store. */
  private claims: MemoryIdempotencyClaims | undefined;

  /** Made on first use; one per store. */
  private rates: MemoryRateLimits | undefined;

  /** {@inheritDoc Store.rateLimits} */
  rateLimits(): MemoryRateLimits {
    return (this.rates ??= new MemoryRateLimits(this.clock));
  }

  /** {@inheritDoc Store.idempotencyClaims} */
  idempotencyClaims(): MemoryIdempotencyClaims {
    return (this.claims ??= new MemoryIdempotencyClaims(this.clock));
  }

  /** Made with the store: retention reaches its ticks. */
  private readonly scheduleStore = new MemorySchedules({
    now: () => this.time(),
    enqueue: (job) => {
      const outcome = enqueueJobs(this.tables, [job], this.time());
      this.wake.notify(outcome.wokenQueues);
    },
    isHot: (id) => this.tables.hot.has(id),
  });

  /** {@inheritDoc Store.schedules} */
  schedules(): MemorySchedules {
    return this.scheduleStore;
  }
}
