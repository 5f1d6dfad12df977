/**
 * The memory provider's `batches` table (docs/workflows.md, "Batches"): each batch's counters and
 * callbacks, which job belongs to which batch, and which job is whose callback. The rules of
 * fragments/batch_counted.sql in one place: `count` applies a member's move and says which
 * callbacks it makes due; `Tables.countBatch` moves their jobs.
 *
 * @internal
 */
import type { BatchCallbackKind, BatchInfo } from '../batch-store.js';
import { BATCH_CALLBACK_KINDS } from '../batch-store.js';

/** A member's change of its batch's counters: +1 out of the hot table, −1 back into it. */
export interface BatchChange {
  succeeded: number;
  died: number;
  cancelled: number;
}

/** One stored batch. */
interface BatchRow {
  id: string;
  total: number;
  succeeded: number;
  died: number;
  cancelled: number;
  createdAt: Date;
  callbacks: Map<BatchCallbackKind, { jobId: string; firedAt: Date | null }>;
  /** Members whose row is still somewhere (hot, archive or DLQ). */
  remaining: number;
}

/** Every batch of one memory store. */
export class BatchTable {
  private readonly rows = new Map<string, BatchRow>();
  /** A member's id → its batch's id, while the member's row is somewhere. */
  private readonly memberOf = new Map<string, string>();
  /** A callback job's id → its batch and kind. */
  private readonly callbackOf = new Map<string, { batchId: string; kind: BatchCallbackKind }>();

  /** Whether batch `id` is stored. */
  has(id: string): boolean {
    return this.rows.has(id);
  }

  /** Stores a new batch of `members` (ids) with `callbacks` (job ids by kind). */
  insert(
    id: string,
    members: readonly string[],
    callbacks: Partial<Record<BatchCallbackKind, string>>,
    now: Date,
  ): void {
    const row: BatchRow = {
      id,
      total: members.length,
      succeeded: 0,
      died: 0,
      cancelled: 0,
      createdAt: new Date(now),
      callbacks: new Map(),
      remaining: members.length,
    };
    for (const kind of BATCH_CALLBACK_KINDS) {
      const jobId = callbacks[kind];
      if (jobId === undefined) continue;
      row.callbacks.set(kind, { jobId, firedAt: null });
      this.callbackOf.set(jobId, { batchId: id, kind });
    }
    this.rows.set(id, row);
    for (const member of members) this.memberOf.set(member, id);
  }

  /**
   * Applies the move of job `jobId` (when it is a member) to its batch's counters; returns the ids
   * of the callback jobs the new counts make due (each once: a callback fires the first time).
   */
  count(jobId: string, change: BatchChange, now: Date): string[] {
    const batchId = this.memberOf.get(jobId);
    const row = batchId === undefined ? undefined : this.rows.get(batchId);
    if (row === undefined) return [];
    row.succeeded += change.succeeded;
    row.died += change.died;
    row.cancelled += change.cancelled;
    const due: Record<BatchCallbackKind, boolean> = {
      success: row.succeeded >= row.total,
      complete: row.succeeded + row.died + row.cancelled >= row.total,
      death: change.died > 0,
    };
    const fired: string[] = [];
    for (const [kind, callback] of row.callbacks) {
      if (callback.firedAt !== null || !due[kind]) continue;
      callback.firedAt = new Date(now);
      fired.push(callback.jobId);
    }
    return fired;
  }

  /** Job `jobId`'s row left the store for good: its batch counts one remaining member fewer. */
  forget(jobId: string): void {
    const batchId = this.memberOf.get(jobId);
    if (batchId === undefined) return;
    this.memberOf.delete(jobId);
    const row = this.rows.get(batchId);
    if (row !== undefined) row.remaining -= 1;
  }

  /** The batch `id`. */
  get(id: string): BatchInfo | null {
    const row = this.rows.get(id);
    return row === undefined ? null : infoOf(row);
  }

  /** The batch job `jobId` is a member or a callback of, with its role. */
  ofJob(jobId: string): { batch: BatchInfo; role: 'member' | BatchCallbackKind } | null {
    const member = this.memberOf.get(jobId);
    const callback = this.callbackOf.get(jobId);
    const row = this.rows.get(member ?? callback?.batchId ?? '');
    if (row === undefined) return null;
    return {
      batch: infoOf(row),
      role: member !== undefined ? 'member' : (callback?.kind ?? 'member'),
    };
  }

  /**
   * Up to `limit` batches that are done: every member finished and none remains, and no fired
   * callback's job `isHot` says is still hot (awaiting ones never fire). Their ids, in id order,
   * and their callbacks' job ids.
   */
  done(limit: number, isHot: (jobId: string) => boolean): { id: string; callbacks: string[] }[] {
    const found: { id: string; callbacks: string[] }[] = [];
    for (const row of [...this.rows.values()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      if (found.length >= limit) break;
      const finished = row.succeeded + row.died + row.cancelled >= row.total;
      if (!finished || row.remaining > 0) continue;
      const callbacks = [...row.callbacks.values()];
      if (callbacks.some((c) => c.firedAt !== null && isHot(c.jobId))) continue;
      found.push({ id: row.id, callbacks: callbacks.map((c) => c.jobId) });
    }
    return found;
  }

  /** Deletes batch `id` and its callbacks' entries. */
  delete(id: string): void {
    const row = this.rows.get(id);
    if (row === undefined) return;
    for (const callback of row.callbacks.values()) this.callbackOf.delete(callback.jobId);
    this.rows.delete(id);
  }
}

/** A stored batch as the store hands it out. */
function infoOf(row: BatchRow): BatchInfo {
  return {
    id: row.id,
    total: row.total,
    succeeded: row.succeeded,
    died: row.died,
    cancelled: row.cancelled,
    pending: Math.max(0, row.total - row.succeeded - row.died - row.cancelled),
    createdAt: new Date(row.createdAt),
    callbacks: BATCH_CALLBACK_KINDS.flatMap((kind) => {
      const callback = row.callbacks.get(kind);
      return callback === undefined
        ? []
        : [
            {
              kind,
              jobId: callback.jobId,
              firedAt: callback.firedAt === null ? null : new Date(callback.firedAt),
            },
          ];
    }),
  };
}
