/**
 * Stable error codes thrown by ChokaQ. Each is part of the public contract: match on `error.code`,
 * never on the message.
 */
export const ERROR_CODES = {
  CHOKAQ_INVALID_DURATION: 'A duration option could not be parsed.',
  CHOKAQ_INVALID_CONFIG: 'An option passed to ChokaQ, a job definition or a provider is invalid.',
  CHOKAQ_UNKNOWN_OPTION:
    'An options object has a key ChokaQ does not know (a typo such as `concurency`).',
  CHOKAQ_INVALID_ARGUMENT:
    'An argument of a call (an id list, a limit, a date, a delay) has the wrong type or is out of range.',
  CHOKAQ_INVALID_FILTER:
    'A query filter names a value that does not exist (an unknown state or failure reason) or is malformed.',
  CHOKAQ_INVALID_CURSOR:
    'A page cursor is malformed, or belongs to a different filter or sort order.',
  CHOKAQ_BULK_TOO_LARGE:
    'A bulk action selects more jobs than one action may take (100,000); narrow its filter.',
  CHOKAQ_BULK_CONFIRMATION:
    'A bulk action confirmation token is malformed, does not match its preview, has expired, or its action already ran.',
  CHOKAQ_INVALID_QUEUE:
    'A queue name is blank, too long or has characters outside [A-Za-z0-9_.:-].',
  CHOKAQ_INVALID_JOB_TYPE: 'A job type key is blank or too long.',
  CHOKAQ_INVALID_JOB_ID: 'A job id is blank or longer than 50 characters.',
  CHOKAQ_INVALID_IDEMPOTENCY_KEY: 'An idempotency key is longer than 255 characters.',
  CHOKAQ_INVALID_PRIORITY: 'A priority is not a 32-bit integer.',
  CHOKAQ_INVALID_CONCURRENCY_KEY:
    'A concurrency key is blank, longer than 255 characters, or neither a string nor an integer.',
  CHOKAQ_INVALID_ENVELOPE: 'createdBy or tags exceed their limits.',
  CHOKAQ_PAYLOAD_TOO_LARGE: 'The serialized payload exceeds maxPayloadBytes.',
  CHOKAQ_PAYLOAD_INVALID: 'The payload failed its job schema, or cannot be serialized to JSON.',
  CHOKAQ_UNKNOWN_JOB_TYPE: 'No job definition is registered for a type key.',
  CHOKAQ_DUPLICATE_JOB_TYPE: 'Two job definitions use the same type key.',
  CHOKAQ_DUPLICATE_JOB_ID: 'A job with this id is already active.',
  CHOKAQ_UNKNOWN_DEPENDENCY:
    'A dependsOn names a job that is not hot, archived or dead (never enqueued, or purged).',
  CHOKAQ_DEPENDENCY_CYCLE:
    'The dependencies of an enqueue form a cycle (a job that waits, directly or not, for itself).',
  CHOKAQ_INVALID_BATCH_RESULT:
    'A batch handler returned something other than nothing or one outcome per job, in order; every job of that batch failed (and retries).',
  CHOKAQ_NO_HANDLER:
    'A job was claimed but neither a job definition nor a pipe handler can run it.',
  CHOKAQ_STORAGE_UNAVAILABLE: 'The storage could not be reached; the call is safe to retry.',
  CHOKAQ_STORAGE_TIMEOUT:
    'A statement ran past statementTimeout, waited past lockTimeout, or its transaction sat idle past idleInTransactionTimeout; nothing of it was kept, and the call is safe to retry.',
  CHOKAQ_STORAGE_ERROR: 'The storage failed in an unexpected way; the driver error is the `cause`.',
  CHOKAQ_STORAGE_LOCKED: 'The embedded data directory is in use by another process.',
  CHOKAQ_MIGRATION_FAILED:
    'Applying the schema migrations failed; nothing of that migration was kept.',
  CHOKAQ_SCHEMA_NOT_MIGRATED:
    "A store opened with `migrate: 'check'` found its schema missing or behind this release's migrations; nothing was created.",
  CHOKAQ_NOT_STARTED: 'The operation needs a started ChokaQ (call start() first).',
  CHOKAQ_STOPPED: 'ChokaQ was stopped; create a new instance to continue.',
  CHOKAQ_INVALID_SCHEDULE:
    'A schedule is invalid: a cron expression that does not parse or never fires, an unknown time zone, an interval under one second, or a payload function that throws.',
  CHOKAQ_SCHEDULE_NOT_FOUND: 'No schedule has this name.',
  CHOKAQ_INTERNAL_QUEUE:
    "A queue of ChokaQ's own (chokaq.*, such as chokaq.operator, which runs bulk actions) cannot be paused or deactivated.",
  CHOKAQ_TRANSACTION_UNSUPPORTED:
    'Enqueue (or a step) with a caller transaction is only possible on PostgreSQL storage.',
  CHOKAQ_STEP_RECORDED:
    "A transactional step's name was recorded already by another run of the job; the step's record failed, so the caller's transaction cannot commit.",
  CHOKAQ_STEP_REPEATED:
    'A run called two steps (step, sleep or waitForEvent) with one name; step names are unique within a job.',
  CHOKAQ_STEP_CHANGED:
    'A step name is recorded as another kind (a step that is now a sleep, …): the handler changed its steps incompatibly (docs/workflows.md, changing steps).',
  CHOKAQ_STEP_RESULT_INVALID:
    "A step's result cannot be serialized to JSON, or is larger than maxPayloadBytes.",
  CHOKAQ_JOB_NOT_ACTIVE:
    'An event was sent to a job that is not active (finished, dead, purged or never enqueued): no wait could take it.',
} as const;

/** One of the stable codes in {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Base class of every error ChokaQ throws itself. */
export class ChokaQError extends Error {
  /** Stable code from {@link ERROR_CODES}. */
  readonly code: ErrorCode;
  /** Whether repeating the same call later may succeed (storage outages, lock contention). */
  readonly retryable: boolean;
  /**
   * Path of the offending input, such as `concurrency`, `items[3].priority` or
   * `queues.emails.maxWorkers`, when the error is about one input; else `undefined`.
   */
  readonly field: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options?: { cause?: unknown; retryable?: boolean; field?: string },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ChokaQError';
    this.code = code;
    this.retryable = options?.retryable ?? false;
    this.field = options?.field;
  }
}
