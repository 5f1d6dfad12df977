/**
 * The storage half of the operator query: one table's page of a checked query. The operator layer
 * (`operator/query.ts`) checks the user's filter, runs it against each table the states name and
 * merges the pages; providers only filter, sort and page one table, the same way.
 */
import type { FailureReason, HotState } from '../job/state.js';
import type { DeadJob, JobSummary } from './model.js';

/** The three tables a job can be in. */
export type JobTable = 'hot' | 'archive' | 'dlq';

/** Sort keys of the operator query, an allow-list: each has an index in every table it applies to. */
export type JobSortKey = 'createdAt' | 'finishedAt';

/**
 * A position in a sort order: the sort time in whole microseconds since the epoch (PostgreSQL's
 * precision; exact in a double until the year 2255) and the id that breaks ties.
 */
export interface SortPosition {
  micros: number;
  id: string;
}

/** A checked query against one table. Absent filters do not filter. */
export interface TableQuery {
  /** Hot table only: these states. */
  states?: readonly HotState[];
  queues?: readonly string[];
  types?: readonly string[];
  /** Every one of these tags (tags are the comma-separated parts of `tags`, trimmed). */
  tags?: readonly string[];
  createdFrom?: Date;
  createdTo?: Date;
  finishedFrom?: Date;
  finishedTo?: Date;
  /** DLQ only. */
  reasons?: readonly FailureReason[];
  /** DLQ only. */
  fingerprint?: string;
  /** Every word must occur in the error (DLQ error, hot last error), case-insensitive. */
  errorWords?: readonly string[];
  attemptsMin?: number;
  attemptsMax?: number;
  idPrefix?: string;
  /** JSON the payload must contain (as PostgreSQL's `@>`), serialized; a bounded scan. */
  payload?: string;
  sort: JobSortKey;
  order: 'asc' | 'desc';
  /** Only these ids. */
  ids?: readonly string[];
  /** Rows strictly after this position in the order. */
  after?: SortPosition;
  /** Most rows to return. */
  limit: number;
  /** With `payload`: most rows examined before the scan stops. */
  scanLimit: number;
}

/** One table's answer to a {@link TableQuery}. */
export interface TablePage {
  /** Matching rows in order, at most `limit`, each with its sort position and version. */
  rows: { job: JobSummary; position: SortPosition; version: number }[];
  /**
   * `null` when the table has no more matching rows after `rows`; otherwise the position up to
   * which it was examined (the last row returned, or the last row a payload scan looked at).
   */
  horizon: SortPosition | null;
  /** `true` when a payload scan stopped at `scanLimit` rows before the page was full. */
  truncated: boolean;
}

/** A count of one table's rows matching a {@link TableQuery}. */
export interface TableCount {
  count: number;
  /** `false` when `count` is an estimate (past the exact-count bound, or a bounded scan). */
  exact: boolean;
}

/** First line of an error text, cut to 200 characters: the error column of a job list. */
export function errorHeadline(text: string | null): string | null {
  if (text === null) return null;
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * A DLQ row's version: when it was last changed (edited in place, else failed), in microseconds
 * since the epoch. A bulk action snapshots it and moves the job only while it is unchanged; hot
 * and archived rows have version 0 (cancel needs no version: it acts on whatever state is there).
 */
export function deadVersion(job: Pick<DeadJob, 'failedAt' | 'editedAt'>): number {
  return (job.editedAt ?? job.failedAt).getTime() * 1000;
}

/** Rows counted exactly before a count becomes an estimate. */
export const EXACT_COUNT_LIMIT = 10_000;
