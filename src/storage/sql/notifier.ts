/**
 * Post-commit wake-ups. A `pg_notify` inside the enqueue transaction serialises every commit on
 * the server's notify queue, so the store sends it after the enqueue committed, debounced per
 * queue: the first enqueue of a quiet queue notifies at once, later ones within the window are
 * folded into one trailing notification. The one exception is {@link WakeNotifier.carry}: one
 * insert at a time into a quiet queue may notify inside its own statement.
 */
import { logEvent } from '../../observability/logging/log-events.js';
import type { Logger } from '../../observability/logging/logger.js';

/** Debounce window per queue in milliseconds. @default 5 */
export const NOTIFY_WINDOW_MS = 5;

/** Sends one notification for a queue; the notifier never awaits it for the caller. */
export type SendWake = (queue: string) => Promise<void>;

interface QueueWindow {
  timer: NodeJS.Timeout;
  /** Another enqueue arrived during the window: send once more when it ends. */
  again: boolean;
}

/** Debounces wake notifications per queue; fire-and-forget, errors are only logged. */
export class WakeNotifier {
  private readonly windows = new Map<string, QueueWindow>();
  private stopped = false;
  /** A statement that carries its queue's notification is in flight. */
  private carrying = false;

  /**
   * @param send Sends the notification (for SQL stores `SELECT pg_notify(channel, queue)`).
   * @param logger Where send failures go (at `warn`).
   * @param windowMs Debounce window. Default: {@link NOTIFY_WINDOW_MS}.
   */
  constructor(
    private readonly send: SendWake,
    private readonly logger: Logger,
    private readonly windowMs: number = NOTIFY_WINDOW_MS,
  ) {}

  /** Announces that jobs were committed to each of `queues`. */
  wake(queues: Iterable<string>): void {
    if (this.stopped) return;
    for (const queue of new Set(queues)) {
      const open = this.windows.get(queue);
      if (open !== undefined) {
        open.again = true;
        continue;
      }
      this.fire(queue);
      this.openWindow(queue);
    }
  }

  /**
   * Lets one insert notify `queue` inside its own statement, which PostgreSQL delivers at its
   * commit: the worker wakes a round trip sooner than by {@link wake} after the commit. Allowed
   * while the queue is quiet (no window open: the window opens now, as for a notification sent)
   * and no other carried notification is in flight, since a transaction that notifies holds the
   * server's notify lock through its commit and carried ones would queue their commits behind
   * each other. Returns whether the caller's statement carries it; then call {@link carried}
   * when the statement ended, whatever its outcome.
   */
  carry(queue: string): boolean {
    if (this.stopped || this.carrying || this.windows.has(queue)) return false;
    this.carrying = true;
    this.openWindow(queue);
    return true;
  }

  /** The statement that {@link carry} allowed ended: another may carry its notification. */
  carried(): void {
    this.carrying = false;
  }

  /** Cancels pending trailing notifications; later {@link wake} calls do nothing. */
  stop(): void {
    this.stopped = true;
    for (const window of this.windows.values()) clearTimeout(window.timer);
    this.windows.clear();
  }

  private openWindow(queue: string): void {
    const window: QueueWindow = {
      again: false,
      timer: setTimeout(() => {
        this.windows.delete(queue);
        if (window.again && !this.stopped) {
          this.fire(queue);
          this.openWindow(queue);
        }
      }, this.windowMs),
    };
    window.timer.unref();
    this.windows.set(queue, window);
  }

  private fire(queue: string): void {
    this.send(queue).catch((error: unknown) => {
      this.logger.warn('wake notification failed', {
        ...logEvent('NotificationFailed'),
        queue,
        error: error instanceof Error ? error.message : String(error),
      });
    });
  }
}
