/**
 * Bulk actions and the audit trail of the memory provider, with the same rules as the SQL store
 * (`sql/bulk.ts`): a batch moves only jobs still at their snapshot's version and marks each item
 * once, all in one synchronous step. Retention purges the actions and the trail kept here.
 *
 * @internal Reach it through `memory().bulk`.
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
  BulkStore,
  NewAuditEntry,
} from '../bulk.js';
import { cancelJobs } from './cancel.js';
import { purgeDeadJobs, resurrectJobs } from './dlq.js';
import { resolveDependentsOf } from './workflows.js';
import { atomically, type MemoryState } from './state.js';

/** A stored bulk action with its snapshot and token hash. */
interface StoredBulk {
  action: BulkAction;
  tokenHash: string;
  /** Items by job id: status 0 waiting, 1 applied, 2 skipped. */
  items: Map<string, { version: number; status: 0 | 1 | 2; note: string | null }>;
}

/** Why an item whose job did not move was skipped (the SQL store's texts). */
const GONE_NOTE: Record<BulkBatch['kind'], string> = {
  resurrect: 'changed or left the DLQ since the preview',
  'edit-resurrect': 'changed or left the DLQ since the preview',
  purge: 'changed or left the DLQ since the preview',
  cancel: 'changed (edited, claimed, …) or no longer pending or running since the preview',
};

/** A detached copy of a bulk action. */
function copyAction(action: BulkAction): BulkAction {
  const date = (value: Date | null) => (value === null ? null : new Date(value));
  return {
    ...action,
    createdAt: new Date(action.createdAt),
    expiresAt: new Date(action.expiresAt),
    startedAt: date(action.startedAt),
    finishedAt: date(action.finishedAt),
    cancelRequestedAt: date(action.cancelRequestedAt),
  };
}

/**
 * The memory {@link BulkStore}: bulk actions and the audit trail, moving jobs of the store's
 * shared tables.
 */
export class MemoryBulk implements BulkStore {
  private readonly actions = new Map<string, StoredBulk>();
  /** The trail in the order it was recorded (what SQL's `seq` is), oldest first. */
  private audit: AuditEntry[] = [];

  /** @param state The store's tables, clock and wake-ups (for the queues of resurrected jobs). */
  constructor(private readonly state: MemoryState) {}

  /** {@inheritDoc BulkStore.createBulk} */
  createBulk(snapshot: BulkSnapshot): Promise<void> {
    return atomically(() => {
      const now = this.state.time();
      this.actions.set(snapshot.id, {
        tokenHash: snapshot.tokenHash,
        items: new Map(
          snapshot.items.map((item) => [
            item.jobId,
            { version: item.version, status: 0, note: null },
          ]),
        ),
        action: {
          id: snapshot.id,
          action: snapshot.action,
          target: structuredClone(snapshot.target),
          edit: snapshot.edit === undefined ? null : structuredClone(snapshot.edit),
          status: 'previewed',
          total: snapshot.items.length,
          done: 0,
          applied: 0,
          skipped: 0,
          actor: null,
          reason: null,
          error: null,
          createdAt: now,
          expiresAt: new Date(now.getTime() + snapshot.validForMs),
          startedAt: null,
          finishedAt: null,
          cancelRequestedAt: null,
          cancelRequestedBy: null,
        },
      });
    });
  }

  /** {@inheritDoc BulkStore.getBulk} */
  getBulk(id: string): Promise<BulkAction | null> {
    return atomically(() => {
      const stored = this.actions.get(id);
      return stored === undefined ? null : copyAction(stored.action);
    });
  }

  /** {@inheritDoc BulkStore.listBulk} */
  listBulk(limit: number): Promise<BulkAction[]> {
    return atomically(() =>
      [...this.actions.values()]
        .map((stored) => stored.action)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
        .slice(0, limit)
        .map(copyAction),
    );
  }

  /** {@inheritDoc BulkStore.startBulk} */
  startBulk(id: string, tokenHash: string, actor: string, reason: string): Promise<BulkStart> {
    return atomically(() => {
      const stored = this.actions.get(id);
      if (stored === undefined) return 'not-found';
      if (stored.tokenHash !== tokenHash) return 'token-mismatch';
      const { action } = stored;
      if (action.status === 'running') return 'running';
      if (action.status !== 'previewed') return 'not-previewed';
      const now = this.state.time();
      if (action.expiresAt.getTime() <= now.getTime()) return 'expired';
      action.status = 'running';
      action.actor = actor;
      action.reason = reason;
      action.startedAt = now;
      return 'started';
    });
  }

  /** {@inheritDoc BulkStore.nextBulkItems} */
  nextBulkItems(id: string, limit: number): Promise<{ action: BulkAction; items: BulkItem[] }> {
    return atomically(() => {
      const stored = this.actions.get(id);
      if (stored === undefined) throw new Error(`bulk action ${id} does not exist`);
      const items = [...stored.items]
        .filter(([, item]) => item.status === 0)
        .map(([jobId, item]) => ({ jobId, version: item.version }))
        .sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0))
        .slice(0, limit);
      return { action: copyAction(stored.action), items };
    });
  }

  /** {@inheritDoc BulkStore.applyBulkBatch} */
  applyBulkBatch(id: string, batch: BulkBatch): Promise<BulkBatchResult> {
    return atomically(() => {
      const stored = this.actions.get(id);
      if (stored === undefined) throw new Error(`bulk action ${id} does not exist`);
      const waiting = (jobId: string) => stored.items.get(jobId)?.status === 0;
      const items = batch.items.filter((item) => waiting(item.jobId));
      const moved = new Set(this.move(batch, items));
      const applied = items.filter((item) => moved.has(item.jobId)).map((item) => item.jobId);
      const skipped: BulkSkip[] = [
        ...batch.skips.filter((skip) => waiting(skip.jobId)),
        ...items
          .filter((item) => !moved.has(item.jobId))
          .map((item) => ({ jobId: item.jobId, note: GONE_NOTE[batch.kind] })),
      ];
      for (const jobId of applied) this.mark(stored, jobId, 1, null);
      for (const skip of skipped) this.mark(stored, skip.jobId, 2, skip.note);
      return { applied, skipped };
    });
  }

  private mark(stored: StoredBulk, jobId: string, status: 1 | 2, note: string | null): void {
    const item = stored.items.get(jobId);
    if (item === undefined || item.status !== 0) return;
    item.status = status;
    item.note = note;
    stored.action.done += 1;
    if (status === 1) stored.action.applied += 1;
    else stored.action.skipped += 1;
  }

  /** Moves the jobs of `items` as the batch's kind says; returns the ids moved. */
  private move(batch: BulkBatch, items: BulkBatch['items']): string[] {
    if (items.length === 0) return [];
    const now = this.state.time();
    if (batch.kind === 'cancel') {
      const result = cancelJobs(
        this.state.tables,
        items.map((item) => item.jobId),
        batch.actor,
        now,
        new Map(items.map((item) => [item.jobId, item.version])),
      );
      const { released } = resolveDependentsOf(this.state.tables, result.cancelled, now);
      this.state.wake.notify([...new Set(released.map((job) => job.queue))]);
      return [...result.cancelled, ...result.requested];
    }
    const targets = items.map((item) => ({
      id: item.jobId,
      version: item.version,
      ...(item.payload === undefined ? {} : { payload: item.payload }),
    }));
    if (batch.kind === 'purge') return purgeDeadJobs(this.state.tables, targets);
    const outcome = resurrectJobs(
      this.state.tables,
      targets,
      {
        actor: batch.actor,
        ...(batch.priority === undefined ? {} : { priority: batch.priority }),
        ...(batch.tags === undefined ? {} : { tags: batch.tags }),
      },
      now,
    );
    this.state.wake.notify(outcome.wokenQueues);
    return outcome.moved;
  }

  /** {@inheritDoc BulkStore.bulkSkips} */
  bulkSkips(id: string, limit: number): Promise<BulkSkip[]> {
    return atomically(() => {
      const stored = this.actions.get(id);
      if (stored === undefined) return [];
      return [...stored.items]
        .filter(([, item]) => item.status === 2)
        .map(([jobId, item]) => ({ jobId, note: item.note ?? '' }))
        .sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0))
        .slice(0, limit);
    });
  }

  /** {@inheritDoc BulkStore.finishBulk} */
  finishBulk(id: string, status: BulkEnd, error?: string): Promise<void> {
    return atomically(() => {
      const action = this.actions.get(id)?.action;
      if (action?.status !== 'running') return;
      action.status = status;
      action.error = error ?? null;
      action.finishedAt = this.state.time();
    });
  }

  /** {@inheritDoc BulkStore.requestBulkCancel} */
  requestBulkCancel(id: string, actor: string): Promise<BulkAction | null> {
    return atomically(() => {
      const action = this.actions.get(id)?.action;
      if (action === undefined) return null;
      if (action.status === 'previewed' || action.status === 'running') {
        action.cancelRequestedAt ??= this.state.time();
        action.cancelRequestedBy ??= actor;
        if (action.status === 'previewed') {
          action.status = 'cancelled';
          action.finishedAt = this.state.time();
        }
      }
      return copyAction(action);
    });
  }

  /** {@inheritDoc BulkStore.recordAction} */
  recordAction(entry: NewAuditEntry): Promise<AuditEntry> {
    return atomically(() => {
      const stored: AuditEntry = {
        ...entry,
        target: structuredClone(entry.target ?? null),
        outcome: structuredClone(entry.outcome ?? null),
        at: this.state.time(),
      };
      this.audit.push(stored);
      return { ...stored, target: structuredClone(stored.target) };
    });
  }

  /** {@inheritDoc BulkStore.listActions} */
  listActions(limit: number, beforeId?: string): Promise<AuditEntry[]> {
    return atomically(() => {
      // Before the entry with `beforeId`; an id no longer there is the end of the trail, as on SQL.
      const end =
        beforeId === undefined ? this.audit.length : this.audit.findIndex((e) => e.id === beforeId);
      return this.audit
        .slice(0, Math.max(0, end))
        .reverse()
        .slice(0, limit)
        .map((entry) => ({
          ...entry,
          at: new Date(entry.at),
          target: structuredClone(entry.target),
          outcome: structuredClone(entry.outcome),
        }));
    });
  }

  /** Audit entries recorded before `cutoff` (at most `limit`, oldest first) go; how many. */
  purgeAudit(cutoff: Date, limit: number): number {
    const expired = new Set(
      this.audit
        .filter((entry) => entry.at < cutoff)
        .sort((a, b) => a.at.getTime() - b.at.getTime())
        .slice(0, limit),
    );
    this.audit = this.audit.filter((entry) => !expired.has(entry));
    return expired.size;
  }

  /** Audit entries recorded before `cutoff`. */
  countAudit(cutoff: Date): number {
    return this.audit.filter((entry) => entry.at < cutoff).length;
  }

  /**
   * Bulk actions not running that finished (or expired) before `cutoff`: up to `limit` of their
   * items go first, then up to `limit` actions left without items, as on SQL; how many rows.
   */
  purgeActions(cutoff: Date, limit: number): number {
    const expired = [...this.actions.values()].filter((stored) => this.isExpired(stored, cutoff));
    let items = 0;
    for (const stored of expired) {
      for (const jobId of stored.items.keys()) {
        if (items >= limit) break;
        stored.items.delete(jobId);
        items += 1;
      }
    }
    let actions = 0;
    for (const stored of expired) {
      if (actions >= limit || stored.items.size > 0) continue;
      this.actions.delete(stored.action.id);
      actions += 1;
    }
    return items + actions;
  }

  /** Bulk actions that {@link MemoryBulk.purgeActions} would take. */
  countActions(cutoff: Date): number {
    return [...this.actions.values()].filter((stored) => this.isExpired(stored, cutoff)).length;
  }

  private isExpired(stored: StoredBulk, cutoff: Date): boolean {
    const { status, finishedAt, expiresAt } = stored.action;
    return status !== 'running' && (finishedAt ?? expiresAt) < cutoff;
  }
}
