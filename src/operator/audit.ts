/**
 * The operator audit trail: every operator change (resurrect, purge, cancel, edits, queue
 * controls, bulk actions) is recorded with its actor, reason, target and outcome, and announced
 * as an `operator:action` event. `chokaq.audit.list` reads it back, newest first.
 */
import type { Store } from '../storage/store.js';
import { logEvent } from '../observability/logging/log-events.js';
import { validateJobId } from '../job/envelope.js';
import type { Logger } from '../observability/logging/logger.js';
import type { ChokaQEvents } from '../runtime/events.js';
import type { AuditEntry, NewAuditEntry } from '../storage/bulk.js';
import { checkOptions, checkString } from '../util/check.js';
import { uuidv7 } from '../util/uuid.js';
import { checkActor, checkLimit } from './inputs.js';

/** Longest reason an operator may give, in characters. */
export const MAX_REASON_LENGTH = 1000;

/** An operator action to record: what happened, by whom, to what. */
export type AuditRecord = Omit<NewAuditEntry, 'id'>;

/**
 * Records operator actions. A failed audit write is logged, not thrown: the action it describes
 * has already happened (and is stamped on the job's own row and history), so failing the call
 * would tell the operator it did not.
 */
export class Auditor {
  constructor(
    private readonly store: Pick<Store, 'bulk'>,
    private readonly events: ChokaQEvents,
    private readonly logger: Logger,
  ) {}

  /** Appends `record` to the trail and emits `operator:action`. */
  async record(record: AuditRecord): Promise<void> {
    try {
      const entry = await this.store.bulk.recordAction({ id: uuidv7(), ...record });
      this.events.emit('operator:action', entry);
    } catch (error) {
      this.logger.warn('audit entry not recorded', {
        ...logEvent('AuditEntryNotRecorded'),
        action: record.action,
        actor: record.actor,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

/** Who does an operator action and why; both are recorded in the audit trail. */
export interface ActorOptions {
  /** Recorded on the jobs it changes and in the audit trail (1–100 characters). Default: `'operator'`. */
  actor?: string;
  /** Why, for the audit trail (1–1000 characters). Default: none. */
  reason?: string;
}

/**
 * Checks `{ actor, reason }` options of an operator call.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming the field.
 */
export function checkActorOptions(options: ActorOptions | undefined): {
  actor: string;
  reason: string | null;
} {
  const o = checkOptions(options, 'options', ['actor', 'reason'], 'CHOKAQ_INVALID_ARGUMENT');
  return { actor: checkActor(o.actor), reason: checkReason(o.reason, 'options.reason') };
}

/**
 * An optional reason (1–1000 characters); `undefined` reads as `null`.
 * @throws ChokaQError `CHOKAQ_INVALID_ARGUMENT` naming `field`.
 */
export function checkReason(reason: unknown, field: string): string | null {
  if (reason === undefined) return null;
  return checkString(reason, field, MAX_REASON_LENGTH, 'CHOKAQ_INVALID_ARGUMENT');
}

/** Filter of `audit.list`. */
export interface AuditQuery {
  /** Most entries, 1–1000. Default: `100`. */
  limit?: number;
  /** Only entries older than this one (the `id` of the last entry of the previous page). */
  before?: string;
}

/** The operator audit trail (`chokaq.audit`). */
export class AuditApi {
  constructor(
    private readonly store: Pick<Store, 'bulk'>,
    private readonly open: () => Promise<void>,
  ) {}

  /**
   * Audit entries, newest first.
   * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION`, `CHOKAQ_INVALID_ARGUMENT` (limit) or
   *   `CHOKAQ_INVALID_JOB_ID` (a malformed `before`).
   */
  async list(query?: AuditQuery): Promise<AuditEntry[]> {
    const q = checkOptions(query, 'query', ['limit', 'before'], 'CHOKAQ_INVALID_ARGUMENT');
    const limit = checkLimit(q.limit, 'query.limit');
    if (q.before !== undefined) validateJobId(q.before, 'query.before');
    await this.open();
    return this.store.bulk.listActions(limit, q.before);
  }
}
