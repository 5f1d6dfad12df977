/**
 * The cluster capability of the storage seam: what the processes sharing one store tell each
 * other (wake-ups, broadcasts), the leases of duties only one process runs at a time, the worker
 * processes that are alive, and the store's clock.
 */
import type { WorkerPresence } from './model.js';

/** Largest {@link ClusterStore.broadcast} message: PostgreSQL's NOTIFY payload limit, with room to spare. */
export const MAX_BROADCAST_BYTES = 7900;

/** Processes sharing one store. All methods may throw `ChokaQError` with a stable code. */
export interface ClusterStore {
  /**
   * Calls `onWake(queue)` shortly after new jobs were enqueued in `queue`, from any process sharing
   * the store. A hint only: workers still poll. Providers without a push channel omit it.
   * Resolves to an unsubscribe function.
   */
  listen?(onWake: (queue: string) => void): Promise<() => Promise<void>>;

  /**
   * Sends `message` (at most {@link MAX_BROADCAST_BYTES} of UTF-8) to every subscriber of this
   * store's data, in every process — this one included. Best effort: a message sent while a
   * subscriber reconnects is lost, and that subscriber then receives `'*'`.
   */
  broadcast(message: string): Promise<void>;

  /**
   * Subscribes to {@link ClusterStore.broadcast} messages; `'*'` means some may have been missed.
   * Resolves to an unsubscribe function.
   */
  subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>>;

  /**
   * Takes or renews the lease of duty `name` for `holder` for `ttlMs` (store clock): `true` when
   * nobody else holds an unexpired lease on it.
   */
  takeLease(name: string, holder: string, ttlMs: number): Promise<boolean>;

  /** Records that a worker process is alive (its row, stamped now by the store clock). */
  recordWorker(worker: Omit<WorkerPresence, 'lastSeenAt'>): Promise<void>;

  /** Forgets a worker process that stopped. */
  forgetWorker(id: string): Promise<void>;

  /** Worker processes seen within `withinMs`, most recently started first. */
  listWorkers(withinMs: number): Promise<WorkerPresence[]>;

  /** Store clock: what the store considers "now". */
  now(): Promise<Date>;
}
