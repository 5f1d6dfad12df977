/**
 * `chokaq.retention`: what the retention purge would delete now, and a purge on demand — with the
 * configured ages or ones given to the call (`{ archive: '1d' }`), in the same bounded batches as
 * the background loop and under the same lease, so two purges never run at once.
 */
import type { Store } from '../storage/store.js';
import { resolveAges, type RetentionAges } from '../runtime/retention-ages.js';
import { retentionRules, type Retention } from '../runtime/retention.js';
import type { RetentionSettings } from '../runtime/settings.js';
import type { RetentionRule, RetentionTable } from '../storage/retention.js';
import { checkActorOptions, type ActorOptions, type Auditor } from './audit.js';

/** One rule of a preview or a purge: which rows of which table, older than how long. */
export interface RetentionEntry {
  table: RetentionTable;
  /** The queue of a queue's own rule; `null` for the table-wide rule. */
  queue: string | null;
  /** Rows older than this (ms) go. */
  olderThanMs: number;
  /** Preview: how many rows would go now (bulk actions: the actions). Purge: rows deleted. */
  rows: number;
}

/** What `retention.purge` did. */
export interface RetentionPurge {
  /** `false` when another process was purging (it holds the lease): nothing was done. */
  led: boolean;
  entries: RetentionEntry[];
}

/** What the retention API needs from the engine. */
export interface RetentionApiOptions {
  store: Pick<Store, 'retention' | 'queues'>;
  open: () => Promise<void>;
  settings: RetentionSettings;
  retention: Retention;
  /** Records each purge on demand in the audit trail. */
  auditor: Auditor;
}

/** The retention purge on demand (`chokaq.retention`). */
export class RetentionApi {
  constructor(private readonly options: RetentionApiOptions) {}

  /**
   * How many rows each rule would delete now. `ages` replaces configured ages for this call
   * (`null` keeps a table).
   * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION` or `CHOKAQ_INVALID_DURATION` naming the field.
   */
  async preview(ages?: RetentionAges): Promise<RetentionEntry[]> {
    const rules = this.rules(ages);
    await this.options.open();
    const entries: RetentionEntry[] = [];
    for (const rule of rules) {
      entries.push(entryOf(rule, await this.options.store.retention.countPurgeable(rule)));
    }
    return entries;
  }

  /**
   * Purges now, in bounded batches, unless another process is purging (then `led: false`); audited
   * as `retention-purge` with the rows each rule deleted. `options`: who and why (default: actor
   * `'operator'`, no reason).
   * @throws ChokaQError as {@link RetentionApi.preview}, `CHOKAQ_INVALID_ARGUMENT` for the options.
   */
  async purge(ages?: RetentionAges, options?: ActorOptions): Promise<RetentionPurge> {
    const rules = this.rules(ages);
    const { actor, reason } = checkActorOptions(options);
    await this.options.open();
    const report = await this.options.retention.pass(rules);
    const purge = { led: report.led, entries: report.purged.map((p) => entryOf(p.rule, p.rows)) };
    await this.options.auditor.record({
      actor,
      action: 'retention-purge',
      reason,
      target: { ages: ages ?? null },
      outcome: purge,
    });
    return purge;
  }

  /**
   * The queues whose succeeded jobs get no archive rows (`keepSucceeded: false`): the archive's
   * retention has nothing of theirs to purge, and their history is only the lifetime counters
   * and metric buckets. Job types with `keepSucceeded: false` leave no rows in any queue.
   */
  async queuesWithoutHistory(): Promise<string[]> {
    await this.options.open();
    const queues = await this.options.store.queues.listQueues();
    return queues.filter((queue) => !queue.keepSucceeded).map((queue) => queue.name);
  }

  private rules(ages: RetentionAges | undefined): RetentionRule[] {
    const { settings } = this.options;
    return retentionRules(resolveAges(ages, 'ages', settings.ages), settings.queueAges);
  }
}

function entryOf(rule: RetentionRule, rows: number): RetentionEntry {
  return { table: rule.table, queue: rule.queue ?? null, olderThanMs: rule.olderThanMs, rows };
}
