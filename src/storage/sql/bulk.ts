/**
 * Bulk actions and the audit trail on a SQL store (see `storage/bulk.ts`). A batch runs in one
 * transaction: lock the items still waiting, move their jobs guarded by their versions, mark
 * the items and add to the action's counters, so a crash or a cancel between batches never
 * leaves a half-moved job.
 */
import type {
  AuditEntry,
  BulkAction,
  BulkBatch,
  BulkBatchResult,
  BulkEnd,
  BulkItem,
  BulkSkip,
  BulkSnapshot,
  BulkStart,
  BulkStatus,
  BulkKind,
  NewAuditEntry,
  BulkStore,
} from '../bulk.js';
import type { Executor } from './executor.js';
import { cancelIn } from './recovery.js';
import { TARGETED_LIMIT, resolveIn } from './workflows.js';
import { toDate, toDateOrNull, toNumber } from './rows.js';
import type { BoundQueries } from './schema.js';
import type { SqlContext } from './sql-context.js';
import * as run from './statements.js';
import type { AuditInsertRow, BulkGetRow } from './statements.js';

/** Maps a `bulk_actions` row. */
function bulkActionOf(row: BulkGetRow): BulkAction {
  return {
    id: row.id,
    action: row.action as BulkKind,
    target: jsonOf(row.target),
    edit: jsonOf(row.edit),
    status: row.status as BulkStatus,
    total: row.total,
    done: row.done,
    applied: row.applied,
    skipped: row.skipped,
    actor: row.actor,
    reason: row.reason,
    error: row.error,
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
    startedAt: toDateOrNull(row.started_at),
    finishedAt: toDateOrNull(row.finished_at),
    cancelRequestedAt: toDateOrNull(row.cancel_requested_at),
    cancelRequestedBy: row.cancel_requested_by,
  };
}

/** Maps an `operator_actions` row. */
function auditEntryOf(row: AuditInsertRow): AuditEntry {
  return {
    id: row.id,
    at: toDate(row.at),
    actor: row.actor,
    action: row.action,
    reason: row.reason,
    target: jsonOf(row.target),
    outcome: jsonOf(row.outcome),
  };
}

/** A jsonb column: drivers hand back parsed JSON, or text. */
function jsonOf(value: unknown): unknown {
  return typeof value === 'string' ? (JSON.parse(value) as unknown) : (value ?? null);
}

/** The bulk-action and audit verbs over one database ({@link BulkStore}). */
export class SqlBulk implements BulkStore {
  private readonly sql: BoundQueries;

  constructor(private readonly context: SqlContext) {
    this.sql = context.sql;
  }

  private db(): Promise<Executor> {
    return this.context.db();
  }

  async createBulk(snapshot: BulkSnapshot): Promise<void> {
    const db = await this.db();
    await run.bulkCreate(db, this.sql, {
      id: snapshot.id,
      action: snapshot.action,
      target: JSON.stringify(snapshot.target),
      edit:
        snapshot.edit === null || snapshot.edit === undefined
          ? null
          : JSON.stringify(snapshot.edit),
      tokenHash: snapshot.tokenHash,
      validForMs: snapshot.validForMs,
      jobIds: snapshot.items.map((item) => item.jobId),
      versions: snapshot.items.map((item) => item.version),
      now: this.context.now(),
    });
  }

  async getBulk(id: string): Promise<BulkAction | null> {
    const [row] = await run.bulkGet(await this.db(), this.sql, { id });
    return row === undefined ? null : bulkActionOf(row);
  }

  async listBulk(limit: number): Promise<BulkAction[]> {
    const rows = await run.bulkList(await this.db(), this.sql, { limit });
    return rows.map(bulkActionOf);
  }

  async startBulk(
    id: string,
    tokenHash: string,
    actor: string,
    reason: string,
  ): Promise<BulkStart> {
    const db = await this.db();
    const [row] = await run.bulkStart(db, this.sql, {
      id,
      tokenHash,
      actor,
      reason,
      now: this.context.now(),
    });
    if (row === undefined) return 'not-found';
    if (row.started) return 'started';
    if (row.token_hash !== tokenHash) return 'token-mismatch';
    if (row.status === 'running') return 'running';
    if (row.status !== 'previewed') return 'not-previewed';
    return 'expired';
  }

  async nextBulkItems(
    id: string,
    limit: number,
  ): Promise<{ action: BulkAction; items: BulkItem[] }> {
    const db = await this.db();
    const [row] = await run.bulkGet(db, this.sql, { id });
    if (row === undefined) throw new Error(`bulk action ${id} does not exist`);
    const items = await run.bulkNextItems(db, this.sql, { id, limit });
    return {
      action: bulkActionOf(row),
      items: items.map((item) => ({ jobId: item.job_id, version: toNumber(item.version) })),
    };
  }

  /** {@inheritDoc BulkStore.applyBulkBatch} Run again on a deadlock (see SqlContext.retryOnConflict). */
  async applyBulkBatch(id: string, batch: BulkBatch): Promise<BulkBatchResult> {
    const db = await this.db();
    const { result, released } = await this.context.retryOnConflict('bulk batch', () =>
      db.transaction(async (tx) => {
        const wanted = [...batch.items.map((i) => i.jobId), ...batch.skips.map((s) => s.jobId)];
        const locked = await run.bulkClaimItems(tx, this.sql, { id, jobIds: wanted });
        const waiting = new Set(locked.map((row) => row.job_id));
        const items = batch.items.filter((item) => waiting.has(item.jobId));
        const move = await this.move(tx, batch, items);
        const moved = new Set(move.ids);
        const applied = items.filter((item) => moved.has(item.jobId)).map((item) => item.jobId);
        const skipped: BulkSkip[] = [
          ...batch.skips.filter((skip) => waiting.has(skip.jobId)),
          ...items
            .filter((item) => !moved.has(item.jobId))
            .map((item) => ({ jobId: item.jobId, note: GONE_NOTE[batch.kind] })),
        ];
        await run.bulkMarkItems(tx, this.sql, {
          id,
          jobIds: [...applied, ...skipped.map((s) => s.jobId)],
          statuses: [...applied.map(() => 1), ...skipped.map(() => 2)],
          notes: [...applied.map(() => null), ...skipped.map((s) => s.note)],
        });
        return { result: { applied, skipped }, released: move.released };
      }, 'operator'),
    );
    // The jobs the batch released run at once, not at their workers' next poll.
    this.context.wakeHereFirst(released);
    return result;
  }

  /**
   * Moves the jobs of `items` as the batch's kind says; returns the ids moved, and the queues of
   * the jobs that waited for them and were released by the move.
   */
  private async move(
    tx: Executor,
    batch: BulkBatch,
    items: readonly (BulkItem & { payload?: string })[],
  ): Promise<{ ids: string[]; released: string[] }> {
    if (items.length === 0) return { ids: [], released: [] };
    const ids = items.map((item) => item.jobId);
    if (batch.kind === 'cancel') {
      const versions = new Map(items.map((item) => [item.jobId, item.version]));
      const now = this.context.now();
      const result = await cancelIn(tx, this.sql, now, ids, batch.actor, versions);
      // The jobs that waited for the cancelled ones are decided with them.
      const decided = await resolveIn(tx, this.sql, now, {
        jobs: null,
        dependenciesOf: result.cancelled,
        after: null,
        limit: TARGETED_LIMIT,
      });
      return {
        ids: [...result.cancelled, ...result.requested],
        released: decided.released.map((job) => job.queue),
      };
    }
    const versions = items.map((item) => item.version);
    if (batch.kind === 'purge') {
      const rows = await run.purgeDead(tx, this.sql, { ids, versions });
      return { ids: rows.map((row) => row.id), released: [] };
    }
    const rows = await run.resurrect(tx, this.sql, {
      ids,
      actor: batch.actor,
      payloads: items.map((item) => item.payload ?? null),
      replaceTags: batch.tags !== undefined,
      tags: batch.tags ?? null,
      priority: batch.priority ?? 10,
      versions,
      now: this.context.now(),
    });
    return { ids: rows.map((row) => row.id), released: [] };
  }

  async bulkSkips(id: string, limit: number): Promise<BulkSkip[]> {
    const rows = await run.bulkSkips(await this.db(), this.sql, { id, limit });
    return rows.map((row) => ({ jobId: row.job_id, note: row.note ?? '' }));
  }

  async finishBulk(id: string, status: BulkEnd, error?: string): Promise<void> {
    await run.bulkFinish(await this.db(), this.sql, {
      id,
      status,
      error: error ?? null,
      now: this.context.now(),
    });
  }

  async requestBulkCancel(id: string, actor: string): Promise<BulkAction | null> {
    const [row] = await run.bulkCancel(await this.db(), this.sql, {
      id,
      actor,
      now: this.context.now(),
    });
    return row === undefined ? null : bulkActionOf(row);
  }

  async recordAction(entry: NewAuditEntry): Promise<AuditEntry> {
    const [row] = await run.auditInsert(await this.db(), this.sql, {
      id: entry.id,
      actor: entry.actor,
      action: entry.action,
      reason: entry.reason,
      target: JSON.stringify(entry.target ?? null),
      outcome: JSON.stringify(entry.outcome ?? null),
      now: this.context.now(),
    });
    if (row === undefined) throw new Error('audit insert returned no row');
    return auditEntryOf(row);
  }

  async listActions(limit: number, beforeId?: string): Promise<AuditEntry[]> {
    const rows = await run.auditList(await this.db(), this.sql, {
      limit,
      beforeId: beforeId ?? null,
    });
    return rows.map(auditEntryOf);
  }
}

/** Why an item whose job did not move was skipped. */
const GONE_NOTE: Record<BulkKind, string> = {
  resurrect: 'changed or left the DLQ since the preview',
  'edit-resurrect': 'changed or left the DLQ since the preview',
  purge: 'changed or left the DLQ since the preview',
  cancel: 'changed (edited, claimed, …) or no longer pending or running since the preview',
};
