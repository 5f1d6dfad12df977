/**
 * The operator query against one table of the memory provider: the same filters, order, keyset
 * and bounded payload scan as the SQL statement of `sql/job-query.ts`.
 *
 * @internal
 */
import {
  deadVersion,
  errorHeadline as headline,
  type JobTable,
  type SortPosition,
  type TableCount,
  type TablePage,
  type TableQuery,
} from '../job-query.js';
import type { ArchivedJob, DeadJob, HotJob, JobSummary } from '../model.js';
import type { Tables } from './tables.js';

/** A stored row with what the query needs of it. */
interface Candidate {
  job: JobSummary;
  position: SortPosition;
  version: number;
  tags: string | null;
  errorText: string | null;
  payload: string;
}

function fromHot(row: HotJob): Omit<Candidate, 'position' | 'version'> {
  return {
    job: {
      id: row.id,
      state: row.state,
      queue: row.queue,
      type: row.type,
      tags: row.tags,
      priority: row.priority,
      attempts: row.attempts,
      createdAt: new Date(row.createdAt),
      runAt: new Date(row.runAt),
      startedAt: row.startedAt && new Date(row.startedAt),
      finishedAt: null,
      reason: null,
      error: headline(row.lastError),
      fingerprint: null,
      workerId: row.workerId,
      progress: row.progress,
      concurrencyKey: row.concurrencyKey,
    },
    tags: row.tags,
    errorText: row.lastError,
    payload: row.payload,
  };
}

function fromArchive(row: ArchivedJob): Omit<Candidate, 'position' | 'version'> {
  return {
    job: {
      id: row.id,
      state: 'succeeded',
      queue: row.queue,
      type: row.type,
      tags: row.tags,
      priority: null,
      attempts: row.attempts,
      createdAt: new Date(row.createdAt),
      runAt: null,
      startedAt: row.startedAt && new Date(row.startedAt),
      finishedAt: new Date(row.finishedAt),
      reason: null,
      error: null,
      fingerprint: null,
      workerId: row.workerId,
      progress: null,
      concurrencyKey: row.concurrencyKey,
    },
    tags: row.tags,
    errorText: null,
    payload: row.payload,
  };
}

function fromDead(row: DeadJob): Omit<Candidate, 'position' | 'version'> {
  return {
    job: {
      id: row.id,
      state: 'dead',
      queue: row.queue,
      type: row.type,
      tags: row.tags,
      priority: null,
      attempts: row.attempts,
      createdAt: new Date(row.createdAt),
      runAt: null,
      startedAt: row.startedAt && new Date(row.startedAt),
      finishedAt: new Date(row.failedAt),
      reason: row.reason,
      error: headline(row.errorDetails),
      fingerprint: row.fingerprint,
      workerId: row.workerId,
      progress: row.progress,
      concurrencyKey: row.concurrencyKey,
    },
    tags: row.tags,
    errorText: row.errorDetails,
    payload: row.payload,
  };
}

/** The tags of a row: its comma-separated parts, trimmed (as the SQL index expression). */
function tagList(tags: string): string[] {
  return tags.trim().split(/\s*,\s*/);
}

/** Lower-case words of a text, split as PostgreSQL's `simple` parser roughly does. */
function words(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean),
  );
}

/** PostgreSQL's `@>` on JSON values: every part of `pattern` occurs in `value`. */
export function jsonContains(value: unknown, pattern: unknown): boolean {
  if (Array.isArray(pattern)) {
    return (
      Array.isArray(value) &&
      pattern.every((part) => value.some((item) => jsonContains(item, part)))
    );
  }
  if (pattern !== null && typeof pattern === 'object') {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
    const object = value as Record<string, unknown>;
    return Object.entries(pattern).every(
      ([key, part]) => key in object && jsonContains(object[key], part),
    );
  }
  return value === pattern;
}

/** Whether a candidate passes every filter of `query` but the payload and the keyset. */
function passes(
  table: JobTable,
  c: Omit<Candidate, 'position' | 'version'>,
  query: TableQuery,
): boolean {
  const job = c.job;
  if (table === 'hot' && query.states && !query.states.includes(job.state as 'pending'))
    return false;
  if (query.queues && !query.queues.includes(job.queue)) return false;
  if (query.types && !query.types.includes(job.type)) return false;
  if (query.tags) {
    const own = c.tags === null ? [] : tagList(c.tags);
    if (!query.tags.every((tag) => own.includes(tag))) return false;
  }
  const created = job.createdAt.getTime();
  if (query.createdFrom && created < query.createdFrom.getTime()) return false;
  if (query.createdTo && created >= query.createdTo.getTime()) return false;
  if (table !== 'hot' && job.finishedAt) {
    const finished = job.finishedAt.getTime();
    if (query.finishedFrom && finished < query.finishedFrom.getTime()) return false;
    if (query.finishedTo && finished >= query.finishedTo.getTime()) return false;
  }
  if (table === 'dlq' && query.reasons && !query.reasons.includes(job.reason ?? 'Fatal'))
    return false;
  if (table === 'dlq' && query.fingerprint !== undefined && job.fingerprint !== query.fingerprint)
    return false;
  if (query.errorWords) {
    const own = words(c.errorText ?? '');
    if (!query.errorWords.every((word) => [...words(word)].every((w) => own.has(w)))) return false;
  }
  if (query.attemptsMin !== undefined && job.attempts < query.attemptsMin) return false;
  if (query.attemptsMax !== undefined && job.attempts > query.attemptsMax) return false;
  if (query.idPrefix !== undefined && !job.id.startsWith(query.idPrefix)) return false;
  if (query.ids !== undefined && !query.ids.includes(job.id)) return false;
  return true;
}

/** Compares two positions in ascending order (time, then id in byte order). */
function compare(a: SortPosition, b: SortPosition): number {
  const byTime = a.micros - b.micros;
  if (byTime !== 0) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Rows of `table` passing the filters (not the payload), in query order, after the keyset. */
function candidates(tables: Tables, table: JobTable, query: TableQuery): Candidate[] {
  const source: Omit<Candidate, 'position' | 'version'>[] =
    table === 'hot'
      ? [...tables.hot.values()].map(fromHot)
      : table === 'archive'
        ? [...tables.archive.values()].map(fromArchive)
        : [...tables.dead.values()].map(fromDead);
  const versions = new Map(
    table === 'dlq'
      ? [...tables.dead.values()].map((row) => [row.id, deadVersion(row)])
      : table === 'hot'
        ? [...tables.hot.keys()].map((id) => [id, tables.hotVersion(id)])
        : [],
  );
  const sign = query.order === 'desc' ? -1 : 1;
  const list = source
    .filter((c) => passes(table, c, query))
    .map((c) => ({
      ...c,
      position: {
        micros:
          (query.sort === 'finishedAt' && c.job.finishedAt
            ? c.job.finishedAt
            : c.job.createdAt
          ).getTime() * 1000,
        id: c.job.id,
      },
      version: versions.get(c.job.id) ?? 0,
    }))
    .filter((c) => query.after === undefined || sign * compare(c.position, query.after) > 0);
  return list.sort((a, b) => sign * compare(a.position, b.position));
}

/** Runs `query` against one table of `tables`. */
export function queryMemoryTable(tables: Tables, table: JobTable, query: TableQuery): TablePage {
  const list = candidates(tables, table, query);
  const toRow = (c: Candidate) => ({ job: c.job, position: c.position, version: c.version });
  if (query.payload === undefined) {
    const rows = list.slice(0, query.limit).map(toRow);
    const last = rows.at(-1);
    const full = rows.length === query.limit && last !== undefined;
    return { rows, horizon: full ? last.position : null, truncated: false };
  }
  const pattern: unknown = JSON.parse(query.payload);
  const scanned = list.slice(0, query.scanLimit);
  const hits = scanned
    .filter((c) => jsonContains(JSON.parse(c.payload), pattern))
    .slice(0, query.limit)
    .map(toRow);
  const lastHit = hits.at(-1);
  if (hits.length === query.limit && lastHit) {
    return { rows: hits, horizon: lastHit.position, truncated: false };
  }
  const tail = scanned.at(-1);
  if (scanned.length < query.scanLimit || tail === undefined) {
    return { rows: hits, horizon: null, truncated: false };
  }
  return { rows: hits, horizon: tail.position, truncated: true };
}

/** Counts the rows of one table matching `query`; always exact but for a bounded payload scan. */
export function countMemoryTable(tables: Tables, table: JobTable, query: TableQuery): TableCount {
  const list = candidates(tables, table, query);
  if (query.payload === undefined) {
    return { count: list.length, exact: true };
  }
  const pattern: unknown = JSON.parse(query.payload);
  const scanned = list.slice(0, query.scanLimit);
  return {
    count: scanned.filter((c) => jsonContains(JSON.parse(c.payload), pattern)).length,
    exact: scanned.length < query.scanLimit,
  };
}
