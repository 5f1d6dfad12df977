/**
 * The job state machine as data. Hot rows are `awaiting` (their dependencies), `scheduled` (due
 * later), `pending` (due, waiting for a worker), `fetched` or `processing`; a finished job lives
 * in the archive (`succeeded`), a terminal failure in the dead-letter queue (`dead`).
 * docs/state-machine.md draws the same table.
 */

/** Where a job is: the five hot states, the archive or the DLQ. */
export type JobState =
  'awaiting' | 'scheduled' | 'pending' | 'fetched' | 'processing' | 'succeeded' | 'dead';

/** States of a row in the hot table. */
export type HotState = 'awaiting' | 'scheduled' | 'pending' | 'fetched' | 'processing';

/**
 * Integer codes of the hot states as stored in `jobs_hot.status`. `scheduled` (schema 21) and
 * `awaiting` (schema 23) came last, so the older codes kept their values.
 */
export const HOT_STATE_CODE: Record<HotState, number> = {
  pending: 0,
  fetched: 1,
  processing: 2,
  scheduled: 3,
  awaiting: 4,
};

/** Reverse of {@link HOT_STATE_CODE}. */
export const HOT_STATE_BY_CODE: readonly HotState[] = [
  'pending',
  'fetched',
  'processing',
  'scheduled',
  'awaiting',
];

/** The hot states of a job waiting for a worker or for its time (not claimed). */
export const WAITING_STATES: readonly HotState[] = ['scheduled', 'pending'];

/** Whether a hot state is one of a claimed job (fetched or processing). */
export function isActiveState(state: HotState): boolean {
  return state === 'fetched' || state === 'processing';
}

/**
 * Why a job is in the DLQ. Codes follow the original system so old rows stay readable; the codes
 * 0, 3 and 4 are reserved and never produced.
 */
export const FAILURE_REASON_CODE = {
  Cancelled: 1,
  Zombie: 2,
  Throttled: 5,
  Fatal: 6,
  Timeout: 7,
  Transient: 8,
  HeartbeatFailure: 9,
  RetryLifetimeExpired: 10,
  DependencyFailed: 11,
} as const;

/** Name of a DLQ failure reason. */
export type FailureReason = keyof typeof FAILURE_REASON_CODE;

/** Looks up the {@link FailureReason} of a stored code; unknown codes read as `Fatal`. */
export function failureReasonOf(code: number): FailureReason {
  for (const [name, value] of Object.entries(FAILURE_REASON_CODE)) {
    if (value === code) return name as FailureReason;
  }
  return 'Fatal';
}

/** Who may perform a transition. */
export type Actor = 'producer' | 'worker' | 'recovery' | 'operator';

/** One allowed transition of the state machine. */
export interface Transition {
  /** The state before; `null`: the job did not exist. */
  readonly from: JobState | null;
  /** The state after; `null`: the row is deleted for good (purge). */
  readonly to: JobState | null;
  readonly actor: Actor;
  readonly trigger: string;
}

/**
 * Every transition ChokaQ performs; anything else is a bug. The storage conformance suite
 * watches every store call and fails on a state change this table does not list for the call's
 * actor (test/conformance/transition-check.ts).
 */
export const TRANSITIONS: readonly Transition[] = [
  { from: null, to: 'pending', actor: 'producer', trigger: 'enqueue (due now)' },
  { from: null, to: 'scheduled', actor: 'producer', trigger: 'enqueue (due later)' },
  {
    from: null,
    to: 'awaiting',
    actor: 'producer',
    trigger:
      'enqueue with dependencies; a batch callback job (enqueueBatch), until its batch fires it',
  },
  {
    from: null,
    to: 'dead',
    actor: 'producer',
    trigger: 'enqueue with a dependency already dead under `fail` (reason DependencyFailed)',
  },
  // The resolver decides an awaiting job in the call that moved its dependency out of the hot
  // table (a worker's settle, a rescue, an operator's cancel) or in its own pass (recovery).
  ...(['worker', 'recovery', 'operator'] as const).flatMap((actor): Transition[] => [
    {
      from: 'awaiting',
      to: 'pending',
      actor,
      trigger:
        'its dependencies finished (or one died under `continue`); a batch callback: its batch fired it',
    },
    { from: 'awaiting', to: 'scheduled', actor, trigger: 'as above, before its delay passed' },
    {
      from: 'awaiting',
      to: 'dead',
      actor,
      trigger: 'a dependency died under `fail` (reason DependencyFailed)',
    },
  ]),
  { from: 'awaiting', to: 'dead', actor: 'operator', trigger: 'cancel' },
  // A batch's callback job (docs/workflows.md, "Batches") is enqueued awaiting and made due by
  // the move of the member that makes it due: a worker's settle, a rescue, an operator's cancel
  // (the awaiting → pending/scheduled lines above, for those actors).
  {
    from: 'awaiting',
    to: null,
    actor: 'recovery',
    trigger: 'retention of a done batch: a callback that can never fire (e.g. onDeath, none died)',
  },
  {
    from: 'dead',
    to: 'awaiting',
    actor: 'operator',
    trigger: 'resurrect of a job it died (DependencyFailed) waiting for: the workflow resumes',
  },
  {
    from: 'scheduled',
    to: 'pending',
    actor: 'producer',
    trigger: 'an event sent to a job suspended in a wait for its topic (sendEvent)',
  },
  {
    from: 'scheduled',
    to: 'pending',
    actor: 'recovery',
    trigger: 'promotion: the due time came (the promoter every worker process runs)',
  },
  {
    from: 'pending',
    to: 'fetched',
    actor: 'worker',
    trigger: 'claim; a settle that hands a freed capped slot to its worker',
  },
  {
    from: 'fetched',
    to: 'processing',
    actor: 'worker',
    trigger: 'start recorded (with the next settle round, or first with strictStart)',
  },
  {
    from: 'fetched',
    to: 'succeeded',
    actor: 'worker',
    trigger: 'handler succeeded within the round that records its start (attempts + 1)',
  },
  { from: 'fetched', to: 'pending', actor: 'worker', trigger: 'release (paused queue, shutdown)' },
  {
    from: 'fetched',
    to: 'scheduled',
    actor: 'worker',
    trigger: 'circuit open (delayed, no attempt used); a durable sleep or event wait',
  },
  { from: 'fetched', to: 'dead', actor: 'worker', trigger: 'circuit open past the retry lifetime' },
  { from: 'processing', to: 'succeeded', actor: 'worker', trigger: 'handler succeeded' },
  {
    from: 'processing',
    to: null,
    actor: 'worker',
    trigger: 'handler succeeded, in a queue or of a type that keeps no succeeded rows (counted)',
  },
  {
    from: 'fetched',
    to: null,
    actor: 'worker',
    trigger: 'as the line above, within the round that records its start',
  },
  {
    from: 'processing',
    to: 'scheduled',
    actor: 'worker',
    trigger:
      'retryable failure, or a rate-limited run (delayed); a durable sleep or event wait (run refunded)',
  },
  {
    from: 'processing',
    to: 'pending',
    actor: 'worker',
    trigger: 'retryable failure without delay; shutdown abort (run refunded)',
  },
  {
    from: 'processing',
    to: 'dead',
    actor: 'worker',
    trigger: 'fatal, exhausted, expired, timeout or cancelled',
  },
  { from: 'fetched', to: 'pending', actor: 'recovery', trigger: 'stale claim released' },
  {
    from: 'processing',
    to: 'dead',
    actor: 'recovery',
    trigger: 'zombie (heartbeat expired), or a lost run with a cancel request',
  },
  {
    from: 'processing',
    to: 'pending',
    actor: 'recovery',
    trigger: 'zombie of an opted-in type (run refunded)',
  },
  {
    from: 'pending',
    to: 'dead',
    actor: 'recovery',
    trigger: 'cancel request of a job no longer running',
  },
  {
    from: 'scheduled',
    to: 'dead',
    actor: 'recovery',
    trigger: 'cancel request of a job no longer running',
  },
  {
    from: 'fetched',
    to: 'dead',
    actor: 'recovery',
    trigger: 'cancel request of a job no longer running',
  },
  { from: 'pending', to: 'dead', actor: 'operator', trigger: 'cancel' },
  { from: 'scheduled', to: 'dead', actor: 'operator', trigger: 'cancel' },
  { from: 'fetched', to: 'dead', actor: 'operator', trigger: 'cancel' },
  { from: 'dead', to: 'pending', actor: 'operator', trigger: 'resurrect' },
  {
    from: 'pending',
    to: 'pending',
    actor: 'operator',
    trigger: 'edit payload, tags, priority or run-at',
  },
  {
    from: 'scheduled',
    to: 'scheduled',
    actor: 'operator',
    trigger: 'edit payload, tags, priority or run-at',
  },
  { from: 'pending', to: 'scheduled', actor: 'operator', trigger: 'edit: run-at later' },
  { from: 'scheduled', to: 'pending', actor: 'operator', trigger: 'edit: run-at now' },
  { from: 'dead', to: 'dead', actor: 'operator', trigger: 'edit payload or tags in place' },
  { from: 'dead', to: null, actor: 'operator', trigger: 'purge' },
];

/** Whether `actor` may move a job from `from` to `to`. */
export function canTransition(from: JobState | null, to: JobState | null, actor: Actor): boolean {
  return TRANSITIONS.some((t) => t.from === from && t.to === to && t.actor === actor);
}
