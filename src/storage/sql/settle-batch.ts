/**
 * Groups settlements by kind into the parallel-array parameters of the `settle_*` statements.
 * Each kind then runs as one statement over its arrays.
 */
import { errorSignature } from '../../job/fingerprint.js';
import { FAILURE_REASON_CODE, HOT_STATE_CODE } from '../../job/state.js';
import type { Settlement } from '../job-store.js';

/** The settlements of one call, grouped by kind, with their parameters. */
export interface SettleGroups {
  archive: unknown[] | null;
  dead: unknown[] | null;
  retry: unknown[] | null;
  release: unknown[] | null;
}

type Of<K extends Settlement['kind']> = Extract<Settlement, { kind: K }>;

/**
 * Builds the statement parameters per kind. A lease id that appears more than once in one call
 * is sent once (its first occurrence); the later ones are reported as conflicts by the caller.
 */
export function groupSettlements(items: readonly Settlement[]): SettleGroups {
  const seen = new Set<string>();
  const archive: Of<'archive'>[] = [];
  const dead: Of<'dead'>[] = [];
  const retry: Of<'retry'>[] = [];
  const release: Of<'release'>[] = [];
  for (const item of items) {
    if (seen.has(item.lease.id)) continue;
    seen.add(item.lease.id);
    if (item.kind === 'archive') archive.push(item);
    else if (item.kind === 'dead') dead.push(item);
    else if (item.kind === 'retry') retry.push(item);
    else release.push(item);
  }
  const lease = (list: readonly Settlement[]): unknown[][] => [
    list.map((s) => s.lease.id),
    list.map((s) => s.lease.workerId),
    list.map((s) => s.lease.leaseToken),
  ];
  return {
    archive:
      archive.length === 0
        ? null
        : [
            ...lease(archive),
            archive.map((s) => s.durationMs),
            // Arrays whose every element is the default travel as NULL: most rounds have no note,
            // no result and keep every row, and 95 elements each cost both sides a parse.
            unlessAll(
              archive.map((s) => s.note ?? null),
              null,
            ),
            unlessAll(
              archive.map((s) => s.result ?? null),
              null,
            ),
            unlessAll(
              archive.map((s) => s.keep !== false),
              true,
            ),
          ],
    // In the parameter order of move_to_dlq.sql, lease-guarded.
    dead:
      dead.length === 0
        ? null
        : [
            dead.map((s) => s.lease.id),
            dead.map((s) => HOT_STATE_CODE[s.from ?? 'processing']),
            dead.map((s) => FAILURE_REASON_CODE[s.reason]),
            dead.map((s) => s.error),
            dead.map(() => null),
            dead.map((s) => s.lease.workerId),
            dead.map((s) => s.lease.leaseToken),
            ...signatureColumns(dead.map((s) => s.error)),
          ],
    retry:
      retry.length === 0
        ? null
        : [
            ...lease(retry),
            retry.map((s) => HOT_STATE_CODE[s.from]),
            retry.map((s) => Math.max(0, s.delayMs)),
            retry.map((s) => s.error),
            retry.map((s) => s.lost === true),
          ],
    release: release.length === 0 ? null : lease(release),
  };
}

/** `values`, or `null` when every one of them is `value` (the statement reads NULL as that). */
function unlessAll<T>(values: T[], value: T): T[] | null {
  return values.every((v) => v === value) ? null : values;
}

/**
 * The parameters of archive_evict.sql from an archive group's (`SettleGroups.archive`): ids,
 * worker ids, lease tokens and keep flags.
 */
export function evictParams(archive: readonly unknown[]): unknown[] {
  return [archive[0], archive[1], archive[2], archive[6]];
}

/**
 * The error-signature parameters of `move_to_dlq.sql` ($8–$11: fingerprint, class, message,
 * frame) for the error texts of the rows it moves, in the same order.
 */
export function signatureColumns(errors: readonly string[]): unknown[][] {
  const signatures = errors.map(errorSignature);
  return [
    signatures.map((s) => s.fingerprint),
    signatures.map((s) => s.errorClass),
    signatures.map((s) => s.message),
    signatures.map((s) => s.frame),
  ];
}

/**
 * Booleans in input order: `true` when the item's id was applied and it was the first occurrence
 * of that id in the call.
 */
export function settleOutcome(
  items: readonly Settlement[],
  applied: ReadonlySet<string>,
): boolean[] {
  const seen = new Set<string>();
  return items.map((item) => {
    if (seen.has(item.lease.id)) return false;
    seen.add(item.lease.id);
    return applied.has(item.lease.id);
  });
}
