/**
 * Watches this process's event loop: a timer that should fire every 100 ms notes how late
 * each tick came. A late tick means the loop was blocked (a synchronous handler, a huge JSON
 * parse) and nothing else ran meanwhile — no claim, no heartbeat, no settle. The probe keeps the
 * delays of a window (twice `health.stallTimeout`: a minute by default), so a health check that
 * runs after the stall still sees it.
 */
import type { CancelTimer, Clock } from '../util/clock.js';

/** How often the probe ticks, in ms. */
const TICK_MS = 100;

/** Delays below this are noise and not kept, in ms. */
const NOTABLE_MS = 50;

/** The event-loop probe of one ChokaQ instance. */
export class EventLoopProbe {
  private delays: { at: number; ms: number }[] = [];
  private expectedAt = 0;
  private cancel: CancelTimer | undefined;

  /** @param windowMs How long a delay stays visible, in ms. */
  constructor(
    private readonly clock: Clock,
    private readonly windowMs: number,
  ) {}

  /** Starts ticking; idempotent. */
  start(): void {
    if (this.cancel) return;
    this.arm();
  }

  /** Stops ticking. */
  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }

  /** Whether the probe runs. */
  get running(): boolean {
    return this.cancel !== undefined;
  }

  /**
   * The longest stall of the window in ms, counting a tick that is late right now (a check
   * served while the loop is still catching up).
   */
  worstDelayMs(): number {
    const now = this.clock.now();
    this.prune(now);
    const late = this.running ? Math.max(0, now - this.expectedAt) : 0;
    return this.delays.reduce((worst, d) => Math.max(worst, d.ms), late);
  }

  private arm(): void {
    this.expectedAt = this.clock.now() + TICK_MS;
    this.cancel = this.clock.schedule(() => this.tick(), TICK_MS);
  }

  private tick(): void {
    const now = this.clock.now();
    const late = now - this.expectedAt;
    if (late >= NOTABLE_MS) this.delays.push({ at: now, ms: late });
    this.prune(now);
    this.arm();
  }

  private prune(now: number): void {
    const since = now - this.windowMs;
    if (this.delays.length > 0 && this.delays[0]!.at < since)
      this.delays = this.delays.filter((d) => d.at >= since);
  }
}
