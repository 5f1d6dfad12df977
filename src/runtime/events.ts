import { logEvent } from '../observability/logging/log-events.js';
import type { FailureReason } from '../job/state.js';
import type { IdempotencyOutcome } from './idempotency-outcome.js';
import type { Logger } from '../observability/logging/logger.js';
import { checkFunction, checkOneOf } from '../util/check.js';
import type { AuditEntry } from '../storage/bulk.js';
import type { QueueInfo } from '../storage/model.js';
import type { RetentionTable } from '../storage/retention.js';
import type { ScheduleTick } from '../storage/schedules.js';
import type { CircuitEvent } from './circuit-breaker.js';

/** What one process did in one queue during one interval (`cluster:activity`). */
export interface ClusterActivity {
  /** The worker id of the process that did it. */
  origin: string;
  /** Whether that process is this one. */
  local: boolean;
  queue: string;
  enqueued: number;
  started: number;
  succeeded: number;
  retried: number;
  dead: number;
  /** Ids of the jobs that went to the DLQ (at most 20 per message). */
  deadIds: string[];
  /** When the origin sent it, by its clock. */
  sentAt: Date;
}

/** Fields every job event carries. */
export interface JobEventBase {
  id: string;
  type: string;
  queue: string;
}

/** The events ChokaQ emits, by name. Listener errors are logged, never thrown into the engine. */
export interface ChokaQEventMap {
  /** A job was written (or, with `created: false`, an active duplicate held its idempotency key). */
  'job:enqueued': JobEventBase & { created: boolean };
  /** A job passed the lease gate and its handler is about to run. */
  'job:started': JobEventBase & { attempt: number; queueLagMs: number };
  /** A handler reported progress (0–100). */
  'job:progress': JobEventBase & { percent: number };
  /** A job succeeded and is in the archive. */
  'job:succeeded': JobEventBase & { attempt: number; durationMs: number };
  /**
   * A run failed and the job will run again after `delayMs`; with `lost`, the run was not the
   * handler's failure but cut off by this process's shutdown, and its attempt was refunded.
   */
  'job:retrying': JobEventBase & { attempt: number; delayMs: number; error: string; lost: boolean };
  /** A job went to the dead-letter queue. */
  'job:dead': JobEventBase & { attempt: number; reason: FailureReason; error: string };
  /**
   * A run gave its job back in a durable sleep or event wait (docs/workflows.md): the job is
   * scheduled until `wakeAt` (an event may wake it earlier), its attempt refunded.
   */
  'job:suspended': JobEventBase & { attempt: number; wakeAt: Date };
  /** A run ended on purpose without doing the work (`ctx.skip`), and the job was archived with the note. */
  'job:skipped': JobEventBase & { reason: string };
  /** Recovery moved a job: stale claim released, zombie to the DLQ or retried, or cancelled. */
  'job:rescued': JobEventBase & { outcome: 'dead' | 'retried' | 'cancelled' };
  /** An operator edited a pending job through this instance (`jobs.edit`). */
  'job:edited': JobEventBase & { actor: string };
  /** The idempotency middleware decided about a run (one run may report `claimed`, then `completed`). */
  'idempotency:outcome': JobEventBase & { outcome: IdempotencyOutcome };
  /** A guarded write changed nothing: another actor owns or moved the job. */
  'job:conflict': JobEventBase & { step: 'start' | 'archive' | 'retry' | 'dead' | 'release' };
  /** A job type's circuit breaker changed state or refused / granted a probe. */
  'circuit:changed': CircuitEvent;
  /** An operator changed something through this instance; the entry is in the audit trail. */
  'operator:action': AuditEntry;
  /** A queue's controls changed through this instance. */
  'queue:updated': QueueInfo;
  /** Something failed outside a job (fetching, settling); the engine keeps going. */
  'worker:error': { where: string; error: unknown };
  /**
   * What one process — another one, or this one (`local`) — did in one queue during one interval
   * of `clusterEvents` (docs/observability.md). Best effort: re-read what you show.
   */
  'cluster:activity': ClusterActivity;
  /** A retention pass deleted `rows` old rows of `table` (of `queue`, for a queue's own rule). */
  'retention:purged': { table: RetentionTable; queue: string | null; rows: number };
  /**
   * This process fired a tick of `schedule` (its scheduler, or `schedules.trigger`): the tick as
   * stored, with its outcome and job id. Another process firing the same tick emits nothing here.
   */
  'schedule:fired': Omit<ScheduleTick, 'firedAt'> & { schedule: string };
}

/** Name of a ChokaQ event. */
export type ChokaQEventName = keyof ChokaQEventMap;

/** Every event name once; a `Record` over the map's keys, so none can be missing. */
const EVENT_NAME_SET: Record<ChokaQEventName, true> = {
  'job:enqueued': true,
  'job:started': true,
  'job:progress': true,
  'job:succeeded': true,
  'job:retrying': true,
  'job:dead': true,
  'job:suspended': true,
  'job:skipped': true,
  'job:rescued': true,
  'job:conflict': true,
  'job:edited': true,
  'idempotency:outcome': true,
  'operator:action': true,
  'circuit:changed': true,
  'queue:updated': true,
  'worker:error': true,
  'cluster:activity': true,
  'retention:purged': true,
  'schedule:fired': true,
};

/** The fields every job event (and log record about a job) starts with, copied from `job`. */
export function jobEventBase(job: JobEventBase): JobEventBase {
  return { id: job.id, type: job.type, queue: job.queue };
}

/** Every event name, for checking a name given at run time. */
export const EVENT_NAMES = Object.keys(EVENT_NAME_SET) as ChokaQEventName[];

/**
 * Typed listeners by event name; a throwing listener is logged and does not disturb others. Each
 * event keeps its listeners in an array that `on`/`off` replace, so an emit on the hot path walks
 * it without a copy (and sees the listeners of when it began).
 */
export class ChokaQEvents {
  private readonly listeners = new Map<ChokaQEventName, ((payload: never) => void)[]>();

  constructor(private readonly logger: Logger) {}

  /**
   * Adds a listener.
   * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` for an unknown event name or a listener that
   *   is not a function.
   */
  on<E extends ChokaQEventName>(event: E, listener: (payload: ChokaQEventMap[E]) => void): void {
    checkOneOf(event, 'event', EVENT_NAMES, 'CHOKAQ_INVALID_ARGUMENT');
    checkFunction(listener, 'listener', 'CHOKAQ_INVALID_ARGUMENT');
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
  }

  /**
   * Removes a listener: its latest registration when it was added more than once, as Node's
   * `EventEmitter.off` does. Nothing happens for a listener that is not registered.
   */
  off<E extends ChokaQEventName>(event: E, listener: (payload: ChokaQEventMap[E]) => void): void {
    const current = this.listeners.get(event);
    const at = current?.lastIndexOf(listener) ?? -1;
    if (current === undefined || at < 0) return;
    this.listeners.set(event, [...current.slice(0, at), ...current.slice(at + 1)]);
  }

  /** Emits to every listener, logging listener errors. */
  emit<E extends ChokaQEventName>(event: E, payload: ChokaQEventMap[E]): void {
    const listeners = this.listeners.get(event);
    if (listeners === undefined) return; // the hot path: nobody listens
    for (const listener of listeners) {
      try {
        (listener as (p: ChokaQEventMap[E]) => void)(payload);
      } catch (error) {
        this.logger.warn('event listener threw', {
          ...logEvent('EventListenerFailed'),
          event,
          error: String(error),
        });
      }
    }
  }
}
