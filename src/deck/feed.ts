/**
 * The live feed of one Deck: Server-Sent Events shared by every open tab. While anybody listens,
 * one timer reads the state once per interval (`chokaq.status()`, the running bulk actions) and
 * sends it with what happened since (job activity of every process, operator actions, queue
 * changes) coalesced into one message: ten tabs mean one read per interval, and 10,000 jobs a
 * second mean one `activity` message per interval. Messages carry increasing ids and the last
 * few hundred events are kept, so a browser that reconnects with `Last-Event-ID` gets what it
 * missed (or `reset` when that is gone: re-read everything). The state (`status`) is not kept:
 * a new stream starts with the latest one.
 */
import type { ChokaQ } from '../chokaq.js';
import { logEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import type { AuditEntry } from '../storage/bulk.js';
import type { ClusterActivity } from '../runtime/events.js';
import type { QueueInfo } from '../storage/model.js';
import type { DeckResponse } from './http.js';

/** Messages kept for resuming. */
const REPLAY_SIZE = 500;
/** Lag samples kept per queue for the overview chart (at one a second: 15 minutes). */
const LAG_HISTORY = 900;
/** A comment line this often keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;
/** Bytes waiting on one stream past which it is ended rather than buffered further. */
const MAX_BUFFERED = 1024 * 1024;

/** One sent message. */
interface FeedMessage {
  id: number;
  event: string;
  data: string;
}

/** Activity of one queue summed over one interval. */
interface QueueActivity {
  enqueued: number;
  started: number;
  succeeded: number;
  retried: number;
  dead: number;
}

/** A lag sample of one queue. */
export interface LagSample {
  at: number;
  lagMs: number;
}

/** The feed of one Deck. */
export class DeckFeed {
  private readonly clients = new Set<DeckResponse>();
  private readonly replay: FeedMessage[] = [];
  private lastStatus: FeedMessage | undefined;
  /** The id of the newest kept message that was dropped from {@link replay}. */
  private droppedUpTo = 0;
  private nextId = 1;
  private timer: NodeJS.Timeout | undefined;
  private keepalive: NodeJS.Timeout | undefined;
  private reading = false;
  private activity = new Map<string, QueueActivity>();
  private actions: AuditEntry[] = [];
  private queuesChanged = new Set<string>();
  /** Lag over time per queue, sampled by the feed's own reads. */
  readonly lag = new Map<string, LagSample[]>();
  private readonly listeners: {
    activity: (e: ClusterActivity) => void;
    action: (e: AuditEntry) => void;
    queue: (e: QueueInfo) => void;
  };

  constructor(
    private readonly chokaq: ChokaQ,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.listeners = {
      activity: (e) => this.noteActivity(e),
      action: (e) => {
        if (this.actions.length < 100) this.actions.push(e);
      },
      queue: (e) => this.queuesChanged.add(e.name),
    };
  }

  /** Open streams now. */
  get size(): number {
    return this.clients.size;
  }

  /**
   * Streams the feed to `res` until the client goes: first what it missed since `lastEventId`
   * (or `reset`), then the current state, then every message.
   */
  subscribe(res: DeckResponse, lastEventId: string | undefined): void {
    // The client may have gone while its access was being resolved: its close event is past.
    if (res.destroyed === true || res.writableEnded === true) return;
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Connection', 'keep-alive');
    // Proxies such as nginx would otherwise hold the stream back.
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders?.();
    res.write(`retry: 2000\n\n`);
    const since = lastEventId === undefined ? NaN : Number(lastEventId);
    if (Number.isInteger(since)) {
      // An id from before the kept messages, or from another server run: it missed too much.
      if (since < this.droppedUpTo || since >= this.nextId) {
        this.write(res, { id: this.nextId - 1, event: 'reset', data: '{}' });
      } else for (const m of this.replay) if (m.id > since) this.write(res, m);
    }
    if (this.lastStatus !== undefined) this.write(res, this.lastStatus, false);
    this.clients.add(res);
    res.on('close', () => this.drop(res));
    if (this.clients.size === 1) this.resume();
  }

  /** Ends every stream and stops reading. */
  close(): void {
    for (const res of this.clients) res.end();
    this.clients.clear();
    this.pause();
  }

  private resume(): void {
    this.chokaq.on('cluster:activity', this.listeners.activity);
    this.chokaq.on('operator:action', this.listeners.action);
    this.chokaq.on('queue:updated', this.listeners.queue);
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.keepalive = setInterval(() => {
      for (const res of this.clients) this.send(res, ': keepalive\n\n');
    }, KEEPALIVE_MS);
    void this.tick();
  }

  private pause(): void {
    clearInterval(this.timer);
    clearInterval(this.keepalive);
    this.timer = undefined;
    // Nothing is heard while paused: a stream resuming from before now must start over.
    this.replay.length = 0;
    this.droppedUpTo = this.nextId++;
    this.chokaq.off('cluster:activity', this.listeners.activity);
    this.chokaq.off('operator:action', this.listeners.action);
    this.chokaq.off('queue:updated', this.listeners.queue);
  }

  private noteActivity(e: ClusterActivity): void {
    const sum = this.activity.get(e.queue) ?? {
      enqueued: 0,
      started: 0,
      succeeded: 0,
      retried: 0,
      dead: 0,
    };
    sum.enqueued += e.enqueued;
    sum.started += e.started;
    sum.succeeded += e.succeeded;
    sum.retried += e.retried;
    sum.dead += e.dead;
    this.activity.set(e.queue, sum);
  }

  /** One read and one round of messages; skipped while the previous read is still out. */
  private async tick(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      this.flushEvents();
      const [status, bulk] = await Promise.all([
        this.chokaq.status(),
        this.chokaq.bulk.list({ limit: 20 }),
      ]);
      const at = status.at.getTime();
      for (const q of status.queues) {
        const samples = this.lag.get(q.queue) ?? [];
        samples.push({ at, lagMs: q.lagMs });
        if (samples.length > LAG_HISTORY) samples.shift();
        this.lag.set(q.queue, samples);
      }
      // In progress: running, or previewed and still confirmable (an expired preview never runs).
      const inProgress = bulk.filter(
        (b) => b.status === 'running' || (b.status === 'previewed' && b.expiresAt.getTime() > at),
      );
      this.lastStatus = this.broadcast('status', { ...status, bulk: inProgress }, false);
    } catch (error) {
      this.logger.warn('live feed read failed', { ...logEvent('DeckFeedReadFailed'), error });
      // Not `error`: an EventSource reports that name as a broken connection.
      const message = { message: 'the live feed could not read the state; retrying' };
      this.broadcast('feed-error', message, false);
    } finally {
      this.reading = false;
    }
  }

  /** Sends what the events gathered since the last tick, if anything. */
  private flushEvents(): void {
    if (this.activity.size > 0) {
      this.broadcast('activity', { queues: Object.fromEntries(this.activity) });
      this.activity = new Map();
    }
    if (this.actions.length > 0) {
      this.broadcast('actions', this.actions);
      this.actions = [];
    }
    if (this.queuesChanged.size > 0) {
      this.broadcast('queues', [...this.queuesChanged]);
      this.queuesChanged = new Set();
    }
  }

  /** Sends a message to every stream; `keep` it for streams that resume later. */
  private broadcast(event: string, value: unknown, keep = true): FeedMessage {
    const message = { id: this.nextId++, event, data: JSON.stringify(value) };
    if (keep) {
      this.replay.push(message);
      if (this.replay.length > REPLAY_SIZE) this.droppedUpTo = this.replay.shift()?.id ?? 0;
    }
    for (const res of this.clients) this.write(res, message, keep);
    return message;
  }

  /**
   * Writes a message; `withId` false for the state, which is not kept: its id would move the
   * browser's Last-Event-ID past events it may still need replayed.
   */
  private write(res: DeckResponse, m: FeedMessage, withId = true): void {
    this.send(res, `${withId ? `id: ${m.id}\n` : ''}event: ${m.event}\ndata: ${m.data}\n\n`);
  }

  /**
   * Writes to one stream; a stream that cannot keep up (more than {@link MAX_BUFFERED} bytes
   * waiting) or fails is ended — its browser reconnects and resumes from its last event.
   */
  private send(res: DeckResponse, text: string): void {
    try {
      res.write(text);
      if ((res.writableLength ?? 0) > MAX_BUFFERED) throw new Error('stream too slow');
    } catch {
      res.end();
      this.drop(res);
    }
  }

  /** Forgets a stream (once); the last one going pauses the feed. */
  private drop(res: DeckResponse): void {
    if (this.clients.delete(res) && this.clients.size === 0) this.pause();
  }
}
