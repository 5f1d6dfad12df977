/**
 * The retention purge: rules from the configured ages, and passes that apply them in bounded
 * batches — each batch one short statement that locks only the rows it deletes — led by one
 * process at a time (a lease in the store, renewed with every batch). Every worker runs the
 * loop; the lease lets one of them work while the others' passes return at once.
 */
import type { Store } from '../storage/store.js';
import { logEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import { RETENTION_TABLES, type RetentionRule } from '../storage/retention.js';
import type { Clock } from '../util/clock.js';
import type { ChokaQEvents } from './events.js';
import { LoopService } from './service.js';
import type { RetentionSettings } from './settings.js';

/** The lease retention passes take. */
export const RETENTION_LEASE = 'retention';

/** Most batches one rule runs in one pass (with the default batch size: a million rows). */
const MAX_BATCHES_PER_RULE = 1000;

/**
 * Most windows of the scan of events one pass reads (with the default batch size: 20,000 events);
 * the next pass goes on from where this one stopped.
 */
const MAX_EVENT_WINDOWS_PER_PASS = 20;

/** What one pass purged: rows per rule. */
export interface PurgeReport {
  /** `false` when another process held the lease, so nothing was done. */
  led: boolean;
  purged: { rule: RetentionRule; rows: number }[];
}

/**
 * The rules the ages make: per table, one rule for every queue without its own age, and one per
 * queue with its own. A table (or queue) whose age is `null` has no rule: its rows are kept.
 */
export function retentionRules(
  ages: RetentionSettings['ages'],
  queueAges: RetentionSettings['queueAges'],
): RetentionRule[] {
  const rules: RetentionRule[] = [];
  for (const table of RETENTION_TABLES) {
    const own =
      table === 'archive' || table === 'dlq'
        ? Object.entries(queueAges).flatMap(([queue, a]) =>
            a[table] === undefined ? [] : [{ queue, ms: a[table] }],
          )
        : [];
    const base = ages[table];
    if (base !== null) {
      rules.push({
        table,
        olderThanMs: base,
        ...(own.length > 0 ? { exceptQueues: own.map((o) => o.queue) } : {}),
      });
    }
    for (const { queue, ms } of own) if (ms !== null) rules.push({ table, olderThanMs: ms, queue });
  }
  return rules;
}

/** Options of {@link Retention}. */
export interface RetentionOptions {
  store: Pick<Store, 'retention' | 'cluster' | 'batches' | 'steps'>;
  settings: RetentionSettings;
  /** The lease holder: this process's worker id. */
  holder: string;
  events: ChokaQEvents;
  logger: Logger;
  clock: Clock;
}

/** The retention purge of one ChokaQ: its background loop and its passes. */
export class Retention {
  private readonly loop: LoopService;
  private stopping = false;
  /** Where the scan of events goes on (see `StepStore.purgeEvents`); `null`: from the first. */
  private eventsAfter: number | null = null;

  constructor(private readonly options: RetentionOptions) {
    const { settings, clock, logger } = options;
    this.loop = new LoopService({
      intervalMs: settings.intervalMs,
      pass: async () => {
        await this.pass(retentionRules(settings.ages, settings.queueAges));
      },
      onError: (error) =>
        logger.warn('retention pass failed', {
          ...logEvent('RetentionPassFailed'),
          error: String(error),
        }),
      clock,
    });
  }

  /** Starts the background loop (when retention is on). */
  start(): void {
    if (this.options.settings.enabled) this.loop.start();
  }

  /** Stops the loop; a pass in flight stops after its current batch. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop.stop();
  }

  /**
   * One pass over `rules`, if this process gets the lease: each rule's expired rows in batches of
   * `batchSize` until fewer come back (at most 1,000 batches per rule and pass).
   */
  async pass(rules: readonly RetentionRule[]): Promise<PurgeReport> {
    const { store, settings, holder, events, logger } = this.options;
    const lease = () => store.cluster.takeLease(RETENTION_LEASE, holder, 3 * settings.intervalMs);
    if (!(await lease())) return { led: false, purged: [] };
    const purged: PurgeReport['purged'] = [];
    for (const rule of rules) {
      let rows = 0;
      for (let batch = 0; batch < MAX_BATCHES_PER_RULE && !this.stopping; batch++) {
        const deleted = await store.retention.purgeBatch(rule, settings.batchSize);
        rows += deleted;
        if (deleted < settings.batchSize) break;
        // Renewed with every full batch, so a long pass keeps its lead; yields to the event loop.
        if (!(await lease())) break;
      }
      purged.push({ rule, rows });
      if (rows > 0) {
        events.emit('retention:purged', { table: rule.table, queue: rule.queue ?? null, rows });
        logger.info('retention purged rows', {
          ...logEvent('RetentionPurged'),
          table: rule.table,
          queue: rule.queue,
          rows,
        });
      }
    }
    // The batches that are done (docs/workflows.md, "Batches": every member finished and no
    // member row remains, no fired callback still hot), then the events whose job is gone.
    await this.purgeLeftovers((limit) => store.batches.purge(limit), lease);
    await this.purgeOrphanEvents(lease);
    return { led: true, purged };
  }

  /**
   * The next windows of the scan of events whose job is gone: at most
   * {@link MAX_EVENT_WINDOWS_PER_PASS} of `batchSize` events per pass, so a pass costs the same
   * however many events living jobs hold; the scan starts again from the first event once it
   * read the last.
   */
  private async purgeOrphanEvents(lease: () => Promise<boolean>): Promise<void> {
    const { store, settings } = this.options;
    for (let window = 0; window < MAX_EVENT_WINDOWS_PER_PASS && !this.stopping; window++) {
      const { after } = await store.steps.purgeEvents(settings.batchSize, this.eventsAfter);
      this.eventsAfter = after;
      if (after === null || !(await lease())) break;
    }
  }

  /** Rows that no age rule covers, deleted by `purge` in batches of `batchSize` like a rule's. */
  private async purgeLeftovers(
    purge: (limit: number) => Promise<number>,
    lease: () => Promise<boolean>,
  ): Promise<void> {
    const { batchSize } = this.options.settings;
    for (let batch = 0; batch < MAX_BATCHES_PER_RULE && !this.stopping; batch++) {
      const deleted = await purge(batchSize);
      if (deleted < batchSize || !(await lease())) break;
    }
  }
}
