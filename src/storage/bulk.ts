/**
 * The storage half of bulk actions and the operator audit trail: the shapes a store keeps and
 * returns. A bulk action is previewed (its jobs and their versions snapshotted), started with
 * its confirmation token, then applied batch by batch, each batch one atomic write.
 */

/** What a bulk action does to each of its jobs. */
export type BulkKind = 'resurrect' | 'edit-resurrect' | 'purge' | 'cancel';

/** Where a bulk action is in its life. */
export type BulkStatus = 'previewed' | 'running' | 'succeeded' | 'cancelled' | 'failed';

/** A bulk action as stored: what it targets, who ran it and why, and how far it got. */
export interface BulkAction {
  id: string;
  action: BulkKind;
  /** What was previewed: `{ ids }`, `{ query }` or `{ errorGroup }`, as given. */
  target: unknown;
  /** For `edit-resurrect`: `{ patch?, priority?, tags? }`; `null` otherwise. */
  edit: unknown;
  status: BulkStatus;
  /** Jobs the preview selected. */
  total: number;
  /** Jobs handled so far: applied + skipped. */
  done: number;
  applied: number;
  /** Jobs that changed or left between preview and their batch, or failed their schema. */
  skipped: number;
  actor: string | null;
  reason: string | null;
  /** Why the run failed (status `failed`). */
  error: string | null;
  createdAt: Date;
  /** A preview not started by then can no longer be confirmed. */
  expiresAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  cancelRequestedAt: Date | null;
  cancelRequestedBy: string | null;
}

/** One job of a bulk action's snapshot. */
export interface BulkItem {
  jobId: string;
  /**
   * The job's version when previewed, in microseconds since the epoch: for a DLQ job its last
   * in-place edit, else its failure; for a hot job its last claim, edit or resurrect, else its
   * creation.
   */
  version: number;
}

/** A new bulk action's snapshot, written by {@link BulkStore.createBulk}. */
export interface BulkSnapshot {
  id: string;
  action: BulkKind;
  target: unknown;
  edit: unknown;
  tokenHash: string;
  /** How long the preview stays valid, from now (store clock). */
  validForMs: number;
  items: readonly BulkItem[];
}

/** A job of a bulk action's snapshot that was skipped, and why. */
export interface BulkSkip {
  jobId: string;
  note: string;
}

/** One batch of a bulk action, applied atomically by {@link BulkStore.applyBulkBatch}. */
export interface BulkBatch {
  kind: BulkKind;
  actor: string;
  /** Jobs to apply, each guarded by its version. `payload` (edit-resurrect): the new payload. */
  items: readonly (BulkItem & { payload?: string })[];
  /** Jobs the caller decided to skip (a patched payload failed its schema, …). */
  skips: readonly BulkSkip[];
  /** Resurrect: the priority of the resurrected jobs. Default: `10`. */
  priority?: number;
  /** Resurrect: new tags (`null` clears them); absent keeps each job's. */
  tags?: string | null;
}

/** What {@link BulkStore.startBulk} found. */
export type BulkStart =
  'started' | 'running' | 'not-found' | 'token-mismatch' | 'expired' | 'not-previewed';

/** How a running bulk action ends. */
export type BulkEnd = 'succeeded' | 'cancelled' | 'failed';

/** What a batch did. */
export interface BulkBatchResult {
  /** Ids applied. */
  applied: string[];
  /** Ids skipped, the caller's and the ones that changed or left, with why. */
  skipped: BulkSkip[];
}

/** One entry of the operator audit trail. */
export interface AuditEntry {
  id: string;
  at: Date;
  actor: string;
  /** `resurrect`, `purge`, `cancel`, `edit`, `dlq-edit`, `queue-update`, `bulk-start`, … */
  action: string;
  reason: string | null;
  /** What it applied to: ids, a filter, an error group, a queue. */
  target: unknown;
  /** What it did: counts, ids moved, the queue's new controls. */
  outcome: unknown;
}

/** An audit entry to record; the store stamps `at`. */
export type NewAuditEntry = Omit<AuditEntry, 'at'>;

/** The bulk-action and audit verbs of a store. */
export interface BulkStore {
  /** Writes a previewed bulk action and its snapshot atomically. */
  createBulk(snapshot: BulkSnapshot): Promise<void>;
  /** A bulk action, or `null`. */
  getBulk(id: string): Promise<BulkAction | null>;
  /** Bulk actions, newest first. */
  listBulk(limit: number): Promise<BulkAction[]>;
  /**
   * Starts a previewed action whose token hash matches and whose preview has not expired
   * (store clock): status running, actor and reason stamped. An action already running with the
   * same token hash reads as `running` (so a retried call is safe).
   */
  startBulk(id: string, tokenHash: string, actor: string, reason: string): Promise<BulkStart>;
  /** The action and up to `limit` of its waiting items, in job id order. */
  nextBulkItems(id: string, limit: number): Promise<{ action: BulkAction; items: BulkItem[] }>;
  /**
   * Applies one batch in one transaction: moves every item whose job is still where the action
   * expects it with the same version, marks the items applied or skipped and adds to the
   * action's counters. Items not waiting any more (a batch applied twice) are left alone.
   */
  applyBulkBatch(id: string, batch: BulkBatch): Promise<BulkBatchResult>;
  /** The skipped items of an action with why, in job id order, at most `limit`. */
  bulkSkips(id: string, limit: number): Promise<BulkSkip[]>;
  /** Ends a running action (`succeeded`, `cancelled` or `failed` with `error`). */
  finishBulk(id: string, status: BulkEnd, error?: string): Promise<void>;
  /**
   * Asks a running or previewed action to stop: a previewed one is cancelled at once, a running
   * one stops before its next batch. Returns the action, or `null` when unknown.
   */
  requestBulkCancel(id: string, actor: string): Promise<BulkAction | null>;
  /** Appends to the audit trail. */
  recordAction(entry: NewAuditEntry): Promise<AuditEntry>;
  /**
   * Audit entries, newest first in the order the store recorded them (never by a process's
   * clock), at most `limit`; with `beforeId`, those recorded before that entry (none when it is
   * gone).
   */
  listActions(limit: number, beforeId?: string): Promise<AuditEntry[]>;
}
