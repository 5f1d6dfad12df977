/**
 * What a rescue pass does, the same for every provider: how many rows a step moves, the error
 * texts it records, and how the `retryZombieTypes` option is read.
 */

/** Default of `RescueOptions.limit`: most rows moved per rescue step. */
export const RESCUE_LIMIT = 1000;

/** Error text of a zombie moved to the DLQ. */
export const ZOMBIE_DEAD_ERROR = 'Zombie: worker heartbeat expired during execution';

/** `lastError` of a zombie of an opted-in type returned to pending. */
export const ZOMBIE_RETRY_ERROR = 'Zombie: heartbeat expired; run again';

/**
 * The `retryZombieTypes` option keyed by lower-cased type key (type keys match without regard
 * to case): the larger maximum wins when two keys fold together; entries that are not numbers
 * are dropped; an infinite maximum becomes `Number.MAX_SAFE_INTEGER`. Only own keys count, so
 * `constructor` and friends are never opted in by accident.
 */
export function foldRetryZombieTypes(types: Readonly<Record<string, number>>): Map<string, number> {
  const maxima = new Map<string, number>();
  for (const [key, value] of Object.entries(types)) {
    if (typeof value !== 'number' || Number.isNaN(value)) continue;
    const max = Number.isFinite(value) ? value : value > 0 ? Number.MAX_SAFE_INTEGER : 0;
    const folded = key.toLowerCase();
    maxima.set(folded, Math.max(max, maxima.get(folded) ?? -Infinity));
  }
  return maxima;
}

/** Who asked to cancel a job, for error texts (`unknown` when nobody is recorded). */
export function requesterOf(requestedBy: string | null): string {
  return requestedBy ?? 'unknown';
}
