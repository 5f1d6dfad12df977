/**
 * The cluster capability over SQL ({@link ClusterStore}): wake-ups and broadcasts by
 * LISTEN/NOTIFY, the leases of single-process duties, the worker processes that are alive, and
 * the database's clock.
 */
import type { ClusterStore } from '../cluster-store.js';
import type { WorkerPresence } from '../model.js';
import { toDate, workerPresenceOf } from './rows.js';
import { eventsChannel } from './schema.js';
import type { SqlContext, Unlisten } from './sql-context.js';
import * as run from './statements.js';

/** Processes sharing one SQL store. */
export class SqlCluster implements ClusterStore {
  constructor(private readonly context: SqlContext) {}

  async listen(onWake: (queue: string) => void): Promise<Unlisten> {
    const { ownListeners } = this.context;
    const stop = await this.context.listenOn(this.context.channel, onWake, 'wake');
    ownListeners.add(onWake);
    return async () => {
      ownListeners.delete(onWake);
      await stop();
    };
  }

  /** {@inheritDoc ClusterStore.broadcast} */
  async broadcast(message: string): Promise<void> {
    const db = await this.context.laneDb('upkeep');
    await run.notify(db, this.context.sql, {
      channel: eventsChannel(this.context.schema),
      payload: message,
    });
  }

  /** {@inheritDoc ClusterStore.subscribe} */
  async subscribe(onMessage: (message: string) => void): Promise<Unlisten> {
    return this.context.listenOn(eventsChannel(this.context.schema), onMessage, 'event');
  }

  /** {@inheritDoc ClusterStore.takeLease} */
  async takeLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const db = await this.context.db();
    return (
      (
        await run.leaseTake(db, this.context.sql, {
          name,
          holder,
          ttlMs,
          now: this.context.now(),
        })
      ).length > 0
    );
  }

  /** {@inheritDoc ClusterStore.recordWorker} */
  async recordWorker(worker: Omit<WorkerPresence, 'lastSeenAt'>): Promise<void> {
    const db = await this.context.laneDb('upkeep');
    const { id, host, pid, startedAt, ...info } = worker;
    await run.workerSeen(db, this.context.sql, {
      id,
      host,
      pid,
      startedAt,
      info: JSON.stringify(info),
      now: this.context.now(),
    });
  }

  /** {@inheritDoc ClusterStore.forgetWorker} */
  async forgetWorker(id: string): Promise<void> {
    const db = await this.context.db();
    await run.workerGone(db, this.context.sql, { id });
  }

  /** {@inheritDoc ClusterStore.listWorkers} */
  async listWorkers(withinMs: number): Promise<WorkerPresence[]> {
    const db = await this.context.db();
    return (
      await run.workersList(db, this.context.sql, {
        withinMs,
        now: this.context.now(),
      })
    ).map(workerPresenceOf);
  }

  async now(): Promise<Date> {
    const db = await this.context.db();
    const [row] = await run.now(db, this.context.sql, { now: this.context.now() });
    return toDate(row?.now);
  }
}
