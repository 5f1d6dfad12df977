/**
 * `chokaq.dlq`: the operator's calls on the dead-letter queue — list, resurrect (optionally with a
 * fixed payload or priority), edit in place, error groups and their trend, purge — each checked
 * before anything is written, and audited.
 */
import type { Store } from '../storage/store.js';
import {
  checkEnvelopeText,
  LIMITS,
  serializePayload,
  validateJobId,
  validatePriority,
} from '../job/envelope.js';
import type { JobRegistry } from '../job/registry.js';
import type { DeadJob, ErrorGroup } from '../storage/model.js';
import type { DeadEdit } from '../storage/operator-store.js';
import { checkOptions } from '../util/check.js';
import { checkActorOptions, checkReason, type ActorOptions, type Auditor } from './audit.js';
import { checkTrendGroups, errorGroupTrend, type ErrorGroupTrend } from './group-trend.js';
import {
  checkActor,
  checkDeadFilter,
  checkGroupQuery,
  checkIds,
  type DeadFilter,
  type ErrorGroupQuery,
} from './inputs.js';
import { checkOperatorPayload, checkUnchecked, editedPayload } from './payload-check.js';
import { PAYLOAD_SCAN_LIMIT } from './query-input.js';

/** Options of {@link DlqApi.resurrect}. */
export interface ResurrectOptions extends ActorOptions {
  /**
   * A new payload for every resurrected job (JSON-serializable), checked against each job's type
   * schema before anything moves; a type this process has no definition of is refused
   * (`CHOKAQ_UNKNOWN_JOB_TYPE`) unless `unchecked` is set. Default: each job's own.
   */
  payload?: unknown;
  /** Store the payload of a type this process has no definition of, unchecked. Default: `false`. */
  unchecked?: boolean;
  /** Priority of the resurrected jobs; a 32-bit integer. Default: `10`. */
  priority?: number;
}

/** An in-place edit of a DLQ job ({@link DlqApi.edit}); absent fields keep their value. */
export interface DeadJobEdit extends ActorOptions {
  /**
   * A new payload, checked against the job type's schema; a type this process has no definition
   * of is refused (`CHOKAQ_UNKNOWN_JOB_TYPE`) unless `unchecked` is set.
   */
  payload?: unknown;
  /** Store the payload of a type this process has no definition of, unchecked. Default: `false`. */
  unchecked?: boolean;
  /** New tags (≤ 1000 characters); `null` clears them. */
  tags?: string | null;
}

/** Names of the options of the calls. */
const RESURRECT_KEYS = ['actor', 'reason', 'payload', 'unchecked', 'priority'] as const;
const DEAD_EDIT_KEYS = ['actor', 'reason', 'payload', 'unchecked', 'tags'] as const;

/** Ids read per page when `resurrect` looks up the types of a new payload's jobs. */
const TYPE_READ_PAGE = 1000;

/** Dependencies of a {@link DlqApi}. */
export interface DlqApiOptions {
  store: Pick<Store, 'operator' | 'cluster'>;
  /** Opens the store once (migrating per its options). */
  open: () => Promise<void>;
  /** The job types this process defines, for payload checks. */
  registry: JobRegistry;
  /** Largest payload, in UTF-8 bytes of its JSON. */
  maxPayloadBytes: number;
  auditor: Auditor;
}

/** Operator calls on the dead-letter queue (`chokaq.dlq`). */
export class DlqApi {
  constructor(private readonly options: DlqApiOptions) {}

  /** DLQ jobs, newest failure first (at most `filter.limit`, 1–1000, default 100). */
  async list(filter?: DeadFilter): Promise<DeadJob[]> {
    const checked = checkDeadFilter(filter);
    await this.options.open();
    return this.options.store.operator.listDead(checked);
  }

  /**
   * Moves DLQ jobs back to pending with attempts reset; optional edits apply to all of them.
   * Resolves to the ids moved (ids no longer in the DLQ are skipped).
   */
  async resurrect(ids: readonly string[], options?: ResurrectOptions): Promise<string[]> {
    const { store, registry, maxPayloadBytes, auditor } = this.options;
    const checked = checkIds(ids);
    const edits = checkOptions(options, 'options', RESURRECT_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
    const actor = checkActor(edits.actor);
    const reason = checkReason(edits.reason, 'options.reason');
    if (edits.priority !== undefined) validatePriority(edits.priority, 'options.priority');
    const unchecked = checkUnchecked(edits.unchecked, 'options.unchecked');
    const payload =
      edits.payload !== undefined
        ? serializePayload(edits.payload, maxPayloadBytes, 'options.payload')
        : undefined;
    await this.options.open();
    let storedUnchecked = false;
    if (edits.payload !== undefined) {
      // Every type among the jobs is checked before any job moves.
      for (const type of await this.deadTypes(checked)) {
        if (await checkOperatorPayload(registry, type, edits.payload, 'options.payload', unchecked))
          storedUnchecked = true;
      }
    }
    const moved = await store.operator.resurrect(checked, {
      actor,
      ...(payload === undefined ? {} : { payload }),
      ...(edits.priority === undefined ? {} : { priority: edits.priority }),
    });
    await auditor.record({
      actor,
      action: 'resurrect',
      reason,
      target: { ids: checked },
      outcome: { moved, ...(storedUnchecked ? { unchecked: true } : {}) },
    });
    return moved;
  }

  /**
   * Edits a DLQ job in place (payload, tags) so a later resurrect runs it fixed. Resolves
   * `false`, changing nothing, when the job is not in the DLQ.
   * @throws ChokaQError naming the field (`edit.payload` fails its schema, `edit.tags`, …).
   */
  async edit(id: string, edit: DeadJobEdit): Promise<boolean> {
    const { store, registry, maxPayloadBytes, auditor } = this.options;
    validateJobId(id);
    const e = checkOptions(edit, 'edit', DEAD_EDIT_KEYS, 'CHOKAQ_INVALID_ARGUMENT');
    const actor = checkActor(e.actor, 'edit.actor');
    const reason = checkReason(e.reason, 'edit.reason');
    const unchecked = checkUnchecked(e.unchecked, 'edit.unchecked');
    const change: DeadEdit = { actor };
    if (e.tags !== undefined)
      change.tags = checkEnvelopeText(e.tags, 'edit.tags', LIMITS.tagsLength);
    await this.options.open();
    const found = await store.operator.getJob(id);
    if (found?.where !== 'dlq') return false;
    let storedUnchecked = false;
    if (e.payload !== undefined) {
      const checked = await editedPayload(
        registry,
        found.job.type,
        e.payload,
        maxPayloadBytes,
        unchecked,
      );
      change.payload = checked.payload;
      storedUnchecked = checked.unchecked;
    }
    const edited = await store.operator.editDead(id, change);
    if (edited) {
      const fields = Object.keys(change).filter((key) => key !== 'actor');
      await auditor.record({
        actor,
        action: 'dlq-edit',
        reason,
        target: { id },
        outcome: { fields, ...(storedUnchecked ? { unchecked: true } : {}) },
      });
    }
    return edited;
  }

  /**
   * Error groups of the DLQ (jobs whose errors share class, normalised message and top user
   * frame), largest first, from a summary maintained as jobs enter and leave the DLQ.
   */
  async groups(filter?: ErrorGroupQuery): Promise<ErrorGroup[]> {
    const checked = checkGroupQuery(filter);
    await this.options.open();
    return this.options.store.operator.errorGroups(checked);
  }

  /**
   * How many jobs of each error group moved to the DLQ in each of the last 24 hours (the hour
   * now running last), from an hourly summary kept as jobs enter the DLQ: at most 24 rows per
   * group, never a scan of the DLQ. Up to 100 fingerprints (from `groups`); an unknown one
   * reads as zeros.
   * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming `fingerprints[i]`.
   */
  async trend(fingerprints: readonly string[]): Promise<ErrorGroupTrend> {
    const checked = checkTrendGroups(fingerprints);
    await this.options.open();
    return errorGroupTrend(this.options.store, checked);
  }

  /** Deletes DLQ jobs for good; resolves to how many were deleted. */
  async purge(ids: readonly string[], options?: ActorOptions): Promise<number> {
    const checked = checkIds(ids);
    const { actor, reason } = checkActorOptions(options);
    await this.options.open();
    const purged = await this.options.store.operator.purgeDead(checked);
    await this.options.auditor.record({
      actor,
      action: 'purge',
      reason,
      target: { ids: checked },
      outcome: { purged },
    });
    return purged;
  }

  /** The distinct job types of the DLQ jobs among `ids`, read by id through the query surface. */
  private async deadTypes(ids: readonly string[]): Promise<Set<string>> {
    const types = new Set<string>();
    for (let i = 0; i < ids.length; i += TYPE_READ_PAGE) {
      const page = await this.options.store.operator.queryTable('dlq', {
        ids: ids.slice(i, i + TYPE_READ_PAGE),
        sort: 'createdAt',
        order: 'asc',
        limit: TYPE_READ_PAGE,
        scanLimit: PAYLOAD_SCAN_LIMIT,
      });
      for (const row of page.rows) types.add(row.job.type);
    }
    return types;
  }
}
