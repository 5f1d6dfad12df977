/**
 * The bounded job history, as the memory provider keeps it; the SQL statements that move rows
 * build the same entries inline (`jsonb_path_query_array(…, '$[last - 19 to last]')`), and the
 * conformance suite holds both to the same shape and bound.
 */
import {
  MAX_HISTORY,
  MAX_HISTORY_ERROR,
  type HistoryEntry,
  type HistoryRun,
  type HotJob,
} from './model.js';

/** `history` with `entries` appended, keeping the last {@link MAX_HISTORY}. */
export function appendHistory(
  history: readonly HistoryEntry[],
  ...entries: HistoryEntry[]
): HistoryEntry[] {
  return [...history, ...entries].slice(-MAX_HISTORY);
}

/** The history entry of the run `row` is ending now, its error cut to {@link MAX_HISTORY_ERROR}. */
export function runEntry(
  row: Pick<HotJob, 'attempts' | 'startedAt' | 'workerId'>,
  endedAt: Date,
  outcome: HistoryRun['outcome'],
  error: string | null,
): HistoryRun {
  return {
    kind: 'run',
    attempt: row.attempts,
    startedAt: row.startedAt === null ? null : new Date(row.startedAt),
    endedAt: new Date(endedAt),
    workerId: row.workerId,
    outcome,
    error: error === null ? null : error.slice(0, MAX_HISTORY_ERROR),
  };
}

/** A deep copy of a history, so stored entries are never shared with callers. */
export function copyHistory(history: readonly HistoryEntry[]): HistoryEntry[] {
  return history.map((entry) =>
    entry.kind === 'run'
      ? {
          ...entry,
          startedAt: entry.startedAt === null ? null : new Date(entry.startedAt),
          endedAt: new Date(entry.endedAt),
        }
      : { ...entry, at: new Date(entry.at) },
  );
}
