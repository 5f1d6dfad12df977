import { systemClock, type CancelTimer, type Clock } from '../../src/util/clock.js';

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
  cancelReal: CancelTimer;
}

/**
 * A clock for tests of a whole engine on a real store: real time and real timers, plus jumps
 * forward. Give one to the store and to the engine (`{ clock }` of both), and the time that
 * statements, ages, leases, heartbeats and due times read moves with {@link JumpingClock.jump}
 * while the engine keeps polling, claiming and settling on real timers.
 *
 * A jump fires at once, in due order, every pending timer that the new time has passed: that
 * time passed, so the promoter, the rescuer or the retention loop waiting for it runs now, where
 * a jump that left the timers alone would still wait up to a whole interval of real time (a
 * minute of retention loop). Each callback sees the new time, so to the event-loop probe a jump
 * longer than 50 ms looks like a stall of that length; {@link JumpingClock.glide} lets time pass
 * without one. Jump while the engine holds no running or claimed job, unless the test is about
 * what a jump does to them: a jump past a zombie or fetched timeout makes their rows stale.
 */
export class JumpingClock implements Clock {
  private offset = 0;
  private seq = 0;
  private readonly timers = new Set<Timer>();

  now(): number {
    return systemClock.now() + this.offset;
  }

  schedule(callback: () => void, ms: number): CancelTimer {
    const timer: Timer = {
      at: this.now() + Math.max(0, ms),
      seq: this.seq++,
      callback,
      cancelReal: () => undefined,
    };
    timer.cancelReal = systemClock.schedule(() => this.fire(timer), ms);
    this.timers.add(timer);
    return () => {
      timer.cancelReal();
      this.timers.delete(timer);
    };
  }

  /** Moves the time forward by `ms` at once and fires the timers it passed. */
  jump(ms: number): void {
    this.offset += ms;
    const now = this.now();
    const due = [...this.timers]
      .filter((timer) => timer.at <= now)
      .sort((a, b) => a.at - b.at || a.seq - b.seq);
    // A callback may cancel a later timer of this batch: fire() skips the cancelled.
    for (const timer of due) this.fire(timer);
  }

  /**
   * Lets `ms` pass in jumps of at most `stepMs`, with a turn of the event loop after each so the
   * work their timers start gets going. Steps under 50 ms are below what the engine's event-loop
   * probe notes: the time passes without looking like a stall. Real time passes meanwhile too.
   */
  async glide(ms: number, stepMs = 40): Promise<void> {
    for (let left = ms; left > 0; left -= stepMs) {
      this.jump(Math.min(stepMs, left));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private fire(timer: Timer): void {
    if (!this.timers.delete(timer)) return;
    timer.cancelReal();
    timer.callback();
  }
}
