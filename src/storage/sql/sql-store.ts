/**
 * The storage contract over SQL, shared by the `postgres` and `embedded` providers: both send
 * the same statements (PostgreSQL ≥ 13 dialect) through an {@link Executor}.
 */
import { ChokaQError } from '../../errors.js';
import { FAILURE_REASON_CODE, HOT_STATE_CODE } from '../../job/state.js';
import type { FailureReason, HotState } from '../../job/state.js';
import type { Logger } from '../../observability/logger.js';
import { BackgroundRefresh } from '../../util/background-refresh.js';
import { systemClock } from '../../util/clock.js';
import { uuidv7 } from '../../util/uuid.js';
import type {
  ArchivedJob,
  CancelResult,
  DeadJob,
  EnqueueResult,
  FoundJob,
  HotJob,
  QueueInfo,
  QueueStats,
} from '../model.js';
import type {
  ClaimRequest,
  HeartbeatResult,
  Lease,
  MetricBucket,
  NewJob,
  QueuePatch,
  RescueOptions,
  RescueResult,
  RescuedJob,
  ResurrectRequest,
  Settlement,
  Store,
} from '../store.js';
import { enqueueJobs } from './enqueue-batch.js';
import { isTransientConflict } from './errors.js';
import type { Executor } from './executor.js';
import { QUERIES, type QueryName } from './generated.js';
import { SqlIdempotencyClaims } from './idempotency-claims.js';
import { migrate } from './migrator.js';
import { WakeNotifier } from './notifier.js';
import {
  archivedJobOf,
  deadJobOf,
  hotJobOf,
  metricBucketOf,
  queueInfoOf,
  queueStatsOf,
  toDate,
  toNumber,
  toStr,
  toStringOrNull,
  type Row,
} from './rows.js';
import { bindQueries, validateSchema, wakeChannel } from './schema.js';
import { groupSettlements, settleOutcome } from './settle-batch.js';

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
  /** Apply pending migrations in `open()`. */
  migrate: boolean;
  logger: Logger;
}

/**
 * How many times a settle, rescue or cancel transaction is run in all when it fails on a deadlock
 * or serialization conflict.
 */
const CONFLICT_ATTEMPTS = 4;

/** How long the list of capped queues is cached by a store, in ms. */
const CAPPED_QUEUES_TTL_MS = 1000;

/** Default of {@link RescueOptions.limit}: most rows moved per rescue step. */
export const RESCUE_LIMIT = 1000;

/** Error text of a zombie moved to the DLQ. */
export const ZOMBIE_DEAD_ERROR = 'Zombie: worker heartbeat expired during execution';

/** `lastError` of a zombie of an opted-in type returned to pending. */
export const ZOMBIE_RETRY_ERROR = 'Zombie: heartbeat expired; run again';

/** A row of `rescue_pick_zombies.sql`. */
interface ZombieRow {
  id: unknown;
  queue: unknown;
  type: unknown;
  cancel_requested_by: unknown;
  action: unknown;
}

/** One row for `move_to_dlq.sql`. */
interface DlqMove {
  id: string;
  fromStatus: number;
  reason: number;
  error: string;
  /** Recorded as `last_modified_by`; `null` keeps the row's. */
  actor: string | null;
}

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
  protected readonly logger: Logger;
  private readonly backend: SqlBackend;
  private readonly migrateOnOpen: boolean;
  private executor: Executor | null = null;
  /**
   * Names of capped queues. Exactness does not depend on this cache: the fast path reads caps
   * from its own snapshot and skips capped queues, so a cap set elsewhere is honoured at once;
   * the cache only decides whether to take the locked path, so a new capped queue may wait one
   * refresh (made in the background, never in a claim's way) before its jobs are claimed.
   */
  private readonly capped: BackgroundRefresh<string[]>;
  private opening: Promise<void> | null = null;
  private closed = false;
  private notifier: WakeNotifier | null = null;
  private readonly listeners = new Set<Unlisten>();

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
        const rows = await db.query<{ name: unknown }>(this.sql.capped_queues, []);
        return rows.map((row) => String(row.name));
      },
      maxAgeMs: CAPPED_QUEUES_TTL_MS,
      clock: systemClock,
      onError: (error) => {
        this.logger.warn('could not re-read capped queues', { error: String(error) });
      },
    });
  }

  /** Opens the backend and, unless disabled, migrates the schema. Idempotent. */
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
      if (this.migrateOnOpen) {
        const applied = await migrate(executor, this.schema);
        if (applied.length > 0) {
          this.logger.info('schema migrated', {
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
    const results = await this.enqueueOn(await this.db(), jobs);
    this.notifier?.wake(queuesCreated(jobs, results));
    return results;
  }

  /** Runs the enqueue algorithm on `db` (the pool, or a caller's transaction). */
  protected enqueueOn(db: Executor, jobs: readonly NewJob[]): Promise<EnqueueResult[]> {
    return enqueueJobs(
      db,
      {
        enqueue: this.sql.enqueue,
        plain: this.sql.enqueue_plain,
        uniform: this.sql.enqueue_uniform,
        holders: this.sql.enqueue_holders,
      },
      jobs,
    );
  }

  async listen(onWake: (queue: string) => void): Promise<Unlisten> {
    await this.db();
    if (this.backend.listen === undefined) return () => Promise.resolve();
    const unlisten = await this.backend.listen(this.channel, (payload) => {
      try {
        onWake(payload);
      } catch (error) {
        this.logger.warn('wake listener threw', { error: String(error) });
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

  async claim(request: ClaimRequest): Promise<HotJob[]> {
    const queues = request.queues === null ? null : [...request.queues];
    if ((queues !== null && queues.length === 0) || request.limit < 1) return [];
    const db = await this.db();
    const token = uuidv7();
    const startCount = Math.max(0, Math.floor(request.startCount ?? 0));
    // Fast path: queues without a cap need no lock, so one autocommit statement claims them.
    const rows = await db.query<Row>(this.sql.claim, [
      request.workerId,
      request.limit,
      queues,
      token,
      false,
      startCount,
    ]);
    const room = request.limit - rows.length;
    if (room <= 0) return rows.map(hotJobOf);
    const capped = await this.capped.get();
    const wanted = queues === null ? capped : capped.filter((name) => queues.includes(name));
    if (wanted.length > 0) {
      const more = await db.transaction(async (tx) => {
        // Two statements on purpose: see the header of claim_lock_capped_queues.sql.
        await tx.query(this.sql.claim_lock_capped_queues, [wanted]);
        const started = rows.filter((row) => Number(row.status) === 2).length;
        return tx.query<Row>(this.sql.claim, [
          request.workerId,
          room,
          wanted,
          token,
          true,
          Math.max(0, startCount - started),
        ]);
      });
      rows.push(...more);
    }
    return rows.map(hotJobOf);
  }

  async start(leases: readonly Lease[]): Promise<HotJob[]> {
    if (leases.length === 0) return [];
    const db = await this.db();
    const rows = await db.query<Row>(this.sql.start, [
      leases.map((l) => l.id),
      leases.map((l) => l.workerId),
      leases.map((l) => l.leaseToken),
    ]);
    return rows.map(hotJobOf);
  }

  async settle(settlements: readonly Settlement[]): Promise<boolean[]> {
    if (settlements.length === 0) return [];
    const groups = groupSettlements(settlements);
    const db = await this.db();
    const statements: [string, unknown[][] | null][] = [
      [this.sql.settle_archive, groups.archive],
      [this.sql.move_to_dlq, groups.dead],
      [this.sql.settle_retry, groups.retry],
      [this.sql.settle_release, groups.release],
    ];
    const present = statements.filter((entry): entry is [string, unknown[][]] => entry[1] !== null);
    const run = async (on: Executor): Promise<Set<string>> => {
      const ids = new Set<string>();
      for (const [sql, params] of present) {
        for (const row of await on.query<{ id: unknown }>(sql, params)) ids.add(String(row.id));
      }
      return ids;
    };
    // One kind is one statement, atomic on its own: skip BEGIN/COMMIT and their round trips.
    const applied = await this.retryOnConflict('settle', () =>
      present.length === 1 ? run(db) : db.transaction(run),
    );
    return settleOutcome(settlements, applied);
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
        this.logger.debug(`${what} retried after a lock conflict`, { attempt });
      }
    }
  }

  async heartbeat(leases: readonly Lease[]): Promise<HeartbeatResult[]> {
    if (leases.length === 0) return [];
    const db = await this.db();
    const rows = await db.query<{
      id: unknown;
      worker_id: unknown;
      lease_token: unknown;
      cancel_requested: unknown;
    }>(this.sql.heartbeat, [
      leases.map((l) => l.id),
      leases.map((l) => l.workerId),
      leases.map((l) => l.leaseToken),
    ]);
    const alive = new Map<string, boolean>();
    for (const row of rows) {
      alive.set(
        leaseKey(String(row.id), String(row.worker_id), String(row.lease_token)),
        row.cancel_requested === true,
      );
    }
    return leases.map((lease) => {
      const cancelRequested = alive.get(leaseKey(lease.id, lease.workerId, lease.leaseToken));
      return cancelRequested === undefined
        ? { alive: false, cancelRequested: false }
        : { alive: true, cancelRequested };
    });
  }

  /**
   * {@inheritDoc Store.rescue}
   *
   * Runs as one transaction after `pg_try_advisory_xact_lock` on the schema: (a) stale fetched
   * rows → pending; (b) zombies → DLQ `Cancelled` (cancel requested), pending with the run
   * refunded (opted-in type) or DLQ `Zombie`; (c) pending or fetched rows with a cancel request →
   * DLQ `Cancelled`. Rows are picked `FOR UPDATE SKIP LOCKED`, so a worker settling a row at the
   * same moment keeps it, and each row moves once.
   */
  async rescue(options: RescueOptions): Promise<RescueResult> {
    const limit = Math.max(0, Math.floor(options.limit ?? RESCUE_LIMIT));
    const [typeKeys, typeMaxima] = retryTypeParams(options.retryZombieTypes);
    const db = await this.db();
    return this.retryOnConflict('rescue', () =>
      db.transaction(async (tx): Promise<RescueResult> => {
        const result: RescueResult = {
          skipped: false,
          released: 0,
          dead: [],
          retried: [],
          cancelled: [],
        };
        const [lock] = await tx.query<{ locked: unknown }>(this.sql.rescue_lock, [this.schema]);
        if (lock?.locked !== true) return { ...result, skipped: true };

        const released = await tx.query<{ id: unknown }>(this.sql.rescue_release_fetched, [
          Math.max(0, options.fetchedTimeoutMs),
          limit,
        ]);
        result.released = released.length;

        const zombies = await tx.query<ZombieRow>(this.sql.rescue_pick_zombies, [
          Math.max(0, options.processingTimeoutMs),
          limit,
          typeKeys,
          typeMaxima,
        ]);
        const again = zombies.filter((z) => z.action === 'retry').map((z) => String(z.id));
        if (again.length > 0) {
          const rows = await tx.query<Row>(this.sql.rescue_requeue_zombies, [
            again,
            ZOMBIE_RETRY_ERROR,
          ]);
          result.retried = rows.map(rescuedJobOf);
        }
        const buried = await this.moveToDlq(
          tx,
          zombies
            .filter((z) => z.action !== 'retry')
            .map((z) =>
              z.action === 'cancel'
                ? {
                    id: String(z.id),
                    fromStatus: HOT_STATE_CODE.processing,
                    reason: FAILURE_REASON_CODE.Cancelled,
                    error: `Cancelled by ${requesterOf(z.cancel_requested_by)}: the run was lost`,
                    actor: null,
                  }
                : {
                    id: String(z.id),
                    fromStatus: HOT_STATE_CODE.processing,
                    reason: FAILURE_REASON_CODE.Zombie,
                    error: ZOMBIE_DEAD_ERROR,
                    actor: null,
                  },
            ),
        );
        for (const zombie of zombies) {
          const moved = buried.get(String(zombie.id));
          if (moved === undefined) continue;
          if (zombie.action === 'cancel') result.cancelled.push(moved);
          else result.dead.push(moved);
        }

        const orphans = await tx.query<Row>(this.sql.rescue_pick_cancelled, [limit]);
        const cancelled = await this.moveToDlq(
          tx,
          orphans.map((row) => ({
            id: String(row.id),
            fromStatus: toNumber(row.status),
            reason: FAILURE_REASON_CODE.Cancelled,
            error: `Cancelled by ${requesterOf(row.cancel_requested_by)}`,
            actor: null,
          })),
        );
        for (const row of orphans) {
          const moved = cancelled.get(String(row.id));
          if (moved !== undefined) result.cancelled.push(moved);
        }
        return result;
      }),
    );
  }

  /**
   * {@inheritDoc Store.cancel}
   *
   * One transaction: the hot rows among `ids` are locked (`FOR UPDATE`, id order), pending and
   * fetched ones move to the DLQ, processing ones get a cancel request unless they have one.
   * Both lists follow the order of `ids`, each id once.
   */
  async cancel(ids: readonly string[], actor: string): Promise<CancelResult> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return { cancelled: [], requested: [] };
    const db = await this.db();
    return this.retryOnConflict('cancel', () =>
      db.transaction(async (tx): Promise<CancelResult> => {
        const rows = await tx.query<{ id: unknown; status: unknown }>(this.sql.cancel_lock, [
          unique,
        ]);
        const idle: DlqMove[] = [];
        const running = new Set<string>();
        for (const row of rows) {
          const status = toNumber(row.status);
          if (status === HOT_STATE_CODE.processing) {
            running.add(String(row.id));
          } else {
            idle.push({
              id: String(row.id),
              fromStatus: status,
              reason: FAILURE_REASON_CODE.Cancelled,
              error: `Cancelled by ${actor}`,
              actor,
            });
          }
        }
        const moved = await this.moveToDlq(tx, idle);
        if (running.size > 0) await tx.query(this.sql.cancel_request, [[...running], actor]);
        return {
          cancelled: unique.filter((id) => moved.has(id)),
          requested: unique.filter((id) => running.has(id)),
        };
      }),
    );
  }

  /**
   * Moves hot rows this transaction has locked to the DLQ (`move_to_dlq.sql`: failed counter and
   * failure bucket per queue and reason). Returns the moved jobs by id.
   */
  private async moveToDlq(
    tx: Executor,
    moves: readonly DlqMove[],
  ): Promise<Map<string, RescuedJob>> {
    if (moves.length === 0) return new Map();
    const rows = await tx.query<Row>(this.sql.move_to_dlq, [
      moves.map((m) => m.id),
      moves.map((m) => m.fromStatus),
      moves.map((m) => m.reason),
      moves.map((m) => m.error),
      moves.map((m) => m.actor),
      moves.map(() => null), // no lease guard: the caller locked and checked these rows
      moves.map(() => null),
    ]);
    return new Map(rows.map((row) => [String(row.id), rescuedJobOf(row)]));
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
    const rows = await db.query<{ id: unknown }>(this.sql.resurrect, [
      [...new Set(ids)],
      options.actor,
      options.payload ?? null,
      options.tags !== undefined,
      options.tags ?? null,
      options.priority ?? 10,
    ]);
    const moved = new Set(rows.map((row) => String(row.id)));
    return [...new Set(ids)].filter((id) => moved.has(id));
  }

  async purgeDead(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const db = await this.db();
    const [row] = await db.query<{ deleted: unknown }>(this.sql.purge_dead, [[...new Set(ids)]]);
    return toNumber(row?.deleted);
  }

  async editPending(
    id: string,
    edit: { payload?: string; tags?: string | null; priority?: number; actor: string },
  ): Promise<boolean> {
    const db = await this.db();
    const rows = await db.query(this.sql.edit_pending, [
      id,
      edit.payload ?? null,
      edit.tags !== undefined,
      edit.tags ?? null,
      edit.priority ?? null,
      edit.actor,
    ]);
    return rows.length > 0;
  }

  async listQueues(): Promise<QueueInfo[]> {
    const db = await this.db();
    return (await db.query<Row>(this.sql.list_queues)).map(queueInfoOf);
  }

  async updateQueue(name: string, patch: QueuePatch): Promise<QueueInfo> {
    const db = await this.db();
    const [row] = await db.query<Row>(this.sql.update_queue, [
      name,
      patch.paused !== undefined,
      patch.paused ?? null,
      patch.active !== undefined,
      patch.active ?? null,
      patch.maxWorkers !== undefined,
      patch.maxWorkers ?? null,
      patch.zombieTimeoutSeconds !== undefined,
      patch.zombieTimeoutSeconds ?? null,
    ]);
    if (row === undefined) throw new Error(`updateQueue returned no row for ${name}`);
    // After the write, so a re-read that started before it never lands: the next claim re-reads.
    if (patch.maxWorkers !== undefined) this.capped.invalidate();
    return queueInfoOf(row);
  }

  async queueStats(): Promise<QueueStats[]> {
    const db = await this.db();
    return (await db.query<Row>(this.sql.queue_stats)).map(queueStatsOf);
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

  /** {@inheritDoc Store.idempotencyClaims} */
  idempotencyClaims(): SqlIdempotencyClaims {
    return (this.claims ??= new SqlIdempotencyClaims(() => this.db(), this.sql));
  }
}

/** Identity of one lease, for matching heartbeat rows to their input. */
function leaseKey(id: string, workerId: string, leaseToken: string): string {
  return JSON.stringify([id, workerId, leaseToken]);
}

/** A moved row as a rescue reports it. */
function rescuedJobOf(row: Row): RescuedJob {
  return { id: toStr(row.id), queue: toStr(row.queue), type: toStr(row.type) };
}

/** Who asked to cancel, for error texts. */
function requesterOf(value: unknown): string {
  return toStringOrNull(value) ?? 'unknown';
}

/**
 * The `retryZombieTypes` option as the parallel arrays of `rescue_pick_zombies.sql`: keys
 * lower-cased (the larger maximum wins when two keys fold together); entries that are not
 * numbers are dropped, an infinite maximum becomes a very large finite one.
 */
function retryTypeParams(types: Readonly<Record<string, number>>): [string[], number[]] {
  const maxima = new Map<string, number>();
  for (const [key, value] of Object.entries(types)) {
    if (typeof value !== 'number' || Number.isNaN(value)) continue;
    const max = Number.isFinite(value) ? value : value > 0 ? Number.MAX_SAFE_INTEGER : 0;
    const folded = key.toLowerCase();
    maxima.set(folded, Math.max(max, maxima.get(folded) ?? -Infinity));
  }
  return [[...maxima.keys()], [...maxima.values()]];
}

/** Distinct queues that received at least one new job. */
function queuesCreated(jobs: readonly NewJob[], results: readonly EnqueueResult[]): string[] {
  const queues = new Set<string>();
  jobs.forEach((job, index) => {
    if (results[index]?.created === true) queues.add(job.queue);
  });
  return [...queues];
}
