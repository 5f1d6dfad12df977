/**
 * Operator edits for the memory provider: editing a pending job and upserting queue controls.
 *
 * @internal
 */
import type { QueueInfo } from '../model.js';
import { appendHistory } from '../history.js';
import type { PendingEdit, QueuePatch } from '../store.js';
import type { Tables } from './tables.js';

/**
 * Edits a pending hot row in place, stamps `lastModifiedBy` and `updatedAt`, gives it a new
 * version and appends an `edit` action to its history. Returns `false`,
 * changing nothing, when the row is missing or not pending.
 */
export function editPendingJob(tables: Tables, id: string, edit: PendingEdit, now: Date): boolean {
  const row = tables.hot.get(id);
  if (row === undefined || row.state !== 'pending') return false;
  if (edit.payload !== undefined) row.payload = edit.payload;
  if (edit.tags !== undefined) row.tags = edit.tags;
  if (edit.priority !== undefined) row.priority = edit.priority;
  if (edit.delayMs !== undefined) row.runAt = new Date(now.getTime() + edit.delayMs);
  row.lastModifiedBy = edit.actor;
  row.history = appendHistory(row.history, {
    kind: 'action',
    action: 'edit',
    actor: edit.actor,
    at: new Date(now),
  });
  row.updatedAt = new Date(now);
  tables.changedHot(row);
  return true;
}

/** Upserts a queue row: creates it with defaults if missing, applies `patch`, stamps `updatedAt`. */
export function upsertQueue(tables: Tables, name: string, patch: QueuePatch, now: Date): QueueInfo {
  const row = tables.ensureQueue(name, now);
  if (patch.paused !== undefined) row.paused = patch.paused;
  if (patch.active !== undefined) row.active = patch.active;
  if (patch.maxWorkers !== undefined) row.maxWorkers = patch.maxWorkers;
  if (patch.zombieTimeoutSeconds !== undefined) {
    row.zombieTimeoutSeconds = patch.zombieTimeoutSeconds;
  }
  row.updatedAt = new Date(now);
  return row;
}
