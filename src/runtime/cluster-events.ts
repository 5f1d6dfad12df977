/**
 * Events across processes. What this process does — jobs enqueued, started, succeeded, retried,
 * dead; queue controls changed; operator actions — is counted per queue and sent through the
 * store (`ClusterStore.broadcast`: PostgreSQL NOTIFY, in-process for the embedded and memory stores)
 * once per interval, in a few small messages however many jobs ran: 10,000 jobs a second make
 * four messages a second, not 10,000. Every process that started its ChokaQ receives them as
 * `cluster:activity` (its own too, without the round trip), `queue:updated` (re-read from the
 * store, not trusted from the message) and `operator:action` events.
 *
 * Delivery is best effort: a process that is reconnecting misses what was sent meanwhile, so a
 * consumer treats the events as "something changed here" and re-reads what it shows.
 */
import type { Store } from '../storage/store.js';
import { logEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import type { AuditEntry } from '../storage/bulk.js';
import type { QueueInfo } from '../storage/model.js';
import { MAX_BROADCAST_BYTES } from '../storage/cluster-store.js';
import type { CancelTimer, Clock } from '../util/clock.js';
import type { RetryOptions } from '../job/retry.js';
import type { ChokaQEvents } from './events.js';

/** How often this process's activity is sent when `clusterEvents.interval` is not given. */
export const DEFAULT_CLUSTER_EVENTS_INTERVAL = '250ms';

/** The bounds of `clusterEvents.interval`, in ms: 10 ms to a minute. */
export const CLUSTER_EVENTS_INTERVAL = { min: 10, max: 60_000 } as const;

/** Dead job ids carried per queue and message. */
const MAX_DEAD_IDS = 20;

/** One queue's counts as sent: [queue, enqueued, started, succeeded, retried, dead, deadIds]. */
type WireQueue = [string, number, number, number, number, number, string[]];

/** A message on the wire (version 1). */
interface WireMessage {
  v: 1;
  /** Origin (worker id). */
  o: string;
  /** Sent at, epoch ms. */
  t: number;
  q: WireQueue[];
  /** Queues whose controls changed. */
  u: string[];
  /** Operator actions. */
  a: AuditEntry[];
  /** Live controls for some processes (absent in messages of activity). */
  c?: LiveControl[];
}

/**
 * A change of a running process's settings, sent to every process: the worker `workerId` sets
 * its concurrency; every process that runs `type` applies the retry settings on top of its own.
 */
export type LiveControl =
  | { kind: 'concurrency'; workerId: string; concurrency: number }
  | { kind: 'retry'; type: string; retry: RetryOptions };

/** A message carrying one live control (sent at once, not gathered per interval). */
export function controlMessage(origin: string, sentAt: number, control: LiveControl): string {
  const message: WireMessage = { v: 1, o: origin, t: sentAt, q: [], u: [], a: [], c: [control] };
  return JSON.stringify(message);
}

/** Options of {@link ClusterEvents}. */
export interface ClusterEventsOptions {
  store: Pick<Store, 'cluster' | 'queues'>;
  /** Opens the store (shared with the rest of ChokaQ). */
  open: () => Promise<void>;
  events: ChokaQEvents;
  origin: string;
  clock: Clock;
  /** How long activity is gathered before it is sent, in ms. */
  intervalMs: number;
  logger: Logger;
  /** Applies a live control another process sent. Default: none (controls are ignored). */
  onControl?: (control: LiveControl) => void;
}

/** One queue's counts in the current interval. */
interface QueueCounts {
  enqueued: number;
  started: number;
  succeeded: number;
  retried: number;
  dead: number;
  deadIds: string[];
}

/** Sends this process's activity and turns other processes' into local events. */
export class ClusterEvents {
  private queues = new Map<string, QueueCounts>();
  private updates = new Set<string>();
  private actions: AuditEntry[] = [];
  private flushTimer: CancelTimer | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private stopped = false;
  /** Set while re-emitting another process's event, so it is not sent on again. */
  private relaying = false;

  constructor(private readonly options: ClusterEventsOptions) {
    const { events } = options;
    events.on('job:enqueued', (e) => {
      if (e.created) this.count(e.queue).enqueued += 1;
    });
    events.on('job:started', (e) => (this.count(e.queue).started += 1));
    events.on('job:succeeded', (e) => (this.count(e.queue).succeeded += 1));
    events.on('job:retrying', (e) => (this.count(e.queue).retried += 1));
    events.on('job:dead', (e) => this.dead(e.queue, e.id));
    events.on('job:rescued', (e) => {
      if (e.outcome === 'retried') this.count(e.queue).retried += 1;
      else this.dead(e.queue, e.id);
    });
    events.on('queue:updated', (info) => {
      if (this.relaying) return;
      this.updates.add(info.name);
      this.schedule();
    });
    events.on('operator:action', (entry) => {
      if (this.relaying) return;
      this.actions.push(entry);
      this.schedule();
    });
  }

  /** Starts receiving other processes' messages. Idempotent. */
  async start(): Promise<void> {
    if (this.unsubscribe || this.stopped) return;
    await this.options.open();
    this.unsubscribe = await this.options.store.cluster.subscribe((message) =>
      this.receive(message),
    );
  }

  /** Sends what is gathered, stops receiving and sending. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.flushTimer?.();
    this.flushTimer = undefined;
    await this.flush();
    this.stopped = true;
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    await unsubscribe?.().catch(() => undefined);
  }

  /** The counts of `queue` in the current interval. */
  private count(queue: string): QueueCounts {
    let counts = this.queues.get(queue);
    if (counts === undefined) {
      counts = { enqueued: 0, started: 0, succeeded: 0, retried: 0, dead: 0, deadIds: [] };
      this.queues.set(queue, counts);
      this.schedule();
    }
    return counts;
  }

  private dead(queue: string, id: string): void {
    const counts = this.count(queue);
    counts.dead += 1;
    if (counts.deadIds.length < MAX_DEAD_IDS) counts.deadIds.push(id);
  }

  /** Flushes once the interval has passed since the first event gathered. */
  private schedule(): void {
    if (this.flushTimer !== undefined || this.stopped) return;
    this.flushTimer = this.options.clock.schedule(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, this.options.intervalMs);
  }

  /** Sends the gathered activity (in messages under the size limit) and emits it locally. */
  private async flush(): Promise<void> {
    if (this.stopped) return;
    const { origin, clock, store, logger } = this.options;
    const entries: WireQueue[] = [...this.queues].map(([queue, c]) => [
      queue,
      c.enqueued,
      c.started,
      c.succeeded,
      c.retried,
      c.dead,
      c.deadIds,
    ]);
    const updates = [...this.updates];
    const actions = this.actions;
    this.queues = new Map();
    this.updates = new Set();
    this.actions = [];
    if (entries.length + updates.length + actions.length === 0) return;
    const sentAt = clock.now();
    for (const entry of entries) this.emitActivity(entry, origin, sentAt);
    for (const message of packMessages(origin, sentAt, entries, updates, actions)) {
      try {
        await store.cluster.broadcast(message);
      } catch (error) {
        logger.warn('cluster events not sent', {
          ...logEvent('ClusterEventsNotSent'),
          error: String(error),
        });
        return;
      }
    }
  }

  private receive(text: string): void {
    if (this.stopped) return;
    let message: WireMessage;
    try {
      message = JSON.parse(text) as WireMessage;
    } catch {
      return; // '*' after a reconnect: what was missed is gone
    }
    if (message?.v !== 1 || message.o === this.options.origin) return;
    for (const entry of message.q ?? []) this.emitActivity(entry, message.o, message.t);
    this.relay(() => {
      for (const entry of message.a ?? []) {
        this.options.events.emit('operator:action', { ...entry, at: new Date(entry.at) });
      }
    });
    if ((message.u ?? []).length > 0) void this.reemitQueues(new Set(message.u));
    for (const control of message.c ?? []) this.options.onControl?.(control);
  }

  private emitActivity(entry: WireQueue, origin: string, sentAt: number): void {
    const [queue, enqueued, started, succeeded, retried, dead, deadIds] = entry;
    this.options.events.emit('cluster:activity', {
      origin,
      local: origin === this.options.origin,
      queue,
      enqueued,
      started,
      succeeded,
      retried,
      dead,
      deadIds,
      sentAt: new Date(sentAt),
    });
  }

  /** Re-reads the queues another process changed and emits `queue:updated` for each. */
  private async reemitQueues(names: ReadonlySet<string>): Promise<void> {
    let queues: QueueInfo[];
    try {
      queues = await this.options.store.queues.listQueues();
    } catch (error) {
      this.options.logger.warn('changed queues not re-read', {
        ...logEvent('ClusterQueuesNotReread'),
        error: String(error),
      });
      return;
    }
    this.relay(() => {
      for (const info of queues) {
        if (names.has(info.name)) this.options.events.emit('queue:updated', info);
      }
    });
  }

  /** Emits another process's events without sending them on. */
  private relay(emit: () => void): void {
    this.relaying = true;
    try {
      emit();
    } finally {
      this.relaying = false;
    }
  }
}

/**
 * The gathered activity as JSON messages of at most {@link MAX_BROADCAST_BYTES} each, entries
 * kept whole; an entry that does not fit an empty message (a huge operator action) is left out.
 */
function packMessages(
  origin: string,
  sentAt: number,
  queues: readonly WireQueue[],
  updates: readonly string[],
  actions: readonly AuditEntry[],
): string[] {
  const empty = (): WireMessage => ({ v: 1, o: origin, t: sentAt, q: [], u: [], a: [] });
  const overhead = Buffer.byteLength(JSON.stringify(empty()));
  const out: string[] = [];
  let current = empty();
  let size = overhead;
  const add = <K extends 'q' | 'u' | 'a'>(key: K, item: WireMessage[K][number]): void => {
    const bytes = Buffer.byteLength(JSON.stringify(item)) + 1; // and its comma
    if (overhead + bytes > MAX_BROADCAST_BYTES) return;
    if (size + bytes > MAX_BROADCAST_BYTES) {
      out.push(JSON.stringify(current));
      current = empty();
      size = overhead;
    }
    (current[key] as unknown[]).push(item);
    size += bytes;
  };
  for (const entry of queues) add('q', entry);
  for (const queue of updates) add('u', queue);
  for (const action of actions) add('a', action);
  if (size > overhead) out.push(JSON.stringify(current));
  return out;
}
