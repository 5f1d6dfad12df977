/**
 * The live demo's pace: `rate` jobs a second, spread over the second in ten steps rather than one
 * burst, so work is always arriving and The Deck shows jobs running, not a spike then nothing.
 */

/** Steps per second of the live demo's enqueue loop. */
export const STEPS_PER_SECOND = 10;

/**
 * How many of a second's `rate` jobs step `step` (0 to {@link STEPS_PER_SECOND} − 1) enqueues:
 * the steps of one second add up to `rate`, and no two differ by more than one.
 */
export function jobsAtStep(rate: number, step: number): number {
  const at = (k: number) => Math.floor((rate * k) / STEPS_PER_SECOND);
  return at(step + 1) - at(step);
}
