/**
 * `chokaq.queues`: the operator's calls on queues — list, stats, pause and resume, caps, zombie
 * timeouts, history and (de)activation, each checked, applied for every process and audited.
 */
import type { Store } from '../storage/store.js';
import { ChokaQError } from '../errors.js';
import { validateQueueName } from '../job/envelope.js';
import type { ChokaQEvents } from '../runtime/events.js';
import type { QueueInfo, QueueStats } from '../storage/model.js';
import type { QueuePatch } from '../storage/queue-store.js';
import { checkBoolean, checkInteger } from '../util/check.js';
import type { Duration } from '../util/duration.js';
import { checkActorOptions, type ActorOptions, type Auditor } from './audit.js';
import { INTERNAL_QUEUE_PREFIX } from './bulk-runner.js';

/** Bounds of a queue's `maxWorkers`. */
export const MAX_WORKERS_RANGE = { min: 1, max: 1_000_000 } as const;

/** Dependencies of a {@link QueuesApi}. */
export interface QueuesApiOptions {
  store: Pick<Store, 'queues'>;
  /** Opens the store once (migrating per its options). */
  open: () => Promise<void>;
  events: ChokaQEvents;
  auditor: Auditor;
  /**
   * A queue's zombie timeout in whole seconds, checked against the heartbeat interval.
   * @throws ChokaQError naming `field`.
   */
  zombieSeconds: (timeout: Duration, field: string) => number;
  /** Tells this process's workers that a queue was paused or deactivated (or no longer is). */
  notePaused: (queue: string, paused: boolean) => void;
}

/** Operator calls on queues (`chokaq.queues`). */
export class QueuesApi {
  constructor(private readonly options: QueuesApiOptions) {}

  /** Every known queue with its controls. */
  async list(): Promise<QueueInfo[]> {
    await this.options.open();
    return this.options.store.queues.listQueues();
  }

  /** Counts and lifetime counters per queue. */
  async stats(): Promise<QueueStats[]> {
    await this.options.open();
    return this.options.store.queues.queueStats();
  }

  /**
   * Stops claiming from a queue; running jobs finish. Prefetched jobs go back to pending.
   * @throws ChokaQError `CHOKAQ_INTERNAL_QUEUE` for ChokaQ's own queues (`chokaq.*`).
   */
  pause(name: string, options?: ActorOptions): Promise<QueueInfo> {
    return this.patch(name, { paused: true }, options);
  }

  /** Resumes a paused queue. */
  resume(name: string, options?: ActorOptions): Promise<QueueInfo> {
    return this.patch(name, { paused: false }, options);
  }

  /**
   * Caps running + prefetched jobs of a queue across all processes (1–1,000,000); `null` removes
   * the cap.
   */
  async setMaxWorkers(
    name: string,
    maxWorkers: number | null,
    options?: ActorOptions,
  ): Promise<QueueInfo> {
    const checked =
      maxWorkers === null
        ? null
        : checkInteger(maxWorkers, 'maxWorkers', MAX_WORKERS_RANGE, 'CHOKAQ_INVALID_ARGUMENT');
    return this.patch(name, { maxWorkers: checked }, options);
  }

  /**
   * Sets how long a running job of this queue may go without a heartbeat before it becomes a
   * zombie, across all processes: a whole number of seconds (`'90s'`, `90_000`) longer than
   * `heartbeatInterval`; `null` returns the queue to the ChokaQ-wide `zombieTimeout`.
   */
  async setZombieTimeout(
    name: string,
    timeout: Duration | null,
    options?: ActorOptions,
  ): Promise<QueueInfo> {
    const seconds = timeout === null ? null : this.options.zombieSeconds(timeout, 'timeout');
    return this.patch(name, { zombieTimeoutSeconds: seconds }, options);
  }

  /**
   * Whether the queue's succeeded jobs get archive rows, across all processes: `false` deletes
   * each succeeded job once counted (lifetime counters, metric buckets and metrics stay exact);
   * `true` archives them again from the next settle on.
   */
  async setKeepSucceeded(name: string, keep: boolean, options?: ActorOptions): Promise<QueueInfo> {
    const checked = checkBoolean(keep, 'keep', 'CHOKAQ_INVALID_ARGUMENT');
    return this.patch(name, { keepSucceeded: checked }, options);
  }

  /**
   * Deactivates a queue (never claimed, by any process, until activated again) or activates it.
   * @throws ChokaQError `CHOKAQ_INTERNAL_QUEUE` when deactivating ChokaQ's own (`chokaq.*`).
   */
  async setActive(name: string, active: boolean, options?: ActorOptions): Promise<QueueInfo> {
    const checked = checkBoolean(active, 'active', 'CHOKAQ_INVALID_ARGUMENT');
    return this.patch(name, { active: checked }, options);
  }

  private async patch(
    name: string,
    patch: QueuePatch,
    options: ActorOptions | undefined,
  ): Promise<QueueInfo> {
    validateQueueName(name, 'queue');
    const { actor, reason } = checkActorOptions(options);
    // Bulk actions and other engine work run on these: stopping their claims stalls them all.
    if (
      name.startsWith(INTERNAL_QUEUE_PREFIX) &&
      (patch.paused === true || patch.active === false)
    ) {
      throw new ChokaQError(
        'CHOKAQ_INTERNAL_QUEUE',
        `queue '${name}' is ChokaQ's own (it runs bulk actions and other engine work): it cannot be ${patch.paused === true ? 'paused' : 'deactivated'}`,
        { field: 'queue' },
      );
    }
    await this.options.open();
    const info = await this.options.store.queues.updateQueue(name, patch);
    if (patch.paused !== undefined || patch.active !== undefined) {
      this.options.notePaused(info.name, info.paused || !info.active);
    }
    this.options.events.emit('queue:updated', info);
    await this.options.auditor.record({
      actor,
      action: 'queue-update',
      reason,
      target: { queue: info.name },
      outcome: patch,
    });
    return info;
  }
}
