/**
 * The durable half of a bulk action: a job of ChokaQ's own (`chokaq.bulk.v1` on the
 * `chokaq.operator` queue) that applies a started action batch by batch. Each batch is one atomic
 * store write, so the action can stop between any two batches — on request, on shutdown, or by
 * a crash — without a half-moved job; a re-run (a retry, or the zombie rescue after a crash)
 * continues with the items still waiting.
 */
import type { Store } from '../storage/store.js';
import { ChokaQError } from '../errors.js';
import type { JobContext } from '../job/context.js';
import { defineJob, type JobDefinition } from '../job/define-job.js';
import { serializePayload } from '../job/envelope.js';
import type { JobRegistry } from '../job/registry.js';
import type { BulkAction, BulkBatch, BulkEnd, BulkItem, BulkSkip } from '../storage/bulk.js';
import { mergePatch } from '../util/merge-patch.js';
import type { Auditor } from './audit.js';
import type { CheckedEdit } from './bulk-input.js';
import { checkOperatorPayload } from './payload-check.js';

/** The queue bulk-action jobs run on; every worker serves it besides its own queues. */
export const OPERATOR_QUEUE = 'chokaq.operator';

/** The prefix of ChokaQ's own queues, which operators cannot pause or deactivate. */
export const INTERNAL_QUEUE_PREFIX = 'chokaq.';

/** The job type of bulk-action runs. */
export const BULK_JOB_TYPE = 'chokaq.bulk.v1';

/** Jobs per batch: one atomic write each; the action can stop between two batches. */
export const BULK_BATCH_SIZE = 500;

/** The payload of a bulk-action job. */
export interface BulkJobPayload {
  actionId: string;
}

/** What the runner needs from the engine. */
export interface BulkRunnerOptions {
  store: Pick<Store, 'bulk' | 'operator'>;
  /** The user's job definitions, for the schema of edited payloads. */
  registry: JobRegistry;
  maxPayloadBytes: number;
  auditor: Auditor;
}

/** Runs started bulk actions; {@link BulkRunner.definition} is the job that drives it. */
export class BulkRunner {
  /** The built-in job definition of bulk-action runs. */
  readonly definition: JobDefinition<BulkJobPayload>;

  constructor(private readonly options: BulkRunnerOptions) {
    this.definition = defineJob<BulkJobPayload>({
      type: BULK_JOB_TYPE,
      queue: OPERATOR_QUEUE,
      // Each run continues where the last stopped, so a lost or failed run is simply run again.
      retryZombies: 100,
      retry: { maxAttempts: 100, baseDelay: '1s', maxDelay: '1m' },
      timeout: '6h',
      handle: (payload, ctx) => this.run(payload.actionId, ctx),
    });
  }

  /**
   * Applies the waiting items of `actionId` batch by batch until none is left, a cancel is
   * requested, or the run must stop (`ctx.signal`: it then throws, and a retry continues).
   * Resolves to the action's final counts.
   */
  async run(
    actionId: string,
    ctx: JobContext,
  ): Promise<Pick<BulkAction, 'status' | 'applied' | 'skipped'>> {
    const { store } = this.options;
    // Bounded: every pass marks at least one waiting item, and an action has at most 100,000.
    for (let pass = 0; pass <= 100_000; pass += 1) {
      const { action, items } = await store.bulk.nextBulkItems(actionId, BULK_BATCH_SIZE);
      if (action.status !== 'running') return action;
      if (action.cancelRequestedAt !== null) return this.finish(action, 'cancelled');
      if (items.length === 0) return this.finish(action, 'succeeded');
      if (ctx.signal.aborted) {
        throw new Error(`bulk action ${actionId} stopped between two batches; a retry continues`);
      }
      const batch = await this.prepare(action, items);
      await store.bulk.applyBulkBatch(actionId, batch);
      const done = action.done + items.length;
      await ctx.progress(action.total === 0 ? 100 : (100 * done) / action.total);
    }
    throw new Error(`bulk action ${actionId} did not finish within its pass bound`);
  }

  /** The batch of `items`: for edit-resurrect, each job's patched and checked payload. */
  private async prepare(action: BulkAction, items: BulkItem[]): Promise<BulkBatch> {
    const actor = action.actor ?? 'operator';
    const edit = (action.edit ?? {}) as CheckedEdit;
    const batch: BulkBatch = { kind: action.action, actor, items, skips: [] };
    if (edit.priority !== undefined) batch.priority = edit.priority;
    if (edit.tags !== undefined) batch.tags = edit.tags;
    if (action.action !== 'edit-resurrect' || edit.patch === undefined) return batch;
    const patched: (BulkItem & { payload: string })[] = [];
    const skips: BulkSkip[] = [];
    await Promise.all(
      items.map(async (item) => {
        const found = await this.options.store.operator.getJob(item.jobId);
        if (found?.where !== 'dlq') return; // gone: the batch write skips and reports it
        try {
          const payload = await this.patched(found.job.type, found.job.payload, edit);
          patched.push({ ...item, payload });
        } catch (error) {
          skips.push({ jobId: item.jobId, note: noteOf(error) });
        }
      }),
    );
    const left = new Set([...patched, ...skips].map((entry) => entry.jobId));
    const gone = items.filter((item) => !left.has(item.jobId));
    return { ...batch, items: [...patched, ...gone], skips };
  }

  /**
   * `payload` (JSON text) with the edit's patch merged, checked against the type's schema; as
   * JSON text. A type this worker has no definition of throws (the job is skipped and reported,
   * never moved unchecked) unless the edit says `unchecked`.
   */
  private async patched(type: string, payload: string, edit: CheckedEdit): Promise<string> {
    const value = mergePatch(JSON.parse(payload) as unknown, edit.patch);
    await checkOperatorPayload(
      this.options.registry,
      type,
      value,
      'payload',
      edit.unchecked === true,
    );
    return serializePayload(value, this.options.maxPayloadBytes, 'payload');
  }

  /** Ends the action and records it in the audit trail. */
  private async finish(
    action: BulkAction,
    status: BulkEnd,
  ): Promise<Pick<BulkAction, 'status' | 'applied' | 'skipped'>> {
    await this.options.store.bulk.finishBulk(action.id, status);
    const outcome = {
      status,
      total: action.total,
      applied: action.applied,
      skipped: action.skipped,
    };
    await this.options.auditor.record({
      actor:
        status === 'cancelled'
          ? (action.cancelRequestedBy ?? 'operator')
          : (action.actor ?? 'operator'),
      action: `bulk-${action.action}`,
      reason: action.reason,
      target: { bulkActionId: action.id, ...(action.target as object) },
      outcome,
    });
    return { status, applied: action.applied, skipped: action.skipped };
  }
}

/** Why a job's patched payload was refused. */
function noteOf(error: unknown): string {
  if (error instanceof ChokaQError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
