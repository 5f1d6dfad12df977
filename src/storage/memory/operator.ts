/**
 * The operator capability of the memory provider: reads of jobs, pages and counts of the three
 * tables, DLQ error groups, and the operator's edits, resurrections and purges, over the store's
 * shared tables.
 *
 * @internal Reach it through `memory().operator`.
 */
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
import { editPendingJob } from './admin.js';
import { copyArchived, copyDead, copyHot } from './copy.js';
import { editDeadJob, purgeDeadJobs, resurrectJobs } from './dlq.js';
import { errorGroupHours, listErrorGroups } from './error-groups.js';
import { countMemoryTable, queryMemoryTable } from './job-query.js';
import { listArchiveRows, listDeadRows, listHotRows } from './reads.js';
import { atomically, type MemoryState } from './state.js';

/** The memory {@link OperatorStore}. */
export class MemoryOperator implements OperatorStore {
  /** @param state The store's tables, clock and wake-ups. */
  constructor(private readonly state: MemoryState) {}

  /** {@inheritDoc OperatorStore.getJob} */
  getJob(id: string): Promise<FoundJob | null> {
    return atomically((): FoundJob | null => {
      const { hot, archive, dead } = this.state.tables;
      const hotRow = hot.get(id);
      if (hotRow !== undefined) return { where: 'hot', job: copyHot(hotRow) };
      const archived = archive.get(id);
      if (archived !== undefined) return { where: 'archive', job: copyArchived(archived) };
      const deadRow = dead.get(id);
      if (deadRow !== undefined) return { where: 'dlq', job: copyDead(deadRow) };
      return null;
    });
  }

  /** {@inheritDoc OperatorStore.listHot} */
  listHot(filter: { queue?: string; state?: HotState; limit: number }): Promise<HotJob[]> {
    return atomically(() => listHotRows(this.state.tables, filter).map(copyHot));
  }

  /** {@inheritDoc OperatorStore.listArchive} */
  listArchive(filter: { queue?: string; limit: number }): Promise<ArchivedJob[]> {
    return atomically(() => listArchiveRows(this.state.tables, filter).map(copyArchived));
  }

  /** {@inheritDoc OperatorStore.listDead} */
  listDead(filter: { queue?: string; reason?: FailureReason; limit: number }): Promise<DeadJob[]> {
    return atomically(() => listDeadRows(this.state.tables, filter).map(copyDead));
  }

  /** {@inheritDoc OperatorStore.resurrect} */
  resurrect(ids: readonly string[], options: ResurrectRequest): Promise<string[]> {
    return atomically(() => {
      const targets = [...new Set(ids)].map((id) => ({ id }));
      const outcome = resurrectJobs(this.state.tables, targets, options, this.state.time());
      this.state.wake.notify(outcome.wokenQueues);
      return outcome.moved;
    });
  }

  /** {@inheritDoc OperatorStore.purgeDead} */
  purgeDead(ids: readonly string[]): Promise<number> {
    return atomically(
      () =>
        purgeDeadJobs(
          this.state.tables,
          ids.map((id) => ({ id })),
        ).length,
    );
  }

  /** {@inheritDoc OperatorStore.editPending} */
  editPending(id: string, edit: PendingEdit): Promise<boolean> {
    return atomically(() => editPendingJob(this.state.tables, id, edit, this.state.time()));
  }

  /** {@inheritDoc OperatorStore.editDead} */
  editDead(id: string, edit: DeadEdit): Promise<boolean> {
    return atomically(() => editDeadJob(this.state.tables, id, edit, this.state.time()));
  }

  /** {@inheritDoc OperatorStore.queryTable} */
  queryTable(table: JobTable, query: TableQuery): Promise<TablePage> {
    return atomically(() => queryMemoryTable(this.state.tables, table, query));
  }

  /** {@inheritDoc OperatorStore.countTable} */
  countTable(table: JobTable, query: TableQuery): Promise<TableCount> {
    return atomically(() => countMemoryTable(this.state.tables, table, query));
  }

  /** {@inheritDoc OperatorStore.errorGroups} */
  errorGroups(filter: ErrorGroupFilter): Promise<ErrorGroup[]> {
    return atomically(() => listErrorGroups(this.state.tables, filter));
  }

  /** {@inheritDoc OperatorStore.errorGroupHours} */
  errorGroupHours(fingerprints: readonly string[], since: Date): Promise<GroupHour[]> {
    return atomically(() => errorGroupHours(this.state.tables, fingerprints, since));
  }
}
