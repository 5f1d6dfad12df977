/**
 * `chokaq.jobs`: the operator's calls on jobs wherever they are — query, count, detail — the
 * edit of a pending job and the re-run of a succeeded one. Checks every input, then delegates to `jobs.ts` and the store.
 */
import type { Store } from '../storage/store.js';
import { checkEnvelopeText, LIMITS, validateJobId, validatePriority } from '../job/envelope.js';
import { WAITING_STATES } from '../job/state.js';
import type { JobRegistry } from '../job/registry.js';
import type { ChokaQEvents } from '../runtime/events.js';
import type { PendingEdit } from '../storage/operator-store.js';
import { checkInteger, checkOptions, invalid } from '../util/check.js';
import { MAX_DURATION_MS } from '../util/duration.js';
import { checkReason, type Auditor } from './audit.js';
import { checkActor } from './inputs.js';
import {
  countJobs,
  jobDetail,
  queryJobs,
  type JobCount,
  type JobDetail,
  type JobPage,
} from './jobs.js';
import { jobFlow, MAX_FLOW_NODES, type JobFlow } from './job-flow.js';
import { checkUnchecked, editedPayload } from './payload-check.js';
import { rerunArchived, type RerunResult } from './rerun.js';
import { checkJobQuery, type JobQuery } from './query-input.js';

/** An edit of a waiting (pending or scheduled) job (`jobs.edit`); absent fields keep their value. */
export interface PendingJobEdit {
  /**
   * A new payload, checked against the job type's schema; a type this process has no definition
   * of is refused (`CHOKAQ_UNKNOWN_JOB_TYPE`) unless `unchecked` is set.
   */
  payload?: unknown;
  /** Store the payload of a type this process has no definition of, unchecked. Default: `false`. */
  unchecked?: boolean;
  /** A 32-bit integer; higher runs first. */
  priority?: number;
  /** New tags (≤ 1000 characters); `null` clears them. */
  tags?: string | null;
  /** When the job becomes due (store clock); a past time means now. */
  runAt?: Date;
  /** Recorded as the job's last modifier, in its history and the audit trail (1–100 characters). Default: `'operator'`. */
  actor?: string;
  /** Why, for the audit trail (1–1000 characters). Default: none. */
  reason?: string;
}

/** How much of a workflow `jobs.flow` reads. */
export interface JobFlowOptions {
  /** Most jobs returned, 1–1000. Default: {@link MAX_FLOW_NODES} (1,000). */
  limit?: number;
}

/** Who re-runs a job and why (`jobs.rerun`). */
export interface RerunOptions {
  /** Recorded as the copy's creator and in the audit trail (1–100 characters). Default: `'operator'`. */
  actor?: string;
  /** Why, for the audit trail (1–1000 characters). Default: none. */
  reason?: string;
}

const EDIT_KEYS = ['payload', 'unchecked', 'priority', 'tags', 'runAt', 'actor', 'reason'] as const;

/** What {@link JobsApi} needs from the engine. */
export interface JobsApiOptions {
  store: Pick<Store, 'jobs' | 'operator' | 'cluster' | 'workflows' | 'steps' | 'batches'>;
  open: () => Promise<void>;
  registry: JobRegistry;
  maxPayloadBytes: number;
  events: ChokaQEvents;
  auditor: Auditor;
}

/** The operator's calls on jobs (`chokaq.jobs`). */
export class JobsApi {
  constructor(private readonly options: JobsApiOptions) {}

  /**
   * One page of jobs across the hot table, the archive and the DLQ (see {@link JobQuery}),
   * newest first by default, with a cursor for the next page.
   * @throws ChokaQError `CHOKAQ_INVALID_FILTER`, `CHOKAQ_INVALID_ARGUMENT`,
   *   `CHOKAQ_INVALID_CURSOR`, … naming the field; nothing is read.
   */
  async query(query?: JobQuery): Promise<JobPage> {
    const checked = checkJobQuery(query);
    await this.options.open();
    return queryJobs(this.options.store, checked);
  }

  /**
   * How many jobs match `query` (its `sort`, `limit` and `cursor` are ignored): exact up to
   * 10,000 per table, past that the database's estimate with `exact: false`.
   * @throws ChokaQError as {@link JobsApi.query}.
   */
  async count(query?: Omit<JobQuery, 'cursor' | 'limit'>): Promise<JobCount> {
    const checked = checkJobQuery(query);
    await this.options.open();
    return countJobs(this.options.store, checked);
  }

  /** A job's full row, state and timeline, or `null` when no table holds it. */
  async get(id: string): Promise<JobDetail | null> {
    validateJobId(id);
    await this.options.open();
    return jobDetail(this.options.store, id);
  }

  /**
   * The workflow job `id` belongs to: every job connected to it through dependencies in either
   * direction, each with its state, and the edges between them, at most `options.limit` jobs
   * (1–1000, default {@link MAX_FLOW_NODES}) nearest to it, with `truncated: true` when more are
   * connected. A job with neither dependencies nor dependents is a flow of itself alone. Resolves
   * `null` when no table holds the job (as {@link JobsApi.get}).
   * @throws ChokaQError `CHOKAQ_INVALID_JOB_ID`, or `CHOKAQ_INVALID_ARGUMENT` naming
   *   `options.limit`; nothing is read.
   */
  async flow(id: string, options?: JobFlowOptions): Promise<JobFlow | null> {
    validateJobId(id);
    const o = checkOptions(options, 'options', ['limit'], 'CHOKAQ_INVALID_ARGUMENT');
    const limit =
      o.limit === undefined
        ? MAX_FLOW_NODES
        : checkInteger(
            o.limit,
            'options.limit',
            { min: 1, max: MAX_FLOW_NODES },
            'CHOKAQ_INVALID_ARGUMENT',
          );
    await this.options.open();
    return jobFlow(this.options.store, id, limit);
  }

  /**
   * Edits a waiting (pending or scheduled) job in place; a new `runAt` in the future makes it
   * scheduled, one now or past pending. Resolves `false`, changing nothing, when the job is not
   * waiting (it started, finished or does not exist).
   * @throws ChokaQError naming the field (`edit.payload` fails its schema, `edit.priority`, …).
   */
  async edit(id: string, edit: PendingJobEdit): Promise<boolean> {
    validateJobId(id);
    const e = checkOptions(edit, 'edit', [...EDIT_KEYS], 'CHOKAQ_INVALID_ARGUMENT');
    const change: PendingEdit = { actor: checkActor(e.actor, 'edit.actor') };
    const reason = checkReason(e.reason, 'edit.reason');
    const unchecked = checkUnchecked(e.unchecked, 'edit.unchecked');
    if (e.priority !== undefined) {
      validatePriority(e.priority, 'edit.priority');
      change.priority = e.priority;
    }
    if (e.tags !== undefined)
      change.tags = checkEnvelopeText(e.tags, 'edit.tags', LIMITS.tagsLength);
    if (e.runAt !== undefined && (!(e.runAt instanceof Date) || Number.isNaN(e.runAt.getTime()))) {
      throw invalid('CHOKAQ_INVALID_ARGUMENT', 'edit.runAt', 'a valid Date', e.runAt);
    }
    await this.options.open();
    const { store, registry } = this.options;
    const found = await store.operator.getJob(id);
    if (found?.where !== 'hot' || !WAITING_STATES.includes(found.job.state)) return false;
    let storedUnchecked = false;
    if (e.payload !== undefined) {
      const { maxPayloadBytes } = this.options;
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
    if (e.runAt !== undefined) {
      const now = (await store.cluster.now()).getTime();
      change.delayMs = Math.min(MAX_DURATION_MS, Math.max(0, e.runAt.getTime() - now));
    }
    const edited = await store.operator.editPending(id, change);
    if (edited) {
      const { queue, type } = found.job;
      this.options.events.emit('job:edited', { id, queue, type, actor: change.actor });
      // The fields by their public names (`runAt`, stored as a delay from the store's now).
      const fields = Object.keys(change)
        .filter((key) => key !== 'actor')
        .map((key) => (key === 'delayMs' ? 'runAt' : key));
      await this.options.auditor.record({
        actor: change.actor,
        action: 'edit',
        reason,
        target: { id },
        outcome: {
          fields,
          ...(e.runAt === undefined ? {} : { runAt: e.runAt.toISOString() }),
          ...(storedUnchecked ? { unchecked: true } : {}),
        },
      });
    }
    return edited;
  }

  /**
   * Runs a succeeded job again: enqueues a copy of archived job `id` (same type, queue, payload,
   * tags and concurrency key) under a new id, due now, audited as `rerun`. The archived job stays.
   * Resolves `null`, writing nothing, when no succeeded job with this id is in the archive.
   * @throws ChokaQError `CHOKAQ_INVALID_JOB_ID`, or `CHOKAQ_INVALID_ARGUMENT` naming
   *   `options.actor` / `options.reason`.
   */
  async rerun(id: string, options?: RerunOptions): Promise<RerunResult | null> {
    validateJobId(id);
    const o = checkOptions(options, 'options', ['actor', 'reason'], 'CHOKAQ_INVALID_ARGUMENT');
    const who = { actor: checkActor(o.actor), reason: checkReason(o.reason, 'options.reason') };
    await this.options.open();
    return rerunArchived(this.options, id, who);
  }
}
