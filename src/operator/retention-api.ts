/**
 * `chokaq.retention`: what the retention purge would delete now, and a purge on demand — with the
 * configured ages or ones given to the call (`{ archive: '1d' }`), in the same bounded batches as
 * the background loop and under the same lease, so two purges never run at once.
 */
import { resolveAges, type RetentionAges } from '../config/retention.js';
import { retentionRules, type Retention } from '../runtime/retention.js';
import type { RetentionSettings } from '../runtime/settings.js';
import type { RetentionRule, RetentionTable } from '../storage/retention.js';
import type { Store } from '../storage/store.js';

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
  store: Store;
  open: () => Promise<void>;
  settings: RetentionSettings;
  retention: Retention;
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
      entries.push(entryOf(rule, await this.options.store.countPurgeable(rule)));
    }
    return entries;
  }

  /**
   * Purges now, in bounded batches, unless another process is purging (then `led: false`).
   * @throws ChokaQError as {@link RetentionApi.preview}.
   */
  async purge(ages?: RetentionAges): Promise<RetentionPurge> {
    const rules = this.rules(ages);
    await this.options.open();
    const report = await this.options.retention.pass(rules);
    return { led: report.led, entries: report.purged.map((p) => entryOf(p.rule, p.rows)) };
  }

  private rules(ages: RetentionAges | undefined): RetentionRule[] {
    const { settings } = this.options;
    return retentionRules(resolveAges(ages, 'ages', settings.ages), settings.queueAges);
  }
}

function entryOf(rule: RetentionRule, rows: number): RetentionEntry {
  return { table: rule.table, queue: rule.queue ?? null, olderThanMs: rule.olderThanMs, rows };
}
