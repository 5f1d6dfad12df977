/**
 * The cluster capability of the memory provider: wake-ups and broadcasts between the ChokaQ
 * instances sharing one store in this process, duty leases, worker presence and the store clock.
 *
 * @internal Reach it through `memory().cluster`.
 */
import type { ClusterStore } from '../cluster-store.js';
import type { WorkerPresence } from '../model.js';
import { atomically, type MemoryState } from './state.js';

/** How long a worker process that stopped recording itself is kept: one day. */
const WORKER_KEPT_MS = 86_400_000;

/** The memory {@link ClusterStore}. */
export class MemoryCluster implements ClusterStore {
  /** Subscribers of {@link MemoryCluster.broadcast}: every ChokaQ sharing this store. */
  private readonly subscribers = new Set<(message: string) => void>();
  /** Leases by duty name. */
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();
  /** Worker processes by id. */
  private readonly workers = new Map<string, WorkerPresence>();

  /** @param state The store's clock and wake-ups. */
  constructor(private readonly state: MemoryState) {}

  /** {@inheritDoc ClusterStore.listen} */
  listen(onWake: (queue: string) => void): Promise<() => Promise<void>> {
    return Promise.resolve(this.state.wake.subscribe(onWake));
  }

  /**
   * {@inheritDoc ClusterStore.broadcast}
   *
   * Delivered on a later turn of the event loop, as a network would.
   */
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

  /** {@inheritDoc ClusterStore.subscribe} */
  subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>> {
    const subscriber = (message: string): void => onMessage(message);
    this.subscribers.add(subscriber);
    return Promise.resolve(() => {
      this.subscribers.delete(subscriber);
      return Promise.resolve();
    });
  }

  /** {@inheritDoc ClusterStore.takeLease} */
  takeLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    return atomically(() => {
      const now = this.state.time().getTime();
      const lease = this.leases.get(name);
      if (lease !== undefined && lease.holder !== holder && lease.expiresAt >= now) return false;
      this.leases.set(name, { holder, expiresAt: now + ttlMs });
      return true;
    });
  }

  /** {@inheritDoc ClusterStore.recordWorker} */
  recordWorker(worker: Omit<WorkerPresence, 'lastSeenAt'>): Promise<void> {
    return atomically(() => {
      const now = this.state.time();
      for (const [id, seen] of this.workers) {
        if (seen.lastSeenAt.getTime() < now.getTime() - WORKER_KEPT_MS) this.workers.delete(id);
      }
      this.workers.set(worker.id, structuredClone({ ...worker, lastSeenAt: now }));
    });
  }

  /** {@inheritDoc ClusterStore.forgetWorker} */
  forgetWorker(id: string): Promise<void> {
    return atomically(() => {
      this.workers.delete(id);
    });
  }

  /** {@inheritDoc ClusterStore.listWorkers} */
  listWorkers(withinMs: number): Promise<WorkerPresence[]> {
    return atomically(() => {
      const since = this.state.time().getTime() - withinMs;
      return [...this.workers.values()]
        .filter((w) => w.lastSeenAt.getTime() >= since)
        .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? -1 : 1))
        .map((w) => structuredClone(w));
    });
  }

  /** {@inheritDoc ClusterStore.now} */
  now(): Promise<Date> {
    return Promise.resolve(this.state.time());
  }
}
