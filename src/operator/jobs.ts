/**
 * The operator's read side over hot jobs, the archive and the DLQ as one: a query with keyset
 * paging merged across the tables the states name, counts that say whether they are exact, and
 * a job's detail with its timeline.
 */
import type { BatchMembership } from '../storage/batch-store.js';
import type { Store } from '../storage/store.js';
import type { JobState } from '../job/state.js';
import type { JobTable, SortPosition, TablePage } from '../storage/job-query.js';
import type { FoundJob, JobSummary } from '../storage/model.js';
import type { DependencyState } from '../storage/workflow-store.js';
import { encodeCursor } from './cursor.js';
import type { CheckedQuery } from './query-input.js';
import {
  jobStepOf,
  stateOf,
  timelineOf,
  withSteps,
  type JobStep,
  type TimelineEntry,
} from './timeline.js';

/** One page of `jobs.query`. */
export interface JobPage {
  /** The jobs of the page, in the query's order. */
  jobs: JobSummary[];
  /** Pass as `cursor` for the next page; `null` on the last page. */
  nextCursor: string | null;
  /**
   * With a payload filter: whether the bounded scan (at most `rowsPerTable` rows of each table
   * per page) stopped before the page was full. `complete: false` means the page may hold fewer
   * jobs than match, even none: follow `nextCursor` to scan on. `null` without a payload filter.
   */
  scan: { rowsPerTable: number; complete: boolean } | null;
}

/** What `jobs.count` returns. */
export interface JobCount {
  count: number;
  /** `false` when `count` is an estimate (many rows, or a bounded payload scan). */
  exact: boolean;
}

/** A job with everything an operator looks at: the row, its state and its timeline. */
export interface JobDetail {
  state: JobState;
  /** Where it is and its full row (payload, result, progress, errors, history). */
  found: FoundJob;
  /** Oldest first: enqueued, every run kept, operator actions, cancel requests. */
  timeline: TimelineEntry[];
  /** Runs that happened but fell out of the bounded history (the oldest first). */
  runsNotKept: number;
  /** The jobs it waits (or waited) for, in `dependsOn` order, each where it is now. */
  dependencies: DependencyState[];
  /** The ids of the jobs that wait (or waited) for it, in id order, at most {@link MAX_DEPENDENTS}. */
  dependents: string[];
  /** Its durable steps, in the order runs first reached them (also in {@link timeline}). */
  steps: JobStep[];
  /**
   * The batch it is a member or a callback of (`chokaq.enqueueBatch`), with the batch's counts
   * and callbacks (read it again with `chokaq.batches.get`); `null`: none, or retention deleted it.
   */
  batch: BatchMembership | null;
}

/** Most ids {@link JobDetail.dependents} lists. */
export const MAX_DEPENDENTS = 100;

/** Compares two positions in the query's order. */
function compareIn(order: 'asc' | 'desc', a: SortPosition, b: SortPosition): number {
  const sign = order === 'desc' ? -1 : 1;
  if (a.micros !== b.micros) return sign * (a.micros - b.micros);
  return sign * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Runs a checked query: asks each table for a page, then merges them. A table that stopped
 * early (page full, or a payload scan at its bound) stops the merged page at its horizon, since
 * rows beyond it were not looked at; the cursor continues from there.
 */
export async function queryJobs(
  store: Pick<Store, 'operator'>,
  query: CheckedQuery,
): Promise<JobPage> {
  const pages = await Promise.all(
    query.tables.map((table): Promise<TablePage> =>
      store.operator.queryTable(table, {
        ...query.base,
        limit: query.limit,
        ...(query.after ? { after: query.after } : {}),
      }),
    ),
  );
  const order = query.base.order;
  let horizon: SortPosition | null = null;
  for (const page of pages) {
    if (page.horizon && (!horizon || compareIn(order, page.horizon, horizon) < 0))
      horizon = page.horizon;
  }
  const merged = pages
    .flatMap((page) => page.rows)
    .filter((row) => !horizon || compareIn(order, row.position, horizon) <= 0)
    .sort((a, b) => compareIn(order, a.position, b.position));
  const taken = merged.slice(0, query.limit);
  const last = taken.at(-1);
  const more = merged.length > taken.length || horizon !== null;
  let next: SortPosition | null = null;
  if (more) next = taken.length === query.limit && last ? last.position : horizon;
  return {
    jobs: taken.map((row) => row.job),
    nextCursor: next ? encodeCursor(next, query.signature) : null,
    scan:
      query.base.payload === undefined
        ? null
        : {
            rowsPerTable: query.base.scanLimit,
            complete: pages.every((page) => !page.truncated),
          },
  };
}

/** Counts the jobs a checked query matches, over every table it asks. */
export async function countJobs(
  store: Pick<Store, 'operator'>,
  query: CheckedQuery,
): Promise<JobCount> {
  const counts = await Promise.all(
    query.tables.map((table: JobTable) =>
      store.operator.countTable(table, { ...query.base, limit: 1 }),
    ),
  );
  return {
    count: counts.reduce((sum, c) => sum + c.count, 0),
    exact: counts.every((c) => c.exact),
  };
}

/** A job's detail, or `null` when no table holds it. */
export async function jobDetail(
  store: Pick<Store, 'operator' | 'workflows' | 'steps' | 'cluster' | 'batches'>,
  id: string,
): Promise<JobDetail | null> {
  const found = await store.operator.getJob(id);
  if (found === null) return null;
  const runs = timelineOf(found);
  const runsKept = runs.filter((entry) => entry.kind === 'run').length;
  const runsNotKept = Math.max(0, found.job.attempts + found.job.lostAttempts - runsKept);
  const [dependencies, dependents, records, now, batch] = await Promise.all([
    store.workflows.dependencies(id),
    store.workflows.dependents(id, MAX_DEPENDENTS),
    store.steps.list(id),
    store.cluster.now(),
    store.batches.ofJob(id),
  ]);
  const steps = records.map((record) => jobStepOf(record, now));
  const timeline = withSteps(runs, steps);
  return {
    state: stateOf(found),
    found,
    timeline,
    runsNotKept,
    dependencies,
    dependents,
    steps,
    batch,
  };
}
