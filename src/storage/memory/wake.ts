/**
 * In-process wake-ups for the memory provider: the equivalent of LISTEN/NOTIFY. Subscribers hear
 * a queue name after rows were created in it; delivery is deferred with `queueMicrotask`, so it
 * never runs inside a store operation.
 *
 * @internal
 */

/** A wake-up subscriber. */
export type WakeListener = (queue: string) => void;

/** The set of subscribers of one store. */
export class WakeHub {
  private readonly listeners = new Set<WakeListener>();

  /** Adds `listener`; the returned function removes it (idempotent). */
  subscribe(listener: WakeListener): () => Promise<void> {
    // A wrapper per subscription, so subscribing the same function twice yields two deliveries
    // and two independent unsubscribes.
    const entry: WakeListener = (queue) => listener(queue);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
      return Promise.resolve();
    };
  }

  /**
   * Schedules one wake-up per queue for every current subscriber. A subscriber removed before
   * delivery is skipped; one that throws is ignored (a wake-up is only a hint).
   */
  notify(queues: readonly string[]): void {
    if (queues.length === 0) return;
    for (const listener of this.listeners) {
      queueMicrotask(() => {
        if (!this.listeners.has(listener)) return;
        for (const queue of queues) {
          try {
            listener(queue);
          } catch {
            // A hint only: a failing subscriber must not break the store or other subscribers.
          }
        }
      });
    }
  }

  /** Drops every subscriber. */
  clear(): void {
    this.listeners.clear();
  }
}
