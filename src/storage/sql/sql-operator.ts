/**
 * The operator capability over SQL ({@link OperatorStore}): single jobs from any table, lists and
 * pages of each table, DLQ error groups and their trend, and the operator's edits, resurrections
 * and purges, each in a transaction whose lock waits the provider bounds.
 */
import { FAILURE_REASON_CODE, HOT_STATE_CODE } from '../../job/state.js';
import type { FailureReason, HotState } from '../../job/state.js';
import type { JobTable, TableCount, TablePage, TableQuery } from '../job-query.js';
import type { ArchivedJob, DeadJob, ErrorGroup, FoundJob, HotJob } from '../model.js';
import type {
  DeadEdit,
  ErrorGroupFilter,
  GroupHour,
  OperatorStore,
  PendingEdit,
  ResurrectRequest,
} from '../operator-store.js';
import { countTable, queryTable } from './job-query.js';
import { archivedJobOf, deadJobOf, errorGroupOf, hotJobOf, toDate, toNumber } from './rows.js';
import { inOperatorTransaction, type SqlContext } from './sql-context.js';
import * as run from './statements.js';

/** What the operator API reads and edits, over SQL. */
export class SqlOperator implements OperatorStore {
  constructor(private readonly context: SqlContext) {}

  async getJob(id: string): Promise<FoundJob | null> {
    const { sql } = this.context;
    const db = await this.context.db();
    const [hot] = await run.getHot(db, sql, { id });
    if (hot !== undefined) return { where: 'hot', job: hotJobOf(hot) };
    const [archived] = await run.getArchive(db, sql, { id });
    if (archived !== undefined) return { where: 'archive', job: archivedJobOf(archived) };
    const [dead] = await run.getDead(db, sql, { id });
    if (dead !== undefined) return { where: 'dlq', job: deadJobOf(dead) };
    return null;
  }

  async listHot(filter: { queue?: string; state?: HotState; limit: number }): Promise<HotJob[]> {
    const db = await this.context.db();
    const rows = await run.listHot(db, this.context.sql, {
      queue: filter.queue ?? null,
      status: filter.state === undefined ? null : HOT_STATE_CODE[filter.state],
      limit: filter.limit,
    });
    return rows.map(hotJobOf);
  }

  async listArchive(filter: { queue?: string; limit: number }): Promise<ArchivedJob[]> {
    const db = await this.context.db();
    const rows = await run.listArchive(db, this.context.sql, {
      queue: filter.queue ?? null,
      limit: filter.limit,
    });
    return rows.map(archivedJobOf);
  }

  async listDead(filter: {
    queue?: string;
    reason?: FailureReason;
    limit: number;
  }): Promise<DeadJob[]> {
    const db = await this.context.db();
    const rows = await run.listDead(db, this.context.sql, {
      queue: filter.queue ?? null,
      reason: filter.reason === undefined ? null : FAILURE_REASON_CODE[filter.reason],
      limit: filter.limit,
    });
    return rows.map(deadJobOf);
  }

  async resurrect(ids: readonly string[], options: ResurrectRequest): Promise<string[]> {
    if (ids.length === 0) return [];
    const db = await this.context.db();
    const unique = [...new Set(ids)];
    const rows = await inOperatorTransaction(db, (tx) =>
      run.resurrect(tx, this.context.sql, {
        ids: unique,
        actor: options.actor,
        payloads: unique.map(() => options.payload ?? null),
        replaceTags: options.tags !== undefined,
        tags: options.tags ?? null,
        priority: options.priority ?? 10,
        versions: unique.map(() => null),
        now: this.context.now(),
      }),
    );
    const moved = new Set(rows.map((row) => row.id));
    return unique.filter((id) => moved.has(id));
  }

  async purgeDead(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const db = await this.context.db();
    const unique = [...new Set(ids)];
    const rows = await inOperatorTransaction(db, (tx) =>
      run.purgeDead(tx, this.context.sql, { ids: unique, versions: unique.map(() => null) }),
    );
    return rows.length;
  }

  async editPending(id: string, edit: PendingEdit): Promise<boolean> {
    const db = await this.context.db();
    const rows = await inOperatorTransaction(db, (tx) =>
      run.editPending(tx, this.context.sql, {
        id,
        payload: edit.payload ?? null,
        replaceTags: edit.tags !== undefined,
        tags: edit.tags ?? null,
        priority: edit.priority ?? null,
        actor: edit.actor,
        delayMs: edit.delayMs ?? null,
        now: this.context.now(),
      }),
    );
    return rows.length > 0;
  }

  /** {@inheritDoc OperatorStore.editDead} */
  async editDead(id: string, edit: DeadEdit): Promise<boolean> {
    const db = await this.context.db();
    const rows = await inOperatorTransaction(db, (tx) =>
      run.editDead(tx, this.context.sql, {
        id,
        payload: edit.payload ?? null,
        replaceTags: edit.tags !== undefined,
        tags: edit.tags ?? null,
        actor: edit.actor,
        now: this.context.now(),
      }),
    );
    return rows.length > 0;
  }

  /** {@inheritDoc OperatorStore.queryTable} */
  async queryTable(table: JobTable, query: TableQuery): Promise<TablePage> {
    return queryTable(await this.context.db(), `"${this.context.schema}"`, table, query);
  }

  /** {@inheritDoc OperatorStore.countTable} */
  async countTable(table: JobTable, query: TableQuery): Promise<TableCount> {
    return countTable(await this.context.db(), `"${this.context.schema}"`, table, query);
  }

  /** {@inheritDoc OperatorStore.errorGroups} */
  async errorGroups(filter: ErrorGroupFilter): Promise<ErrorGroup[]> {
    const db = await this.context.db();
    const rows = await run.errorGroups(db, this.context.sql, {
      queues: filter.queues ?? null,
      types: filter.types ?? null,
      limit: filter.limit,
    });
    return rows.map(errorGroupOf);
  }

  /** {@inheritDoc OperatorStore.errorGroupHours} */
  async errorGroupHours(fingerprints: readonly string[], since: Date): Promise<GroupHour[]> {
    const db = await this.context.db();
    const rows = await run.errorGroupHours(db, this.context.sql, { fingerprints, since });
    return rows.map((row) => ({
      fingerprint: row.fingerprint,
      hourStart: toDate(row.hour_start),
      count: toNumber(row.dead_count),
    }));
  }
}
