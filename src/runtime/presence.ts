/**
 * A started worker's row in the store (`workers`): who it is, how busy, which of its circuits
 * are not closed — written every {@link PRESENCE_INTERVAL_MS} (and when a circuit changes
 * state) and deleted when it stops, so
 * `chokaq status` and The Deck can list the workers alive across every process.
 */
import type { Store } from '../storage/store.js';
import { hostname } from 'node:os';
import type { WorkerPresence } from '../storage/model.js';
import type { Clock } from '../util/clock.js';
import { LoopService } from './service.js';

/** How often a worker writes its row, in ms. */
export const PRESENCE_INTERVAL_MS = 10_000;

/** A row older than this is a worker that is gone (three missed writes), in ms. */
export const PRESENCE_ALIVE_MS = 3 * PRESENCE_INTERVAL_MS;

/** Options of {@link Presence}. */
export interface PresenceOptions {
  store: Pick<Store, 'cluster'>;
  workerId: string;
  version: string;
  /** What the row says about the worker now. */
  describe: () => Pick<
    WorkerPresence,
    'concurrency' | 'running' | 'queues' | 'circuits' | 'breakers' | 'types' | 'health' | 'lag'
  >;
  clock: Clock;
}

/** Keeps this worker's row fresh while it runs. */
export class Presence {
  private readonly loop: LoopService;
  private readonly startedAt: Date;
  /** Set by {@link stop}: a refresh queued behind the last write must not bring the row back. */
  private stopped = false;

  constructor(private readonly options: PresenceOptions) {
    this.startedAt = new Date(options.clock.now());
    this.loop = new LoopService({
      intervalMs: PRESENCE_INTERVAL_MS,
      pass: () => this.write(),
      onError: () => undefined, // a missed write only ages the row; the next one refreshes it
      clock: options.clock,
    });
  }

  /**
   * Writes the row, then every interval: a worker whose start has resolved is listed (a failed
   * first write only leaves it unlisted until the next one).
   */
  async start(): Promise<void> {
    await this.loop.runNow();
    if (!this.stopped) this.loop.start();
  }

  /**
   * Writes the row now (after a write in flight), when what it says changed in a way a reader
   * should not wait an interval for; nothing once stopped. Never throws.
   */
  refresh(): void {
    if (this.loop.started) void this.loop.runNow();
  }

  /** Stops writing and deletes the row. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await this.options.store.cluster.forgetWorker(this.options.workerId).catch(() => undefined);
  }

  private async write(): Promise<void> {
    if (this.stopped) return;
    const { store, workerId, version, describe } = this.options;
    await store.cluster.recordWorker({
      id: workerId,
      host: hostname(),
      pid: process.pid,
      startedAt: this.startedAt,
      version,
      ...describe(),
    });
  }
}
