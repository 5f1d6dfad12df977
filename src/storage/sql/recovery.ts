/**
 * Recovery and cancellation over SQL: the rescue pass and `cancel`, and the DLQ move both share.
 * Each runs inside one transaction the store opens (and re-runs on a deadlock).
 */
import { FAILURE_REASON_CODE, HOT_STATE_CODE } from '../../job/state.js';
import {
  foldRetryZombieTypes,
  requesterOf,
  RESCUE_LIMIT,
  ZOMBIE_DEAD_ERROR,
  ZOMBIE_RETRY_ERROR,
} from '../rescue-rules.js';
import type { CancelResult } from '../model.js';
import type { RescueOptions, RescueResult, RescuedJob } from '../job-store.js';
import type { Executor } from './executor.js';
import { toNumber } from './rows.js';
import { signatureColumns } from './settle-batch.js';
import * as run from './statements.js';
import type { MoveToDlqRow } from './statements.js';
import type { BoundQueries } from './schema.js';

/** One row for `move_to_dlq.sql`. */
export interface DlqMove {
  id: string;
  fromStatus: number;
  reason: number;
  error: string;
  /** Recorded as `last_modified_by`; `null` keeps the row's. */
  actor: string | null;
}

/**
 * One rescue pass in transaction `tx` (see `JobStore.rescue`), after `pg_try_advisory_xact_lock` on
 * `schema`: (a) stale fetched rows → pending; (b) zombies → DLQ `Cancelled` (cancel requested),
 * pending with the run refunded (opted-in type) or DLQ `Zombie`; (c) pending or fetched rows with
 * a cancel request → DLQ `Cancelled`; (d) expired idempotency claims deleted. Rows are picked
 * `FOR UPDATE SKIP LOCKED`, so a worker settling a row at the same moment keeps it, and each row
 * moves once. `now` is the time the pass reads (`null`: the database's).
 */
export async function rescueIn(
  tx: Executor,
  sql: BoundQueries,
  now: Date | null,
  schema: string,
  options: RescueOptions,
): Promise<RescueResult> {
  const limit = Math.max(0, Math.floor(options.limit ?? RESCUE_LIMIT));
  const maxima = foldRetryZombieTypes(options.retryZombieTypes);
  const result: RescueResult = {
    skipped: false,
    released: 0,
    dead: [],
    retried: [],
    cancelled: [],
    idempotencyClaimsPurged: 0,
  };
  const [lock] = await run.rescueLock(tx, sql, { schema });
  if (lock?.locked !== true) return { ...result, skipped: true };

  const released = await run.rescueReleaseFetched(tx, sql, {
    timeoutMs: Math.max(0, options.fetchedTimeoutMs),
    limit,
    now,
  });
  result.released = released.length;

  const zombies = await run.rescuePickZombies(tx, sql, {
    timeoutMs: Math.max(0, options.processingTimeoutMs),
    limit,
    retryTypes: [...maxima.keys()],
    maxLost: [...maxima.values()],
    now,
  });
  const again = zombies.filter((z) => z.action === 'retry').map((z) => z.id);
  if (again.length > 0) {
    const rows = await run.rescueRequeueZombies(tx, sql, {
      ids: again,
      error: ZOMBIE_RETRY_ERROR,
      now,
    });
    result.retried = rows.map(rescuedJobOf);
  }
  const buried = await moveToDlq(
    tx,
    sql,
    now,
    zombies
      .filter((z) => z.action !== 'retry')
      .map((z) => ({
        id: z.id,
        fromStatus: HOT_STATE_CODE.processing,
        ...(z.action === 'cancel'
          ? {
              reason: FAILURE_REASON_CODE.Cancelled,
              error: `Cancelled by ${requesterOf(z.cancel_requested_by)}: the run was lost`,
            }
          : { reason: FAILURE_REASON_CODE.Zombie, error: ZOMBIE_DEAD_ERROR }),
        actor: null,
      })),
  );
  for (const zombie of zombies) {
    const moved = buried.get(zombie.id);
    if (moved === undefined) continue;
    if (zombie.action === 'cancel') result.cancelled.push(moved);
    else result.dead.push(moved);
  }

  const orphans = await run.rescuePickCancelled(tx, sql, { limit });
  const cancelled = await moveToDlq(
    tx,
    sql,
    now,
    orphans.map((row) => ({
      id: row.id,
      fromStatus: row.status,
      reason: FAILURE_REASON_CODE.Cancelled,
      error: `Cancelled by ${requesterOf(row.cancel_requested_by)}`,
      actor: null,
    })),
  );
  for (const row of orphans) {
    const moved = cancelled.get(row.id);
    if (moved !== undefined) result.cancelled.push(moved);
  }

  const [purged] = await run.idempotencyPurge(tx, sql, { now });
  result.idempotencyClaimsPurged = toNumber(purged?.deleted);
  return result;
}

/**
 * Cancels `ids` in transaction `tx` (see `JobStore.cancel`): the hot rows among them are locked
 * (`FOR UPDATE`, id order), pending and fetched ones move to the DLQ, processing ones get a
 * cancel request unless they have one. Both lists follow the order of `ids`, each id once.
 * With `versions` (a bulk action's snapshot), a row whose version differs is left alone.
 */
export async function cancelIn(
  tx: Executor,
  sql: BoundQueries,
  now: Date | null,
  ids: readonly string[],
  actor: string,
  versions?: ReadonlyMap<string, number>,
): Promise<CancelResult> {
  const rows = await run.cancelLock(tx, sql, { ids });
  const idle: DlqMove[] = [];
  const running = new Set<string>();
  for (const row of rows) {
    const expected = versions?.get(row.id);
    if (expected !== undefined && toNumber(row.version_us) !== expected) continue;
    const status = row.status;
    if (status === HOT_STATE_CODE.processing) {
      running.add(row.id);
    } else {
      idle.push({
        id: row.id,
        fromStatus: status,
        reason: FAILURE_REASON_CODE.Cancelled,
        error: `Cancelled by ${actor}`,
        actor,
      });
    }
  }
  const moved = await moveToDlq(tx, sql, now, idle);
  if (running.size > 0) await run.cancelRequest(tx, sql, { ids: [...running], actor, now });
  return {
    cancelled: ids.filter((id) => moved.has(id)),
    requested: ids.filter((id) => running.has(id)),
  };
}

/**
 * Moves hot rows this transaction has locked to the DLQ (`move_to_dlq.sql`: failed counter and
 * failure bucket per queue and reason). Returns the moved jobs by id.
 */
export async function moveToDlq(
  tx: Executor,
  sql: BoundQueries,
  now: Date | null,
  moves: readonly DlqMove[],
): Promise<Map<string, RescuedJob>> {
  if (moves.length === 0) return new Map();
  const rows = await run.moveToDlq(tx, sql, {
    ids: moves.map((m) => m.id),
    fromStatuses: moves.map((m) => m.fromStatus),
    reasons: moves.map((m) => m.reason),
    errors: moves.map((m) => m.error),
    actors: moves.map((m) => m.actor),
    // No lease guard: the caller locked and checked these rows.
    workerIds: moves.map(() => null),
    leaseTokens: moves.map(() => null),
    ...signatureColumns(moves.map((m) => m.error)),
    now,
  });
  return new Map(rows.map((row) => [row.id, rescuedJobOf(row)]));
}

/** A moved row as a rescue reports it. */
function rescuedJobOf(row: MoveToDlqRow): RescuedJob {
  return { id: row.id, queue: row.queue, type: row.type };
}
