/**
 * The storage contract over SQL, shared by the `postgres` and `embedded` providers: both send
 * the same statements (PostgreSQL ≥ 13 dialect) through an {@link Executor}.
 */
import { logEvent } from '../../observability/logging/log-events.js';
import { ChokaQError } from '../../errors.js';
import { FAILURE_REASON_CODE, HOT_STATE_CODE } from '../../job/state.js';
import type { FailureReason, HotState } from '../../job/state.js';
import type { Logger } from '../../observability/logging/logger.js';
import type { ProviderLogger } from '../../observability/logging/provider-logger.js';
import { BackgroundRefresh } from '../../util/background-refresh.js';
import { systemClock } from '../../util/clock.js';
import type {
  ArchivedJob,
  CancelResult,
  DeadJob,
  EnqueueResult,
  ErrorGroup,
  FoundJob,
  ClaimedJob,
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
import type { RetentionRule, RetentionStore } from '../retention.js';
import type { JobTable, TableCount, TablePage, TableQuery } from '../job-query.js';
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
import { SqlBulk } from './bulk.js';
import { ClaimContention, claimJobs, type LockedQueues } from './claim.js';
import { countTable, queryTable } from './job-query.js';
import { countPurgeable, purgeBatch } from './retention.js';
import { enqueueJobs } from './enqueue-batch.js';
import { isArchiveIdTaken, isTransientConflict } from './errors.js';
import type { Executor } from './executor.js';
import { QUERIES, type QueryName } from './generated.js';
import { SqlIdempotencyClaims } from './idempotency-claims.js';
import { SqlRateLimits } from './rate-limits.js';
import { SqlSchedules } from './schedules.js';
import { checkMigrated, migrate } from './migrator.js';
import type { MigrateOnOpen } from './provider-options.js';
import { WakeNotifier } from './notifier.js';
import { cancelIn, rescueIn } from './recovery.js';
import {
  archivedJobOf,
  deadJobOf,
  errorGroupOf,
  claimedJobOf,
  hotJobOf,
  metricBucketOf,
  queueInfoOf,
  queueGaugesOf,
  workerPresenceOf,
  queueStatsOf,
  toDate,
  toNumber,
} from './rows.js';
import { bindQueries, eventsChannel, validateSchema, wakeChannel } from './schema.js';
import * as run from './statements.js';
import type { SettleArchiveParams } from './statements.js';
import { evictParams, groupSettlements, settleOutcome } from './settle-batch.js';
import { handoffParams, handoffQueues, readHandoffRows } from './handoff.js';

/** What a settle moved: job ids, the queues whose slots it freed for others, jobs it started. */
interface SettledRows {
  moved: Set<string>;
  freed: string[];
  started: ClaimedJob[];
}

/** Unsubscribes a listener. */
export type Unlisten = () => Promise<void>;

/** What a provider plugs into {@link SqlStore}: connections, and optionally a push channel. */
export interface SqlBackend {
  /** Opens connections or files and returns the executor. Called once per open. */
  open(): Promise<Executor>;
  /** Subscribes to NOTIFY payloads on `channel`; omit when the provider has no push channel. */
  listen?(channel: string, onPayload: (payload: string) => void): Promise<Unlisten>;
  /** Releases what `open` acquired. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link SqlStore}. */
export interface SqlStoreOptions {
  /** Provider name reported as {@link Store.kind}. */
  kind: string;
  backend: SqlBackend;
  /** Validated schema name. */
  schema: string;
  /** What `open()` does about migrations (see {@link MigrateOnOpen}). */
  migrate: MigrateOnOpen;
  /** The provider's logger, also handed to its backend; see {@link SqlStore.useLogger}. */
  logger: ProviderLogger;
}

/**
 * How many times a settle, rescue or cancel transaction is run in all when it fails on a deadlock
 * or serialization conflict.
 */
const CONFLICT_ATTEMPTS = 4;

/** How long the list of capped queues is cached by a store, in ms. */
const CAPPED_QUEUES_TTL_MS = 1000;

/** {@link Store} over SQL; `postgres()` and `embedded()` build it with their backend. */
export class SqlStore
  implements Store, JobStore, QueueStore, OperatorStore, BulkStore, ClusterStore, RetentionStore
{
  /** Provider name: `postgres` or `embedded`. */
  readonly kind: string;
  // Each capability is this store itself until the provider is split into its parts.
  readonly jobs: JobStore = this;
  readonly queues: QueueStore = this;
  readonly operator: OperatorStore = this;
  readonly bulk: BulkStore = this;
  readonly cluster: ClusterStore = this;
  readonly retention: RetentionStore = this;
  /** The schema holding the tables. */
  readonly schema: string;
  /** Statements bound to {@link SqlStore.schema}. */
  protected readonly sql: Readonly<Record<QueryName, string>>;
  /** The LISTEN/NOTIFY channel of the schema. */
  protected readonly channel: string;
  protected readonly logger: ProviderLogger;
  private readonly backend: SqlBackend;
  private readonly migrateOnOpen: MigrateOnOpen;
  private executor: Executor | null = null;
  /**
   * Capped and keyed queues. Exactness does not depend on this cache: the fast path reads caps
   * from its own snapshot and skips capped queues and jobs with a concurrency key, so a cap set
   * elsewhere is honoured at once; the cache only decides whether to take the locked path, so a
   * new capped queue (or a queue's first keyed jobs) may wait one refresh (made in the
   * background, never in a claim's way) before its jobs are claimed.
   */
  private readonly capped: BackgroundRefresh<LockedQueues>;
  /** Whether claims of queues with key limits take the transaction for now (see claim.ts). */
  private readonly contention = new ClaimContention();
  private opening: Promise<void> | null = null;
  private closed = false;
  private notifier: WakeNotifier | null = null;
  private readonly listeners = new Set<Unlisten>();
  /** This store's wake listeners, told of a freed capped slot before the NOTIFY goes out. */
  private readonly ownListeners = new Set<(queue: string) => void>();

  /** @param options See {@link SqlStoreOptions}. */
  constructor(options: SqlStoreOptions) {
    this.kind = options.kind;
    this.schema = validateSchema(options.schema);
    this.sql = bindQueries(QUERIES, this.schema);
    this.channel = wakeChannel(this.schema);
    this.backend = options.backend;
    this.migrateOnOpen = options.migrate;
    this.logger = options.logger;
    this.capped = new BackgroundRefresh({
      read: async () => {
        const db = await this.db();
        const rows = await run.cappedQueues(db, this.sql);
        const named = (flag: keyof LockedQueues): string[] =>
          rows.filter((row) => row[flag]).map((row) => row.name);
        return { capped: named('capped'), keyed: named('keyed'), limited: named('limited') };
      },
      maxAgeMs: CAPPED_QUEUES_TTL_MS,
      clock: systemClock,
      onError: (error) => {
        this.logger.warn('could not re-read capped queues', {
          ...logEvent('CappedQueuesReadFailed'),
          error: String(error),
        });
      },
    });
  }

  /** {@inheritDoc Store.useLogger} */
  useLogger(logger: Logger): void {
    this.logger.adopt(logger);
  }

  /** Opens the backend and migrates (or checks) the schema as `migrate` says. Idempotent. */
  open(): Promise<void> {
    if (this.executor !== null) return Promise.resolve();
    this.closed = false;
    this.opening ??= this.doOpen().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  private async doOpen(): Promise<void> {
    const executor = await this.backend.open();
    try {
      if (this.migrateOnOpen === 'check') await checkMigrated(executor, this.schema);
      else if (this.migrateOnOpen) {
        const applied = await migrate(executor, this.schema);
        if (applied.length > 0) {
          this.logger.info('schema migrated', {
            ...logEvent('SqlInitializationCompleted'),
            schema: this.schema,
            versions: applied.map((m) => m.version),
          });
        }
      }
    } catch (error) {
      await this.backend.close().catch(() => undefined);
      throw error;
    }
    this.executor = executor;
    this.notifier = new WakeNotifier(async (queue) => {
      const db = this.executor;
      if (db !== null) await run.notify(db, this.sql, { channel: this.channel, payload: queue });
    }, this.logger);
  }

  /** Stops listeners and timers and closes the backend. Idempotent; safe without `open()`. */
  async close(): Promise<void> {
    this.closed = true;
    await this.opening?.catch(() => undefined);
    this.notifier?.stop();
    this.notifier = null;
    const listeners = [...this.listeners];
    this.listeners.clear();
    await Promise.all(listeners.map((unlisten) => unlisten().catch(() => undefined)));
    this.executor = null;
    await this.backend.close();
  }

  /** The open executor; opens on first use, fails after `close()`. */
  protected async db(): Promise<Executor> {
    if (this.executor !== null) return this.executor;
    if (this.closed) {
      throw new ChokaQError('CHOKAQ_NOT_STARTED', `The ${this.kind} store is closed; call open().`);
    }
    await this.open();
    if (this.executor === null) {
      throw new ChokaQError('CHOKAQ_NOT_STARTED', `The ${this.kind} store is closed; call open().`);
    }
    return this.executor;
  }

  async enqueue(jobs: readonly NewJob[]): Promise<EnqueueResult[]> {
    if (jobs.length === 0) return [];
    const results = await this.enqueueOn(await this.db(), jobs);
    this.notifier?.wake(queuesCreated(jobs, results));
    return results;
  }

  /**
   * Runs the enqueue algorithm on `db` (the pool, or a caller's transaction). Keyed jobs in a
   * queue not yet known as keyed (or limited) make this process re-read the list before its next
   * claim.
   */
  protected async enqueueOn(db: Executor, jobs: readonly NewJob[]): Promise<EnqueueResult[]> {
    const results = await enqueueJobs(db, this.sql, jobs);
    const known = this.capped.peek();
    const unknown = (job: NewJob): boolean =>
      (job.concurrencyKey ?? null) !== null &&
      (known?.keyed.includes(job.queue) !== true ||
        ((job.concurrencyLimit ?? null) !== null && !known.limited.includes(job.queue)));
    if (jobs.some(unknown)) this.capped.invalidate();
    return results;
  }

  async listen(onWake: (queue: string) => void): Promise<Unlisten> {
    const stop = await this.listenOn(this.channel, onWake, 'wake');
    this.ownListeners.add(onWake);
    return async () => {
      this.ownListeners.delete(onWake);
      await stop();
    };
  }

  /** LISTENs on `channel` through the backend (nothing when it has no push channel). */
  private async listenOn(
    channel: string,
    onPayload: (payload: string) => void,
    what: string,
  ): Promise<Unlisten> {
    await this.db();
    if (this.backend.listen === undefined) return () => Promise.resolve();
    const unlisten = await this.backend.listen(channel, (payload) => {
      try {
        onPayload(payload);
      } catch (error) {
        this.logger.warn(`${what} listener threw`, {
          ...logEvent('StoreListenerFailed'),
          error: String(error),
        });
      }
    });
    let done = false;
    const stop: Unlisten = async () => {
      if (done) return;
      done = true;
      this.listeners.delete(stop);
      await unlisten();
    };
    this.listeners.add(stop);
    return stop;
  }

  /** {@inheritDoc Store.broadcast} */
  async broadcast(message: string): Promise<void> {
    const db = await this.db();
    await run.notify(db, this.sql, { channel: eventsChannel(this.schema), payload: message });
  }

  /** {@inheritDoc Store.subscribe} */
  async subscribe(onMessage: (message: string) => void): Promise<Unlisten> {
    return this.listenOn(eventsChannel(this.schema), onMessage, 'event');
  }

  async claim(request: ClaimRequest): Promise<ClaimedJob[]> {
    return claimJobs(await this.db(), this.sql, this.capped, request, this.contention);
  }

  async start(leases: readonly Lease[]): Promise<ClaimedJob[]> {
    if (leases.length === 0) return [];
    const db = await this.db();
    const rows = await run.start(db, this.sql, {
      ids: leases.map((l) => l.id),
      workerIds: leases.map((l) => l.workerId),
      leaseTokens: leases.map((l) => l.leaseToken),
    });
    return rows.map(claimedJobOf);
  }

  async settle(settlements: readonly Settlement[]): Promise<boolean[]> {
    return (await this.settleHandingOff(settlements, null)).applied;
  }

  /** {@inheritDoc Store.settleAndClaim} */
  settleAndClaim(
    settlements: readonly Settlement[],
    handoff: HandoffRequest,
  ): Promise<HandoffResult> {
    return this.settleHandingOff(settlements, handoff);
  }

  /**
   * Settles; with a `handoff`, the archive is settle_archive_claim.sql (it starts the freed capped
   * slots' next jobs for the worker) when the worker serves a capped queue it may take from.
   */
  private async settleHandingOff(
    settlements: readonly Settlement[],
    handoff: HandoffRequest | null,
  ): Promise<HandoffResult> {
    if (settlements.length === 0) return { applied: [], started: [] };
    const groups = groupSettlements(settlements);
    const db = await this.db();
    const queues =
      handoff !== null && groups.archive !== null && handoff.limit >= 1
        ? handoffQueues(await this.capped.get(), handoff)
        : [];
    const { archive, dead, retry, release } = groups;
    const claiming =
      handoff !== null && archive !== null && queues.length > 0
        ? handoffParams(archive, handoff, queues)
        : null;
    // The statements whose rows are the id and queue of each job they moved, in this order.
    const moves: ((on: Executor) => Promise<readonly { id: string; queue: string }[]>)[] = [];
    if (archive !== null && claiming === null) {
      moves.push((on) => run.settleArchive(on, this.sql, archive));
    }
    if (dead !== null) moves.push((on) => run.moveToDlq(on, this.sql, dead));
    if (retry !== null) moves.push((on) => run.settleRetry(on, this.sql, retry));
    if (release !== null) moves.push((on) => run.settleRelease(on, this.sql, release));
    const statements = moves.length + (claiming === null ? 0 : 1);
    const runAll = async (on: Executor): Promise<SettledRows> => {
      const done: SettledRows = { moved: new Set(), freed: [], started: [] };
      if (claiming !== null) {
        const handed = readHandoffRows(await run.settleArchiveClaim(on, this.sql, claiming));
        for (const [id, queue] of handed.moved) {
          done.moved.add(id);
          if (!handed.filled.has(queue)) done.freed.push(queue);
        }
        done.started.push(...handed.started);
      }
      for (const move of moves) {
        for (const row of await move(on)) {
          done.moved.add(row.id);
          done.freed.push(row.queue);
        }
      }
      return done;
    };
    // One kind is one statement, atomic on its own: skip BEGIN/COMMIT and their round trips.
    const settleOnce = (): Promise<SettledRows> =>
      this.retryOnConflict('settle', () =>
        statements === 1 ? runAll(db) : db.transaction(runAll),
      );
    // An archived job had the id of one archived now (rare: a caller-given id used again). The
    // statement failed whole; the archive rows it replaces go first, in the same transaction.
    const evictFirst = (archived: SettleArchiveParams): Promise<SettledRows> =>
      this.retryOnConflict('settle', () =>
        db.transaction(async (tx) => {
          await run.archiveEvict(tx, this.sql, evictParams(archived));
          return runAll(tx);
        }),
      );
    const done = await settleOnce().catch((error: unknown) => {
      if (archive === null || !isArchiveIdTaken(error)) throw error;
      return evictFirst(archive);
    });
    this.wakeCapped(done.freed);
    return { applied: settleOutcome(settlements, done.moved), started: done.started };
  }

  /**
   * Runs `transaction` again (up to {@link CONFLICT_ATTEMPTS} runs in all) when it failed on a
   * deadlock or serialization conflict. Transactions touching several queues' counter rows, or
   * hot rows another transaction holds, can deadlock; the whole transaction rolled back, so
   * running it again is safe.
   */
  private async retryOnConflict<T>(what: string, transaction: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await transaction();
      } catch (error) {
        if (attempt >= CONFLICT_ATTEMPTS || !isTransientConflict(error)) throw error;
        this.logger.debug(`${what} retried after a lock conflict`, {
          ...logEvent('LockConflictRetried'),
          attempt,
        });
      }
    }
  }

  async heartbeat(leases: readonly HeartbeatLease[]): Promise<HeartbeatResult[]> {
    if (leases.length === 0) return [];
    const db = await this.db();
    const rows = await run.heartbeat(db, this.sql, {
      ids: leases.map((l) => l.id),
      workerIds: leases.map((l) => l.workerId),
      leaseTokens: leases.map((l) => l.leaseToken),
      progress: leases.map((l) => l.progress ?? null),
    });
    const alive = new Map<string, HeartbeatResult>();
    for (const row of rows) {
      alive.set(leaseKey(row.id, row.worker_id, row.lease_token), {
        alive: true,
        cancelRequested: row.cancel_requested,
        cancelRequestedBy: row.cancel_requested ? row.cancel_requested_by : null,
      });
    }
    return leases.map(
      (lease) =>
        alive.get(leaseKey(lease.id, lease.workerId, lease.leaseToken)) ?? {
          alive: false,
          cancelRequested: false,
          cancelRequestedBy: null,
        },
    );
  }

  /** {@inheritDoc Store.rescue} */
  async rescue(options: RescueOptions): Promise<RescueResult> {
    const db = await this.db();
    const result = await this.retryOnConflict('rescue', () =>
      db.transaction((tx) => rescueIn(tx, this.sql, this.schema, options)),
    );
    this.wakeCapped([...result.dead, ...result.retried, ...result.cancelled].map((j) => j.queue));
    return result;
  }

  /**
   * Wakes every process's workers for the capped and limited queues among `queues`, whose rows left
   * fetched or processing: a freed slot of a capped queue is claimed at once, not at the next
   * poll. This store's own listeners hear it at once, the other processes' by NOTIFY. Uncapped
   * queues need no wake-up (their workers claim whenever they have free slots).
   */
  private wakeCapped(queues: Iterable<string>): void {
    const locked = this.capped.peek();
    if (locked === undefined || locked.capped.length + locked.limited.length === 0) return;
    const freed = new Set<string>();
    for (const queue of queues) {
      if (locked.capped.includes(queue) || locked.limited.includes(queue)) freed.add(queue);
    }
    if (freed.size === 0) return;
    // This process's workers first: they claim while the NOTIFY is on its way to the others
    // (measured: W8 about +1.5 points of the cap, docs/benchmarks.md).
    for (const queue of freed) for (const wake of this.ownListeners) wake(queue);
    this.notifier?.wake(freed);
  }

  /** {@inheritDoc Store.promote} */
  async promote(limit: number): Promise<PromoteResult> {
    const db = await this.db();
    const rows = await run.promote(db, this.sql, { limit });
    const promoted: PromoteResult['promoted'] = [];
    let nextDueInMs: number | null = null;
    for (const row of rows) {
      if (row.queue !== null) promoted.push({ queue: row.queue, count: toNumber(row.promoted) });
      if (row.next_run_at !== null) nextDueInMs = Math.max(0, row.next_run_at - row.read_at);
    }
    const queues = promoted.map((p) => p.queue);
    // This process's workers at once, the other processes' by NOTIFY (as after an enqueue).
    for (const queue of queues) for (const wake of this.ownListeners) wake(queue);
    this.notifier?.wake(queues);
    return { promoted, nextDueInMs };
  }

  /** {@inheritDoc Store.cancel} */
  async cancel(ids: readonly string[], actor: string): Promise<CancelResult> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return { cancelled: [], requested: [] };
    const db = await this.db();
    return this.retryOnConflict('cancel', () =>
      db.transaction((tx) => cancelIn(tx, this.sql, unique, actor), 'operator'),
    );
  }

  async getJob(id: string): Promise<FoundJob | null> {
    const db = await this.db();
    const [hot] = await run.getHot(db, this.sql, { id });
    if (hot !== undefined) return { where: 'hot', job: hotJobOf(hot) };
    const [archived] = await run.getArchive(db, this.sql, { id });
    if (archived !== undefined) return { where: 'archive', job: archivedJobOf(archived) };
    const [dead] = await run.getDead(db, this.sql, { id });
    if (dead !== undefined) return { where: 'dlq', job: deadJobOf(dead) };
    return null;
  }

  async listHot(filter: { queue?: string; state?: HotState; limit: number }): Promise<HotJob[]> {
    const db = await this.db();
    const rows = await run.listHot(db, this.sql, {
      queue: filter.queue ?? null,
      status: filter.state === undefined ? null : HOT_STATE_CODE[filter.state],
      limit: filter.limit,
    });
    return rows.map(hotJobOf);
  }

  async listArchive(filter: { queue?: string; limit: number }): Promise<ArchivedJob[]> {
    const db = await this.db();
    const rows = await run.listArchive(db, this.sql, {
      queue: filter.queue ?? null,
      limit: filter.limit,
    });
    return rows.map(archivedJobOf);
  }

  async listDead(filter: {
    queue?: string;
    reason?: FailureReason;
    limit: number;
  }): Promise<DeadJob[]> {
    const db = await this.db();
    const rows = await run.listDead(db, this.sql, {
      queue: filter.queue ?? null,
      reason: filter.reason === undefined ? null : FAILURE_REASON_CODE[filter.reason],
      limit: filter.limit,
    });
    return rows.map(deadJobOf);
  }

  async resurrect(ids: readonly string[], options: ResurrectRequest): Promise<string[]> {
    if (ids.length === 0) return [];
    const db = await this.db();
    const unique = [...new Set(ids)];
    const rows = await operator(db, (tx) =>
      run.resurrect(tx, this.sql, {
        ids: unique,
        actor: options.actor,
        payloads: unique.map(() => options.payload ?? null),
        replaceTags: options.tags !== undefined,
        tags: options.tags ?? null,
        priority: options.priority ?? 10,
        versions: unique.map(() => null),
      }),
    );
    const moved = new Set(rows.map((row) => row.id));
    return [...new Set(ids)].filter((id) => moved.has(id));
  }

  async purgeDead(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const db = await this.db();
    const unique = [...new Set(ids)];
    const rows = await operator(db, (tx) =>
      run.purgeDead(tx, this.sql, { ids: unique, versions: unique.map(() => null) }),
    );
    return rows.length;
  }

  async editPending(id: string, edit: PendingEdit): Promise<boolean> {
    const db = await this.db();
    const rows = await operator(db, (tx) =>
      run.editPending(tx, this.sql, {
        id,
        payload: edit.payload ?? null,
        replaceTags: edit.tags !== undefined,
        tags: edit.tags ?? null,
        priority: edit.priority ?? null,
        actor: edit.actor,
        delayMs: edit.delayMs ?? null,
      }),
    );
    return rows.length > 0;
  }

  /** {@inheritDoc Store.queryTable} */
  async queryTable(table: JobTable, query: TableQuery): Promise<TablePage> {
    return queryTable(await this.db(), `"${this.schema}"`, table, query);
  }

  /** {@inheritDoc Store.countTable} */
  async countTable(table: JobTable, query: TableQuery): Promise<TableCount> {
    return countTable(await this.db(), `"${this.schema}"`, table, query);
  }

  /** {@inheritDoc Store.errorGroups} */
  async errorGroups(filter: ErrorGroupFilter): Promise<ErrorGroup[]> {
    const db = await this.db();
    const rows = await run.errorGroups(db, this.sql, {
      queues: filter.queues ?? null,
      types: filter.types ?? null,
      limit: filter.limit,
    });
    return rows.map(errorGroupOf);
  }

  /** {@inheritDoc Store.errorGroupHours} */
  async errorGroupHours(fingerprints: readonly string[], since: Date): Promise<GroupHour[]> {
    const db = await this.db();
    const rows = await run.errorGroupHours(db, this.sql, { fingerprints, since });
    return rows.map((row) => ({
      fingerprint: row.fingerprint,
      hourStart: toDate(row.hour_start),
      count: toNumber(row.dead_count),
    }));
  }

  /** {@inheritDoc Store.editDead} */
  async editDead(id: string, edit: DeadEdit): Promise<boolean> {
    const db = await this.db();
    const rows = await operator(db, (tx) =>
      run.editDead(tx, this.sql, {
        id,
        payload: edit.payload ?? null,
        replaceTags: edit.tags !== undefined,
        tags: edit.tags ?? null,
        actor: edit.actor,
      }),
    );
    return rows.length > 0;
  }

  /** Bulk actions and the audit trail (see `storage/bulk.ts`); made on first use. */
  private bulkVerbs: SqlBulk | undefined;
  private get bulkSql(): SqlBulk {
    return (this.bulkVerbs ??= new SqlBulk(() => this.db(), this.sql));
  }

  /** {@inheritDoc BulkStore.createBulk} */
  createBulk(snapshot: BulkSnapshot): Promise<void> {
    return this.bulkSql.createBulk(snapshot);
  }

  /** {@inheritDoc BulkStore.getBulk} */
  getBulk(id: string): Promise<BulkAction | null> {
    return this.bulkSql.getBulk(id);
  }

  /** {@inheritDoc BulkStore.listBulk} */
  listBulk(limit: number): Promise<BulkAction[]> {
    return this.bulkSql.listBulk(limit);
  }

  /** {@inheritDoc BulkStore.startBulk} */
  startBulk(id: string, tokenHash: string, actor: string, reason: string): Promise<BulkStart> {
    return this.bulkSql.startBulk(id, tokenHash, actor, reason);
  }

  /** {@inheritDoc BulkStore.nextBulkItems} */
  nextBulkItems(id: string, limit: number): Promise<{ action: BulkAction; items: BulkItem[] }> {
    return this.bulkSql.nextBulkItems(id, limit);
  }

  /** {@inheritDoc BulkStore.applyBulkBatch} */
  applyBulkBatch(id: string, batch: BulkBatch): Promise<BulkBatchResult> {
    return this.retryOnConflict('bulk batch', () => this.bulkSql.applyBulkBatch(id, batch));
  }

  /** {@inheritDoc BulkStore.bulkSkips} */
  bulkSkips(id: string, limit: number): Promise<BulkSkip[]> {
    return this.bulkSql.bulkSkips(id, limit);
  }

  /** {@inheritDoc BulkStore.finishBulk} */
  finishBulk(id: string, status: BulkEnd, error?: string): Promise<void> {
    return this.bulkSql.finishBulk(id, status, error);
  }

  /** {@inheritDoc BulkStore.requestBulkCancel} */
  requestBulkCancel(id: string, actor: string): Promise<BulkAction | null> {
    return this.bulkSql.requestBulkCancel(id, actor);
  }

  /** {@inheritDoc BulkStore.recordAction} */
  recordAction(entry: NewAuditEntry): Promise<AuditEntry> {
    return this.bulkSql.recordAction(entry);
  }

  /** {@inheritDoc BulkStore.listActions} */
  listActions(limit: number, beforeId?: string): Promise<AuditEntry[]> {
    return this.bulkSql.listActions(limit, beforeId);
  }

  async listQueues(): Promise<QueueInfo[]> {
    const db = await this.db();
    return (await run.listQueues(db, this.sql)).map(queueInfoOf);
  }

  async updateQueue(name: string, patch: QueuePatch): Promise<QueueInfo> {
    const db = await this.db();
    const [row] = await operator(db, (tx) =>
      run.updateQueue(tx, this.sql, {
        name,
        setPaused: patch.paused !== undefined,
        paused: patch.paused ?? null,
        setActive: patch.active !== undefined,
        active: patch.active ?? null,
        setMaxWorkers: patch.maxWorkers !== undefined,
        maxWorkers: patch.maxWorkers ?? null,
        setZombieTimeout: patch.zombieTimeoutSeconds !== undefined,
        zombieTimeoutSeconds: patch.zombieTimeoutSeconds ?? null,
        setKeepSucceeded: patch.keepSucceeded !== undefined,
        keepSucceeded: patch.keepSucceeded ?? null,
      }),
    );
    if (row === undefined) throw new Error(`updateQueue returned no row for ${name}`);
    // After the write, so a re-read that started before it never lands: the next claim re-reads.
    if (patch.maxWorkers !== undefined) this.capped.invalidate();
    return queueInfoOf(row);
  }

  async queueStats(): Promise<QueueStats[]> {
    const db = await this.db();
    return (await run.queueStats(db, this.sql)).map(queueStatsOf);
  }

  /** {@inheritDoc Store.purgeBatch} */
  async purgeBatch(rule: RetentionRule, limit: number): Promise<number> {
    return purgeBatch(await this.db(), this.sql, rule, limit);
  }

  /** {@inheritDoc Store.countPurgeable} */
  async countPurgeable(rule: RetentionRule): Promise<number> {
    return countPurgeable(await this.db(), this.sql, rule);
  }

  /** {@inheritDoc Store.takeLease} */
  async takeLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const db = await this.db();
    return (await run.leaseTake(db, this.sql, { name, holder, ttlMs })).length > 0;
  }

  /** {@inheritDoc Store.recordWorker} */
  async recordWorker(worker: Omit<WorkerPresence, 'lastSeenAt'>): Promise<void> {
    const db = await this.db();
    const { id, host, pid, startedAt, ...info } = worker;
    await run.workerSeen(db, this.sql, { id, host, pid, startedAt, info: JSON.stringify(info) });
  }

  /** {@inheritDoc Store.forgetWorker} */
  async forgetWorker(id: string): Promise<void> {
    const db = await this.db();
    await run.workerGone(db, this.sql, { id });
  }

  /** {@inheritDoc Store.listWorkers} */
  async listWorkers(withinMs: number): Promise<WorkerPresence[]> {
    const db = await this.db();
    return (await run.workersList(db, this.sql, { withinMs })).map(workerPresenceOf);
  }

  /** {@inheritDoc Store.dueByType} */
  async dueByType(queues: readonly string[], limit: number): Promise<DueTypeCount[]> {
    const db = await this.db();
    const rows = await run.dueByType(db, this.sql, { queues, limit });
    return rows.map((row) => ({
      queue: row.queue,
      type: row.type,
      due: toNumber(row.due),
      oldestDueAt: toDate(row.oldest_due_at),
    }));
  }

  /** {@inheritDoc Store.queueGauges} */
  async queueGauges(): Promise<QueueGauges[]> {
    const db = await this.db();
    return (await run.queueGauges(db, this.sql)).map(queueGaugesOf);
  }

  /** {@inheritDoc Store.keyUsage} */
  async keyUsage(filter: { queue?: string; limit: number }): Promise<KeyUsage[]> {
    const db = await this.db();
    const rows = await run.keyUsage(db, this.sql, {
      queue: filter.queue ?? null,
      limit: filter.limit,
    });
    return rows.map((row) => ({
      queue: row.queue,
      key: row.concurrency_key,
      limit: row.concurrency_limit,
      running: row.running,
      pending: row.pending,
    }));
  }

  async metricBuckets(since: Date): Promise<MetricBucket[]> {
    const db = await this.db();
    return (await run.metricBuckets(db, this.sql, { since })).map(metricBucketOf);
  }

  async now(): Promise<Date> {
    const db = await this.db();
    const [row] = await run.now(db, this.sql);
    return toDate(row?.now);
  }

  /** Made on first use; one per store. */
  private claims: SqlIdempotencyClaims | undefined;

  private rates: SqlRateLimits | undefined;

  /** {@inheritDoc Store.rateLimits} */
  rateLimits(): SqlRateLimits {
    return (this.rates ??= new SqlRateLimits(() => this.db(), this.sql));
  }

  /** {@inheritDoc Store.idempotencyClaims} */
  idempotencyClaims(): SqlIdempotencyClaims {
    return (this.claims ??= new SqlIdempotencyClaims(() => this.db(), this.sql));
  }

  /** Made on first use; one per store. */
  private scheduleStore: SqlSchedules | undefined;

  /** {@inheritDoc Store.schedules} */
  schedules(): SqlSchedules {
    return (this.scheduleStore ??= new SqlSchedules({
      db: () => this.db(),
      sql: this.sql,
      enqueueOn: (db, jobs) => this.enqueueOn(db, jobs),
      wake: (queues) => this.notifier?.wake(queues),
    }));
  }
}

/** Identity of one lease, for matching heartbeat rows to their input. */
function leaseKey(id: string, workerId: string, leaseToken: string): string {
  return JSON.stringify([id, workerId, leaseToken]);
}

/** Distinct queues that received at least one new job. */
function queuesCreated(jobs: readonly NewJob[], results: readonly EnqueueResult[]): string[] {
  const queues = new Set<string>();
  jobs.forEach((job, index) => {
    if (results[index]?.created === true) queues.add(job.queue);
  });
  return [...queues];
}

/**
 * Runs one operator statement in a transaction of its own of kind `'operator'`, so the
 * provider's lock-wait limit bounds it: an operator action never queues behind a stuck holder.
 */
function operator<T>(db: Executor, statement: (tx: Executor) => Promise<T>): Promise<T> {
  return db.transaction(statement, 'operator');
}
