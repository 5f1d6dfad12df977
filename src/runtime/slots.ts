/**
 * A resizable pool of execution slots (the local concurrency limit). Shrinking never preempts
 * running jobs: new starts wait until the running count drops below the new size.
 */
export class Slots {
  private size: number;
  private used = 0;
  private waiters: (() => void)[] = [];

  /** @param size Initial number of slots, at least 1. */
  constructor(size: number) {
    this.size = Slots.check(size);
  }

  /** Slots now in use. */
  get inUse(): number {
    return this.used;
  }

  /** Current size. */
  get capacity(): number {
    return this.size;
  }

  /** Free slots now (0 when shrunk below the running count). */
  get free(): number {
    return Math.max(0, this.size - this.used);
  }

  /** Changes the size at once; growing wakes waiters. */
  resize(size: number): void {
    this.size = Slots.check(size);
    this.wake();
  }

  /** Takes a slot if one is free. */
  tryAcquire(): boolean {
    if (this.used >= this.size) return false;
    this.used += 1;
    return true;
  }

  /** Gives a slot back. */
  release(): void {
    if (this.used === 0) throw new Error('Slots.release without a matching acquire');
    this.used -= 1;
    this.wake();
  }

  /** Resolves once no slot is in use. */
  async idle(): Promise<void> {
    while (this.used > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private static check(size: number): number {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`concurrency must be an integer ≥ 1, got ${size}`);
    return size;
  }
}
