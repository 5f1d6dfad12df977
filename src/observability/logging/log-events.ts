/**
 * The stable events of ChokaQ's log records: every record the engine writes carries `event` (a
 * name) and `eventId` (a number) from this table, so alerts and dashboards can match on them.
 * Ids follow the ranges of the original system (SPEC Appendix B): 1000 worker, 2000 job runs,
 * 2100 notifications and events, 4000 recovery, retention and schedules, 5000 storage, 6000
 * operator actions (6100 The Deck), 7000 idempotency. An id is never reused or renumbered;
 * docs/observability.md lists
 * them and a test pins the table.
 */
export const LOG_EVENTS = {
  WorkerStarted: 1000,
  WorkerStopped: 1001,
  WorkerLoopCrashed: 1002,
  PrefetchedJobReleaseFailed: 1011,
  WorkerShutdownTimedOut: 1015,
  ProcessingTaskDrainTimedOut: 1016,
  ClaimFailed: 1020,
  PausedQueuesReadFailed: 1021,
  WakeupsUnavailable: 1022,
  JobExecutionLeaseRejected: 2002,
  JobHeartbeatWriteFailed: 2006,
  JobHeartbeatThresholdReached: 2007,
  JobHeartbeatDegraded: 2008,
  JobHeartbeatLeaseLost: 2009,
  JobStartFailed: 2010,
  JobHandlerAbandoned: 2011,
  JobLateResultDiscarded: 2012,
  JobResultNotSerializable: 2013,
  JobResultTooLarge: 2014,
  JobSettleFailed: 2015,
  SettleBatchSplit: 2016,
  SettleRetried: 2017,
  JobStartLeaseLost: 2018,
  JobDeadLettered: 2020,
  RateBucketBlockFailed: 2030,
  StateTransitionNotApplied: 2100,
  NotificationFailed: 2110,
  ListenUnavailable: 2111,
  ListenLost: 2112,
  ListenRetryFailed: 2113,
  EventListenerFailed: 2114,
  StoreListenerFailed: 2115,
  ClusterEventsNotSent: 2116,
  ClusterQueuesNotReread: 2117,
  LiveControlNotApplied: 2118,
  AbandonedJobsRecovered: 4001,
  ZombieJobsArchived: 4002,
  ZombieRescueCycleFailed: 4003,
  JobsPromoted: 4005,
  PromotionFailed: 4006,
  DependentsNotResolved: 4007,
  ResolverPassFailed: 4008,
  RetentionPurged: 4010,
  RetentionPassFailed: 4011,
  SchedulerPassFailed: 4020,
  ScheduleTickFailed: 4021,
  ScheduleTicksMissed: 4022,
  SqlInitializationCompleted: 5001,
  CappedQueuesReadFailed: 5010,
  LockConflictRetried: 5011,
  VacuumFailed: 5012,
  IdleConnectionFailed: 5013,
  AuditEntryNotRecorded: 6002,
  DeckFeedReadFailed: 6100,
  DeckRequestFailed: 6101,
  IdempotencyOutcomeCallbackFailed: 7000,
  IdempotencyReleaseFailed: 7001,
  IdempotencyCompletionFailed: 7002,
  IdempotencyClaimLost: 7003,
} as const;

/** The name of a log event. */
export type LogEvent = keyof typeof LOG_EVENTS;

/** The fields naming a record's event, to spread into its meta: `{ event, eventId }`. */
export function logEvent(event: LogEvent): { event: LogEvent; eventId: number } {
  return { event, eventId: LOG_EVENTS[event] };
}
