/**
 * Cardinality budgets of metric tags: each tag family (queue, job type, error class, failure
 * reason) lets a fixed number of distinct values through in this process; later new values are
 * reported as `other`, so a mistake such as a type key per customer cannot flood a metrics
 * backend with series. Budgets are never reset.
 */

/** Reported instead of a value past its family's budget. */
export const OVERFLOW_TAG = 'other';

/** Reported instead of a blank value. */
export const UNKNOWN_TAG = 'unknown';

/** Longest tag value, in characters; longer values are cut. */
export const MAX_TAG_LENGTH = 128;

/** The budget of each tag family: distinct values let through per process. */
export const TAG_BUDGETS = { queue: 100, type: 500, error: 100, reason: 50 } as const;

/** One family's budget. */
export class TagBudget {
  private readonly seen = new Set<string>();

  constructor(private readonly limit: number) {}

  /** The value to report for `raw`: trimmed and cut, `unknown` when blank, `other` past the budget. */
  value(raw: string): string {
    const trimmed = raw.trim();
    if (trimmed === '') return UNKNOWN_TAG;
    const value = trimmed.slice(0, MAX_TAG_LENGTH);
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.limit) return OVERFLOW_TAG;
    this.seen.add(value);
    return value;
  }
}

/** The four families' budgets of one ChokaQ instance. */
export interface TagBudgets {
  queue: TagBudget;
  type: TagBudget;
  error: TagBudget;
  reason: TagBudget;
}

/** Fresh budgets with the limits of {@link TAG_BUDGETS} (or the given ones, for tests). */
export function tagBudgets(limits: Record<keyof TagBudgets, number> = TAG_BUDGETS): TagBudgets {
  return {
    queue: new TagBudget(limits.queue),
    type: new TagBudget(limits.type),
    error: new TagBudget(limits.error),
    reason: new TagBudget(limits.reason),
  };
}
