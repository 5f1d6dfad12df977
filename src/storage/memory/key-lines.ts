/**
 * Concurrency keys in the memory claim, as in claim.sql: in a queue holding pending jobs with a
 * concurrency key, each key is a line; a job's turn is its key's fetched + processing jobs plus
 * its place in the line, and a key takes no more jobs than its limit (the limit of its next
 * pending job) leaves room for. Jobs without a key form one line of their own (no limit).
 *
 * @internal
 */
import type { HotJob } from '../model.js';
import type { Tables } from './tables.js';

/** A job the claim may take, with its turn (1 in a queue without keys). */
export interface Candidate {
  row: HotJob;
  turn: number;
}

/** The line a row stands in: `queue`, NUL, key (or nothing for the line of unkeyed jobs). */
function lineOf(row: HotJob): string {
  return row.concurrencyKey === null
    ? `${row.queue}\u0000`
    : `${row.queue}\u0000${row.concurrencyKey}\u0001`;
}

/** What the claim needs to know of keyed queues, read once per claim. */
export interface KeyState {
  /** Queues holding pending jobs with a concurrency key. */
  keyedQueues: Set<string>;
  /** Fetched + processing jobs per keyed line. */
  busy: Map<string, number>;
  /** The limit of each key's next pending job in claim order (`null`: none). */
  limits: Map<string, number | null>;
}

/** Reads the {@link KeyState} of `tables`; `order` is the claim order. */
export function readKeyState(tables: Tables, order: (a: HotJob, b: HotJob) => number): KeyState {
  const keyedQueues = new Set<string>();
  const busy = new Map<string, number>();
  const heads = new Map<string, HotJob>();
  for (const row of tables.hot.values()) {
    // Scheduled rows are no part of a line until the promoter makes them pending (as in SQL,
    // where the keyed fetch indexes hold pending rows only).
    if (row.concurrencyKey === null || row.state === 'scheduled') continue;
    const line = lineOf(row);
    if (row.state !== 'pending') {
      busy.set(line, (busy.get(line) ?? 0) + 1);
      continue;
    }
    keyedQueues.add(row.queue);
    const head = heads.get(line);
    if (head === undefined || order(row, head) < 0) heads.set(line, row);
  }
  const limits = new Map([...heads].map(([line, head]) => [line, head.concurrencyLimit]));
  return { keyedQueues, busy, limits };
}

/**
 * The candidates of one keyed queue: `eligible` (its claimable rows, in claim order) given
 * their turns, leaving out the jobs past their key's limit.
 */
export function takeTurns(state: KeyState, eligible: readonly HotJob[]): Candidate[] {
  const taken = new Map<string, number>();
  const candidates: Candidate[] = [];
  for (const row of eligible) {
    const line = lineOf(row);
    const place = (taken.get(line) ?? 0) + 1;
    const turn = (state.busy.get(line) ?? 0) + place;
    const limit = row.concurrencyKey === null ? null : (state.limits.get(line) ?? null);
    if (limit !== null && turn > limit) continue;
    taken.set(line, place);
    candidates.push({ row, turn });
  }
  return candidates;
}
