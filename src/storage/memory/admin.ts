/**
 * Operator edits for the memory provider: editing a pending job and upserting queue controls.
 *
 * @internal
 */
import type { QueueInfo } from '../model.js';
import { waitingStateOf } from './promote.js';
import { appendHistory } from '../history.js';
import type { PendingEdit } from '../operator-store.js';
import type { QueuePatch } from '../queue-store.js';
import type { Tables } from './tables.js';

/**
 * Edits a waiting (pending or scheduled) hot row in place, stamps `lastModifiedBy` and
 * `updatedAt`, gives it a new version and appends an `edit` action to its history. A new due
 * time decides the state: later → scheduled, now → pending. Returns `false`, changing nothing,
 * when the row is missing or not waiting.
 */
export function editPendingJob(tables: Tables, id: string, edit: PendingEdit, now: Date): boolean {
  const row = tables.hot.get(id);
  if (row === undefined || (row.state !== 'pending' && row.state !== 'scheduled')) return false;
  if (edit.payload !== undefined) row.payload = edit.payload;
  if (edit.tags !== undefined) row.tags = edit.tags;
  if (edit.priority !== undefined) row.priority = edit.priority;
  if (edit.delayMs !== undefined) {
    row.runAt = new Date(now.getTime() + edit.delayMs);
    row.state = waitingStateOf(edit.delayMs);
  }
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
  if (patch.keepSucceeded !== undefined) row.keepSucceeded = patch.keepSucceeded;
  row.updatedAt = new Date(now);
  return row;
}
