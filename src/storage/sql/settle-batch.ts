/**
 * Groups settlements by kind into the parameters of the `settle_*` statements and
 * `move_to_dlq`. Each kind then runs as one statement over its parallel arrays.
 */
import { errorSignature } from '../../job/fingerprint.js';
import { FAILURE_REASON_CODE, HOT_STATE_CODE } from '../../job/state.js';
import type { Settlement } from '../job-store.js';
import type {
  ArchiveEvictParams,
  MoveToDlqParams,
  SettleArchiveParams,
  SettleReleaseParams,
  SettleRetryParams,
} from './statements.js';

/** The settlements of one call, grouped by kind, with their parameters. */
export interface SettleGroups {
  archive: SettleArchiveParams | null;
  dead: MoveToDlqParams | null;
  retry: SettleRetryParams | null;
  release: SettleReleaseParams | null;
  /** The archived jobs whose runs used durable steps (see `Settlement`'s `steps`). */
  stepIds: string[];
}

type Of<K extends Settlement['kind']> = Extract<Settlement, { kind: K }>;

/**
 * Builds the statement parameters per kind. A lease id that appears more than once in one call
 * is sent once (its first occurrence); the later ones are reported as conflicts by the caller.
 * Nearly every round is archives only: they are read in one loop, the other kinds only when some
 * item has them.
 */
export function groupSettlements(items: readonly Settlement[], now: Date | null): SettleGroups {
  const seen = new Set<string>();
  const archive: Of<'archive'>[] = [];
  let others: Settlement[] | null = null;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Settlement;
    if (seen.has(item.lease.id)) continue;
    seen.add(item.lease.id);
    if (item.kind === 'archive') archive.push(item);
    else (others ??= []).push(item);
  }
  return {
    ...(others === null ? NO_OTHERS : otherGroups(others, now)),
    ...archiveGroup(archive, now),
  };
}

const NO_OTHERS = { dead: null, retry: null, release: null } as const;

/** The archive group's parameters, and the ids of its runs that used durable steps. */
function archiveGroup(
  list: readonly Of<'archive'>[],
  now: Date | null,
): Pick<SettleGroups, 'archive' | 'stepIds'> {
  const stepIds: string[] = [];
  if (list.length === 0) return { archive: null, stepIds };
  const ids: string[] = [];
  const workerIds: string[] = [];
  const leaseTokens: string[] = [];
  const durationsMs: number[] = [];
  // Columns whose every element is the default travel as NULL: most rounds have no note, no
  // result and keep every row, and a few hundred elements each cost both sides a parse.
  let notes = false;
  let results = false;
  let dropped = false;
  for (let i = 0; i < list.length; i++) {
    const s = list[i] as Of<'archive'>;
    ids.push(s.lease.id);
    workerIds.push(s.lease.workerId);
    leaseTokens.push(s.lease.leaseToken);
    durationsMs.push(s.durationMs);
    if (s.note !== undefined) notes = true;
    if (s.result !== undefined) results = true;
    if (s.keep === false) dropped = true;
    if (s.steps === true) stepIds.push(s.lease.id);
  }
  return {
    archive: {
      ids,
      workerIds,
      leaseTokens,
      durationsMs,
      notes: notes ? list.map((s) => s.note ?? null) : null,
      results: results ? list.map((s) => s.result ?? null) : null,
      keep: dropped ? list.map((s) => s.keep !== false) : null,
      now,
    },
    stepIds,
  };
}

/** The dead, retry and release groups' parameters. */
function otherGroups(
  items: readonly Settlement[],
  now: Date | null,
): Pick<SettleGroups, 'dead' | 'retry' | 'release'> {
  const dead: Of<'dead'>[] = [];
  const retry: Of<'retry'>[] = [];
  const release: Of<'release'>[] = [];
  for (const item of items) {
    if (item.kind === 'dead') dead.push(item);
    else if (item.kind === 'retry') retry.push(item);
    else if (item.kind === 'release') release.push(item);
  }
  return {
    // Lease-guarded: a row moves only while it still holds the settling run's lease.
    dead:
      dead.length === 0
        ? null
        : {
            ids: dead.map((s) => s.lease.id),
            fromStatuses: dead.map((s) => HOT_STATE_CODE[s.from ?? 'processing']),
            reasons: dead.map((s) => FAILURE_REASON_CODE[s.reason]),
            errors: dead.map((s) => s.error),
            actors: dead.map(() => null),
            workerIds: dead.map((s) => s.lease.workerId),
            leaseTokens: dead.map((s) => s.lease.leaseToken),
            ...signatureColumns(dead.map((s) => s.error)),
            now,
          },
    retry:
      retry.length === 0
        ? null
        : {
            ...leases(retry, now),
            fromStatuses: retry.map((s) => HOT_STATE_CODE[s.from]),
            delaysMs: retry.map((s) => Math.max(0, s.delayMs)),
            errors: retry.map((s) => s.error),
            lost: retry.map((s) => s.lost === true),
          },
    release: release.length === 0 ? null : leases(release, now),
  };
}

/** The lease columns ($1–$3) every settle statement starts with, and the time it reads. */
function leases(list: readonly Settlement[], now: Date | null): SettleReleaseParams {
  return {
    ids: list.map((s) => s.lease.id),
    workerIds: list.map((s) => s.lease.workerId),
    leaseTokens: list.map((s) => s.lease.leaseToken),
    now,
  };
}

/**
 * The archive group's jobs not in `moved`, as parameters of their own statement; `null` when it
 * moved them all. The plain archive (settle_archive_plain.sql) leaves batch members for
 * settle_archive.sql, which counts them in their batches.
 */
export function archiveLeftovers(
  archive: SettleArchiveParams,
  moved: ReadonlySet<string>,
): SettleArchiveParams | null {
  // Every round comes here: a plain loop, no array per job.
  const left: number[] = [];
  for (let i = 0; i < archive.ids.length; i++)
    if (!moved.has(archive.ids[i] as string)) left.push(i);
  if (left.length === 0) return null;
  const pick = <T>(values: readonly T[]): T[] => left.map((i) => values[i] as T);
  return {
    ids: pick(archive.ids),
    workerIds: pick(archive.workerIds),
    leaseTokens: pick(archive.leaseTokens),
    durationsMs: pick(archive.durationsMs),
    notes: archive.notes === null ? null : pick(archive.notes),
    results: archive.results === null ? null : pick(archive.results),
    keep: archive.keep === null ? null : pick(archive.keep),
    now: archive.now,
  };
}

/** The parameters of archive_evict.sql from an archive group's (`SettleGroups.archive`). */
export function evictParams(archive: SettleArchiveParams): ArchiveEvictParams {
  return {
    ids: archive.ids,
    workerIds: archive.workerIds,
    leaseTokens: archive.leaseTokens,
    keep: archive.keep,
  };
}

/**
 * The error-signature parameters of `move_to_dlq.sql` (fingerprint, class, message, frame) for
 * the error texts of the rows it moves, in the same order.
 */
export function signatureColumns(
  errors: readonly string[],
): Pick<MoveToDlqParams, 'fingerprints' | 'errorClasses' | 'messages' | 'frames'> {
  const signatures = errors.map(errorSignature);
  return {
    fingerprints: signatures.map((s) => s.fingerprint),
    errorClasses: signatures.map((s) => s.errorClass),
    messages: signatures.map((s) => s.message),
    frames: signatures.map((s) => s.frame),
  };
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
