/**
 * What the capability parts of one SQL store share (see `sql-store.ts`): the schema and its bound
 * statements, the connection (opened once, with migrations), the LISTEN subscriptions, the
 * debounced wake-ups of other processes, and the cache of capped and keyed queues.
 */
import { logEvent } from '../../observability/logging/log-events.js';
import type { ProviderLogger } from '../../observability/logging/provider-logger.js';
import { ChokaQError } from '../../errors.js';
import { BackgroundRefresh } from '../../util/background-refresh.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { ClaimContention, type LockedQueues } from './claim.js';
import { isTransientConflict } from './errors.js';
import type { Executor, Lane } from './executor.js';
import { QUERIES } from './generated.js';
import { checkMigrated, migrate } from './migrator.js';
import { WakeNotifier } from './notifier.js';
import type { MigrateOnOpen } from './provider-options.js';
import { bindQueries, validateSchema, wakeChannel, type BoundQueries } from './schema.js';
import * as run from './statements.js';

/** Unsubscribes a listener. */
export type Unlisten = () => Promise<void>;

/** What a provider plugs into the SQL store: connections, and optionally a push channel. */
export interface SqlBackend {
  /** Opens connections or files and returns the executor. Called once per open. */
  open(): Promise<Executor>;
  /** Subscribes to NOTIFY payloads on `channel`; omit when the provider has no push channel. */
  listen?(channel: string, onPayload: (payload: string) => void): Promise<Unlisten>;
  /** Releases what `open` acquired. Idempotent. */
  close(): Promise<void>;
  /**
   * The executor of a caller's own open transaction (for PostgreSQL a `pg` client after `BEGIN`);
   * omit when the provider cannot enqueue in one.
   * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming `options.client` when it is no client.
   */
  within?(transaction: unknown): Executor;
}

/** Options of a SQL store (`SqlStore`). */
export interface SqlStoreOptions {
  /** Provider name reported as the store's `kind`. */
  kind: string;
  backend: SqlBackend;
  /** Validated schema name. */
  schema: string;
  /** What `open()` does about migrations (see {@link MigrateOnOpen}). */
  migrate: MigrateOnOpen;
  /** The provider's logger, also handed to its backend; see `SqlStore.useLogger`. */
  logger: ProviderLogger;
  /**
   * The clock every statement reads the time from; `undefined`: the database's own (`now()`),
   * as in production.
   */
  clock?: Clock | undefined;
}

/**
 * How many times a settle, rescue, cancel or bulk-batch transaction is run in all when it fails on
 * a deadlock or serialization conflict.
 */
const CONFLICT_ATTEMPTS = 4;

/** How long the list of capped queues is cached by a store, in ms. */
const CAPPED_QUEUES_TTL_MS = 1000;

/** The shared state and plumbing of one SQL store's parts. */
export class SqlContext {
  /** Provider name: `postgres` or `embedded`. */
  readonly kind: string;
  /** The schema holding the tables. */
  readonly schema: string;
  /** Statements bound to {@link SqlContext.schema}. */
  readonly sql: BoundQueries;
  /** The LISTEN/NOTIFY channel of the schema's wake-ups. */
  readonly channel: string;
  readonly logger: ProviderLogger;
  /**
   * Capped and keyed queues. Exactness does not depend on this cache: the fast path reads caps
   * from its own snapshot and skips capped queues and jobs with a concurrency key, so a cap set
   * elsewhere is honoured at once; the cache only decides whether to take the locked path, so a
   * new capped queue (or a queue's first keyed jobs) may wait one refresh (made in the
   * background, never in a claim's way) before its jobs are claimed.
   */
  readonly capped: BackgroundRefresh<LockedQueues>;
  /** Whether claims of queues with key limits take the transaction for now (see claim.ts). */
  readonly contention = new ClaimContention();
  /** This store's wake listeners, told of new or freed work before the NOTIFY goes out. */
  readonly ownListeners = new Set<(queue: string) => void>();
  private readonly backend: SqlBackend;
  private readonly clock: Clock | undefined;
  private readonly migrateOnOpen: MigrateOnOpen;
  private executor: Executor | null = null;
  private opening: Promise<void> | null = null;
  private closed = false;
  private notifier: WakeNotifier | null = null;
  private readonly listeners = new Set<Unlisten>();
  /** The executors of the lanes that keep a connection, made on first use. */
  private readonly lanes = new Map<Lane, Executor>();

  /** @param options See {@link SqlStoreOptions}. */
  constructor(options: SqlStoreOptions) {
    this.kind = options.kind;
    this.schema = validateSchema(options.schema);
    this.sql = bindQueries(QUERIES, this.schema);
    this.channel = wakeChannel(this.schema);
    this.backend = options.backend;
    this.clock = options.clock;
    this.migrateOnOpen = options.migrate;
    this.logger = options.logger;
    this.capped = new BackgroundRefresh({
      read: async () => {
        const db = await this.laneDb('upkeep');
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

  /**
   * The `now` of a statement: the store clock's time, or `null` for the database's own clock
   * (every statement reads `coalesce($now, now())`, so a store without a clock sends NULL).
   */
  now(): Date | null {
    return this.clock === undefined ? null : new Date(this.clock.now());
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
    const lanes = [...this.lanes.values()];
    this.lanes.clear();
    await Promise.all(lanes.map((lane) => lane.close().catch(() => undefined)));
    this.executor = null;
    await this.backend.close();
  }

  /** The open executor; opens on first use, fails after `close()`. */
  async db(): Promise<Executor> {
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

  /**
   * The executor of `lane`: one connection kept for it (see `Executor.pinned`) where the
   * provider keeps one; else the store's executor.
   */
  async laneDb(lane: Lane): Promise<Executor> {
    const db = await this.db();
    let pinned = this.lanes.get(lane);
    if (pinned === undefined) {
      pinned = db.pinned?.(lane);
      if (pinned === undefined) return db;
      this.lanes.set(lane, pinned);
    }
    return pinned;
  }

  /** Wakes the workers of `queues` in every process, debounced (a NOTIFY per queue). */
  wake(queues: Iterable<string>): void {
    this.notifier?.wake(queues);
  }

  /**
   * Whether the caller's insert may notify `queue` inside its own statement (see
   * `WakeNotifier.carry`); when it may, call {@link carried} once the statement ended.
   */
  carry(queue: string): boolean {
    return this.notifier?.carry(queue) === true;
  }

  /** The statement {@link carry} allowed ended, whatever its outcome. */
  carried(): void {
    this.notifier?.carried();
  }

  /** Wakes this store's own listeners of `queues` at once, then every process's (see {@link wake}). */
  wakeHereFirst(queues: Iterable<string>): void {
    const list = [...queues];
    for (const queue of list) for (const wake of this.ownListeners) wake(queue);
    this.wake(list);
  }

  /**
   * Wakes every process's workers for the capped and limited queues among `queues`, whose rows left
   * fetched or processing: a freed slot of a capped queue is claimed at once, not at the next
   * poll. This store's own listeners hear it at once, the other processes' by NOTIFY (measured:
   * W8 about +1.5 points of the cap, docs/benchmarks.md). Uncapped queues need no wake-up (their
   * workers claim whenever they have free slots).
   */
  wakeCapped(queues: Iterable<string>): void {
    const locked = this.capped.peek();
    if (locked === undefined || locked.capped.length + locked.limited.length === 0) return;
    const freed = new Set<string>();
    for (const queue of queues) {
      if (locked.capped.includes(queue) || locked.limited.includes(queue)) freed.add(queue);
    }
    if (freed.size > 0) this.wakeHereFirst(freed);
  }

  /** LISTENs on `channel` through the backend (nothing when it has no push channel). */
  async listenOn(
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

  /**
   * Runs `transaction` again (up to {@link CONFLICT_ATTEMPTS} runs in all) when it failed on a
   * deadlock or serialization conflict. Transactions touching several queues' counter rows, or
   * hot rows another transaction holds, can deadlock; the whole transaction rolled back, so
   * running it again is safe.
   */
  async retryOnConflict<T>(what: string, transaction: () => Promise<T>): Promise<T> {
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
}

/**
 * Runs one operator statement in a transaction of its own of kind `'operator'`, so the
 * provider's lock-wait limit bounds it: an operator action never queues behind a stuck holder.
 */
export function inOperatorTransaction<T>(
  db: Executor,
  statement: (tx: Executor) => Promise<T>,
): Promise<T> {
  return db.transaction(statement, 'operator');
}
