/**
 * Enqueue calls a producer starts without waiting for each: counted while in flight, and a failed
 * one kept (never left as an unhandled rejection, which would end the harness) until `settled()`
 * reports it as the run's failure.
 */
export class CallsInFlight {
  /** Calls started and not finished yet. */
  pending = 0;
  private readonly calls: Promise<void>[] = [];
  private failures = 0;
  private firstError: unknown;

  /** Tracks `call`. */
  add(call: Promise<void>): void {
    this.pending++;
    this.calls.push(
      call.then(
        () => {
          this.pending--;
        },
        (error: unknown) => {
          this.pending--;
          this.failures++;
          this.firstError ??= error;
        },
      ),
    );
  }

  /**
   * Resolves when every call finished.
   * @throws Error naming how many failed and the first one's message.
   */
  async settled(): Promise<void> {
    await Promise.all(this.calls);
    if (this.failures === 0) return;
    const first =
      this.firstError instanceof Error ? this.firstError.message : String(this.firstError);
    throw new Error(`${this.failures} enqueue calls failed, the first with: ${first}`);
  }
}
