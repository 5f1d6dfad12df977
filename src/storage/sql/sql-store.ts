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
  DeadEdit,
  ErrorGroupFilter,
  GroupHour,
  HeartbeatResult,
  HandoffRequest,
  HandoffResult,
  HeartbeatLease,
  Lease,
  PendingEdit,
  MetricBucket,
  QueuePatch,
  RescueOptions,
  PromoteResult,
  RescueResult,
  ResurrectRequest,
  Settlement,
  Store,
} from '../store.js';
import type { NewJob } from '../model.js';
import type { RetentionRule } from '../retention.js';
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
  toNumberOrNull,
  toStr,
  toStringOrNull,
  type Row,
} from './rows.js';
import { bindQueries, eventsChannel, validateSchema, wakeChannel } from './schema.js';
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
export class SqlStore implements Store {
  /** Provider name: `postgres` or `embedded`. */
  readonly kind: string;
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
        const rows = await db.query<Record<keyof LockedQueues | 'name', unknown>>(
          this.sql.capped_queues,
          [],
        );
        const named = (flag: keyof LockedQueues): string[] =>
          rows.filter((row) => row[flag] === true).map((row) => String(row.name));
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
      if (db !== null) await db.query(this.sql.notify, [this.channel, queue]);
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
    const db = await this.db();
    // The insert may carry its queue's wake-up itself (WakeNotifier.carry); it then needs no other.
    let carried: string | undefined;
    const wakeIn = (queue: string): string | null => {
      if (this.notifier?.carry(queue) !== true) return null;
      carried = queue;
      return this.channel;
    };
    let results: EnqueueResult[];
    try {
      results = await this.enqueueOn(db, jobs, wakeIn);
    } finally {
      if (carried !== undefined) this.notifier?.carried();
    }
    this.notifier?.wake(queuesCreated(jobs, results).filter((queue) => queue !== carried));
    return results;
  }

  /**
   * Runs the enqueue algorithm on `db` (the pool, or a caller's transaction). Keyed jobs in a
   * queue not yet known as keyed (or limited) make this process re-read the list before its next
   * claim.
   */
  protected async enqueueOn(
    db: Executor,
    jobs: readonly NewJob[],
    wakeIn?: (queue: string) => string | null,
  ): Promise<EnqueueResult[]> {
    const results = await enqueueJobs(
      db,
      {
        enqueue: this.sql.enqueue,
        plain: this.sql.enqueue_plain,
        uniform: this.sql.enqueue_uniform,
        holders: this.sql.enqueue_holders,
      },
      jobs,
      wakeIn,
    );
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
    await db.query(this.sql.notify, [eventsChannel(this.schema), message]);
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
    const rows = await db.query<Row>(this.sql.start, [
      leases.map((l) => l.id),
      leases.map((l) => l.workerId),
      leases.map((l) => l.leaseToken),
    ]);
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
    const archive: [string, unknown[] | null] =
      handoff !== null && groups.archive !== null && queues.length > 0
        ? [this.sql.settle_archive_claim, handoffParams(groups.archive, handoff, queues)]
        : [this.sql.settle_archive, groups.archive];
    const statements: [string, unknown[] | null][] = [
      archive,
      [this.sql.move_to_dlq, groups.dead],
      [this.sql.settle_retry, groups.retry],
      [this.sql.settle_release, groups.release],
    ];
    const present = statements.filter((entry): entry is [string, unknown[]] => entry[1] !== null);
    const run = async (on: Executor): Promise<SettledRows> => {
      const done: SettledRows = { moved: new Set(), freed: [], started: [] };
      for (const [sql, params] of present) {
        const rows = await on.query<Row>(sql, params);
        if (sql === this.sql.settle_archive_claim) {
          const handed = readHandoffRows(rows);
          for (const [id, queue] of handed.moved) {
            done.moved.add(id);
            if (!handed.filled.has(queue)) done.freed.push(queue);
          }
          done.started.push(...handed.started);
          continue;
        }
        for (const row of rows) {
          done.moved.add(String(row.id));
          done.freed.push(String(row.queue));
        }
      }
      return done;
    };
    // One kind is one statement, atomic on its own: skip BEGIN/COMMIT and their round trips.
    const settleOnce = (): Promise<SettledRows> =>
      this.retryOnConflict('settle', () => (present.length === 1 ? run(db) : db.transaction(run)));
    // An archived job had the id of one archived now (rare: a caller-given id used again). The
    // statement failed whole; the archive rows it replaces go first, in the same transaction.
    const evictFirst = (archive: unknown[]): Promise<SettledRows> =>
      this.retryOnConflict('settle', () =>
        db.transaction(async (tx) => {
          await tx.query(this.sql.archive_evict, evictParams(archive));
          return run(tx);
        }),
      );
    const done = await settleOnce().catch((error: unknown) => {
      if (groups.archive === null || !isArchiveIdTaken(error)) throw error;
      return evictFirst(groups.archive);
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
    const rows = await db.query<{
      id: unknown;
      worker_id: unknown;
      lease_token: unknown;
      cancel_requested: unknown;
      cancel_requested_by: unknown;
    }>(this.sql.heartbeat, [
      leases.map((l) => l.id),
      leases.map((l) => l.workerId),
      leases.map((l) => l.leaseToken),
      leases.map((l) => l.progress ?? null),
    ]);
    const alive = new Map<string, HeartbeatResult>();
    for (const row of rows) {
      const cancelRequested = row.cancel_requested === true;
      alive.set(leaseKey(String(row.id), String(row.worker_id), String(row.lease_token)), {
        alive: true,
        cancelRequested,
        cancelRequestedBy: cancelRequested ? toStringOrNull(row.cancel_requested_by) : null,
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
    const rows = await db.query<Row>(this.sql.promote, [limit]);
    const promoted: PromoteResult['promoted'] = [];
    let nextDueInMs: number | null = null;
    for (const row of rows) {
      if (row.queue !== null)
        promoted.push({ queue: toStr(row.queue), count: toNumber(row.promoted) });
      const next = toNumberOrNull(row.next_run_at);
      if (next !== null) nextDueInMs = Math.max(0, next - toNumber(row.read_at));
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
    const [hot] = await db.query<Row>(this.sql.get_hot, [id]);
    if (hot !== undefined) return { where: 'hot', job: hotJobOf(hot) };
    const [archived] = await db.query<Row>(this.sql.get_archive, [id]);
    if (archived !== undefined) return { where: 'archive', job: archivedJobOf(archived) };
    const [dead] = await db.query<Row>(this.sql.get_dead, [id]);
    if (dead !== undefined) return { where: 'dlq', job: deadJobOf(dead) };
    return null;
  }

  async listHot(filter: { queue?: string; state?: HotState; limit: number }): Promise<HotJob[]> {
    const db = await this.db();
    const state = filter.state === undefined ? null : HOT_STATE_CODE[filter.state];
    const rows = await db.query<Row>(this.sql.list_hot, [
      filter.queue ?? null,
      state,
      filter.limit,
    ]);
    return rows.map(hotJobOf);
  }

  async listArchive(filter: { queue?: string; limit: number }): Promise<ArchivedJob[]> {
    const db = await this.db();
    const rows = await db.query<Row>(this.sql.list_archive, [filter.queue ?? null, filter.limit]);
    return rows.map(archivedJobOf);
  }

  async listDead(filter: {
    queue?: string;
    reason?: FailureReason;
    limit: number;
  }): Promise<DeadJob[]> {
    const db = await this.db();
    const reason = filter.reason === undefined ? null : FAILURE_REASON_CODE[filter.reason];
    const rows = await db.query<Row>(this.sql.list_dead, [
      filter.queue ?? null,
      reason,
      filter.limit,
    ]);
    return rows.map(deadJobOf);
  }

  async resurrect(ids: readonly string[], options: ResurrectRequest): Promise<string[]> {
    if (ids.length === 0) return [];
    const db = await this.db();
    const unique = [...new Set(ids)];
    const rows = await operator(db, (tx) =>
      tx.query<{ id: unknown }>(this.sql.resurrect, [
        unique,
        options.actor,
        unique.map(() => options.payload ?? null),
        options.tags !== undefined,
        options.tags ?? null,
        options.priority ?? 10,
        unique.map(() => null),
      ]),
    );
    const moved = new Set(rows.map((row) => String(row.id)));
    return [...new Set(ids)].filter((id) => moved.has(id));
  }

  async purgeDead(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const db = await this.db();
    const unique = [...new Set(ids)];
    const rows = await operator(db, (tx) =>
      tx.query(this.sql.purge_dead, [unique, unique.map(() => null)]),
    );
    return rows.length;
  }

  async editPending(id: string, edit: PendingEdit): Promise<boolean> {
    const db = await this.db();
    const rows = await operator(db, (tx) =>
      tx.query(this.sql.edit_pending, [
        id,
        edit.payload ?? null,
        edit.tags !== undefined,
        edit.tags ?? null,
        edit.priority ?? null,
        edit.actor,
        edit.delayMs ?? null,
      ]),
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
    const rows = await db.query<Row>(this.sql.error_groups, [
      filter.queues ?? null,
      filter.types ?? null,
      filter.limit,
    ]);
    return rows.map(errorGroupOf);
  }

  /** {@inheritDoc Store.errorGroupHours} */
  async errorGroupHours(fingerprints: readonly string[], since: Date): Promise<GroupHour[]> {
    const db = await this.db();
    const rows = await db.query<Row>(this.sql.error_group_hours, [fingerprints, since]);
    return rows.map((row) => ({
      fingerprint: String(row.fingerprint),
      hourStart: toDate(row.hour_start),
      count: toNumber(row.dead_count),
    }));
  }

  /** {@inheritDoc Store.editDead} */
  async editDead(id: string, edit: DeadEdit): Promise<boolean> {
    const db = await this.db();
    const rows = await operator(db, (tx) =>
      tx.query(this.sql.edit_dead, [
        id,
        edit.payload ?? null,
        edit.tags !== undefined,
        edit.tags ?? null,
        edit.actor,
      ]),
    );
    return rows.length > 0;
  }

  /** Bulk actions and the audit trail (see `storage/bulk.ts`); made on first use. */
  private bulkVerbs: SqlBulk | undefined;
  private get bulk(): SqlBulk {
    return (this.bulkVerbs ??= new SqlBulk(() => this.db(), this.sql));
  }

  /** {@inheritDoc BulkStore.createBulk} */
  createBulk(snapshot: BulkSnapshot): Promise<void> {
    return this.bulk.createBulk(snapshot);
  }

  /** {@inheritDoc BulkStore.getBulk} */
  getBulk(id: string): Promise<BulkAction | null> {
    return this.bulk.getBulk(id);
  }

  /** {@inheritDoc BulkStore.listBulk} */
  listBulk(limit: number): Promise<BulkAction[]> {
    return this.bulk.listBulk(limit);
  }

  /** {@inheritDoc BulkStore.startBulk} */
  startBulk(id: string, tokenHash: string, actor: string, reason: string): Promise<BulkStart> {
    return this.bulk.startBulk(id, tokenHash, actor, reason);
  }

  /** {@inheritDoc BulkStore.nextBulkItems} */
  nextBulkItems(id: string, limit: number): Promise<{ action: BulkAction; items: BulkItem[] }> {
    return this.bulk.nextBulkItems(id, limit);
  }

  /** {@inheritDoc BulkStore.applyBulkBatch} */
  applyBulkBatch(id: string, batch: BulkBatch): Promise<BulkBatchResult> {
    return this.retryOnConflict('bulk batch', () => this.bulk.applyBulkBatch(id, batch));
  }

  /** {@inheritDoc BulkStore.bulkSkips} */
  bulkSkips(id: string, limit: number): Promise<BulkSkip[]> {
    return this.bulk.bulkSkips(id, limit);
  }

  /** {@inheritDoc BulkStore.finishBulk} */
  finishBulk(id: string, status: BulkEnd, error?: string): Promise<void> {
    return this.bulk.finishBulk(id, status, error);
  }

  /** {@inheritDoc BulkStore.requestBulkCancel} */
  requestBulkCancel(id: string, actor: string): Promise<BulkAction | null> {
    return this.bulk.requestBulkCancel(id, actor);
  }

  /** {@inheritDoc BulkStore.recordAction} */
  recordAction(entry: NewAuditEntry): Promise<AuditEntry> {
    return this.bulk.recordAction(entry);
  }

  /** {@inheritDoc BulkStore.listActions} */
  listActions(limit: number, beforeId?: string): Promise<AuditEntry[]> {
    return this.bulk.listActions(limit, beforeId);
  }

  async listQueues(): Promise<QueueInfo[]> {
    const db = await this.db();
    return (await db.query<Row>(this.sql.list_queues)).map(queueInfoOf);
  }

  async updateQueue(name: string, patch: QueuePatch): Promise<QueueInfo> {
    const db = await this.db();
    const [row] = await operator(db, (tx) =>
      tx.query<Row>(this.sql.update_queue, [
        name,
        patch.paused !== undefined,
        patch.paused ?? null,
        patch.active !== undefined,
        patch.active ?? null,
        patch.maxWorkers !== undefined,
        patch.maxWorkers ?? null,
        patch.zombieTimeoutSeconds !== undefined,
        patch.zombieTimeoutSeconds ?? null,
        patch.keepSucceeded !== undefined,
        patch.keepSucceeded ?? null,
      ]),
    );
    if (row === undefined) throw new Error(`updateQueue returned no row for ${name}`);
    // After the write, so a re-read that started before it never lands: the next claim re-reads.
    if (patch.maxWorkers !== undefined) this.capped.invalidate();
    return queueInfoOf(row);
  }

  async queueStats(): Promise<QueueStats[]> {
    const db = await this.db();
    return (await db.query<Row>(this.sql.queue_stats)).map(queueStatsOf);
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
    return (await db.query<Row>(this.sql.lease_take, [name, holder, ttlMs])).length > 0;
  }

  /** {@inheritDoc Store.recordWorker} */
  async recordWorker(worker: Omit<WorkerPresence, 'lastSeenAt'>): Promise<void> {
    const db = await this.db();
    const { id, host, pid, startedAt, ...info } = worker;
    await db.query(this.sql.worker_seen, [id, host, pid, startedAt, JSON.stringify(info)]);
  }

  /** {@inheritDoc Store.forgetWorker} */
  async forgetWorker(id: string): Promise<void> {
    const db = await this.db();
    await db.query(this.sql.worker_gone, [id]);
  }

  /** {@inheritDoc Store.listWorkers} */
  async listWorkers(withinMs: number): Promise<WorkerPresence[]> {
    const db = await this.db();
    return (await db.query<Row>(this.sql.workers_list, [withinMs])).map(workerPresenceOf);
  }

  /** {@inheritDoc Store.dueByType} */
  async dueByType(queues: readonly string[], limit: number): Promise<DueTypeCount[]> {
    const db = await this.db();
    const rows = await db.query<Row>(this.sql.due_by_type, [queues, limit]);
    return rows.map((row) => ({
      queue: toStr(row.queue),
      type: toStr(row.type),
      due: toNumber(row.due),
      oldestDueAt: toDate(row.oldest_due_at),
    }));
  }

  /** {@inheritDoc Store.queueGauges} */
  async queueGauges(): Promise<QueueGauges[]> {
    const db = await this.db();
    return (await db.query<Row>(this.sql.queue_gauges)).map(queueGaugesOf);
  }

  /** {@inheritDoc Store.keyUsage} */
  async keyUsage(filter: { queue?: string; limit: number }): Promise<KeyUsage[]> {
    const db = await this.db();
    const rows = await db.query<Row>(this.sql.key_usage, [filter.queue ?? null, filter.limit]);
    return rows.map((row) => ({
      queue: toStr(row.queue),
      key: toStr(row.concurrency_key),
      limit: toNumberOrNull(row.concurrency_limit),
      running: toNumber(row.running),
      pending: toNumber(row.pending),
    }));
  }

  async metricBuckets(since: Date): Promise<MetricBucket[]> {
    const db = await this.db();
    return (await db.query<Row>(this.sql.metric_buckets, [since])).map(metricBucketOf);
  }

  async now(): Promise<Date> {
    const db = await this.db();
    const [row] = await db.query<{ now: unknown }>(this.sql.now);
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
