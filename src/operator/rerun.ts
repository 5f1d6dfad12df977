/**
 * Re-running a succeeded job from the archive: a copy of it (same type, queue, payload byte for
 * byte, tags and concurrency key) is enqueued under a new id, due now, created by the operator;
 * the archived job stays as it was. The copy is not checked against the type's schema again: it
 * is what already ran, and The Deck may serve types this process has no definition of.
 */
import type { Store } from '../storage/store.js';
import type { JobRegistry } from '../job/registry.js';
import type { ChokaQEvents } from '../runtime/events.js';
import { uuidv7 } from '../util/uuid.js';
import type { Auditor } from './audit.js';

/** What {@link JobsApi.rerun} enqueued. */
export interface RerunResult {
  /** The archived job that was copied. */
  from: string;
  /** The new job's id. */
  id: string;
}

/** The priority a copy gets when its type is not defined here (the engine's default). */
const DEFAULT_PRIORITY = 10;

/** What a re-run needs from the engine. */
export interface RerunDeps {
  store: Pick<Store, 'jobs' | 'operator'>;
  registry: JobRegistry;
  events: ChokaQEvents;
  auditor: Auditor;
}

/**
 * Enqueues a copy of archived job `id` for `actor`, audited as `rerun`. Resolves `null`, writing
 * nothing, when no succeeded job with this id is in the archive. The caller checks the inputs.
 */
export async function rerunArchived(
  deps: RerunDeps,
  id: string,
  who: { actor: string; reason: string | null },
): Promise<RerunResult | null> {
  const found = await deps.store.operator.getJob(id);
  if (found?.where !== 'archive') return null;
  const job = found.job;
  const definition = deps.registry.find(job.type);
  const newId = uuidv7();
  await deps.store.jobs.enqueue([
    {
      id: newId,
      queue: job.queue,
      type: job.type,
      payload: job.payload,
      priority: definition?.priority ?? DEFAULT_PRIORITY,
      delayMs: 0,
      idempotencyKey: null,
      tags: job.tags,
      createdBy: who.actor,
      concurrencyKey: job.concurrencyKey,
      // The archive keeps the key, not its limit: the type's limit when this process defines it.
      concurrencyLimit: job.concurrencyKey === null ? null : (definition?.concurrencyLimit ?? null),
    },
  ]);
  deps.events.emit('job:enqueued', { id: newId, type: job.type, queue: job.queue, created: true });
  const result = { from: id, id: newId };
  await deps.auditor.record({ ...who, action: 'rerun', target: { id }, outcome: result });
  return result;
}
