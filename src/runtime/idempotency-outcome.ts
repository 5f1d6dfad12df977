/**
 * The outcomes of the idempotency middleware, kept in the runtime (below the middleware) so that
 * the runtime's events and run context can name them.
 */

/** What the middleware did with one run, reported to its `onOutcome` option and as the `idempotency:outcome` event. */
export type IdempotencyOutcome =
  /** The key function gave no key: the handler ran without a claim. */
  | 'not_idempotent'
  /** The run claimed the key (or already held it from an earlier attempt) and is about to run. */
  | 'claimed'
  /** The handler succeeded and the completion was recorded. */
  | 'completed'
  /** The key was already completed: the handler was skipped and the job archived as a duplicate. */
  | 'completed_duplicate'
  /** Another job holds the key: this run was deferred with a `ThrottledError`. */
  | 'in_progress_duplicate'
  /** The handler threw: the claim was dropped so a retry (or another job) can claim it. */
  | 'released'
  /** The handler succeeded but the claim was no longer this job's (it expired): nothing recorded. */
  | 'complete_conflict';
