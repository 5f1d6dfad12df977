export {
  ChokaQ,
  type ActorOptions,
  type CancelOptions,
  type DeadJobEdit,
  type ResurrectOptions,
} from './chokaq.js';
export type {
  EnqueueItem,
  EnqueueManyOptions,
  EnqueueOptions,
  PayloadOf,
} from './enqueue/options.js';
export type { ChokaQOptions, QueueSettings } from './config/options.js';
export type { TelemetryOptions } from './observability/options.js';
export type { MetricsApi } from './observability/metrics/metrics-api.js';
export type { HealthApi, HealthReport } from './observability/health/health-api.js';
export type { CheckResult, HealthStatus } from './observability/health/checks.js';
export type {
  QueueLagCheck,
  StrandedReason,
  StrandedWork,
  SystemHealth,
  WorkerCheck,
} from './observability/health/system.js';
export type { HealthOptions } from './observability/health/options.js';
export type { QueueRetention, RetentionOptions } from './runtime/retention-options.js';
export type { RetentionAges } from './runtime/retention-ages.js';
export type { RetentionApi, RetentionEntry, RetentionPurge } from './operator/retention-api.js';
export type { LiveControlOptions, LiveControls, LiveRetry } from './operator/live-controls.js';
export type { FlowApi } from './operator/flow-api.js';
export type { RetentionTable } from './storage/retention.js';
export type { PayloadFunction, Schedule } from './schedule/definition.js';
export type { RunJobState, ScheduleInfo, ScheduleRun } from './schedule/info.js';
export type {
  ScheduleActorOptions,
  SchedulePatch,
  SchedulesApi,
  TriggerResult,
} from './schedule/schedules-api.js';
export type { MissedPolicy } from './schedule/ticks.js';
export type { ScheduleTick, TickOutcome } from './storage/schedules.js';
export type { CircuitStatus, QueueStatus, Rate, StatusReport } from './operator/status.js';
export type { EngineConfiguration, QueueConfiguration } from './operator/configuration.js';
export type { ErrorGroupTrend } from './operator/group-trend.js';
export type { HttpHandler, HttpRequest, HttpResponse } from './util/http.js';
export type { ArchiveFilter, DeadFilter, ErrorGroupQuery, HotFilter } from './operator/inputs.js';
export type { JobFlowOptions, JobsApi, PendingJobEdit, RerunOptions } from './operator/jobs-api.js';
export { MAX_FLOW_NODES, type JobFlow, type JobFlowNode } from './operator/job-flow.js';
export type { QueuesApi } from './operator/queues-api.js';
export type { DlqApi } from './operator/dlq-api.js';
export type { RerunResult } from './operator/rerun.js';
export type { AuditApi, AuditQuery } from './operator/audit.js';
export type { BulkApi, BulkPreview, BulkSelection } from './operator/bulk.js';
export type {
  BulkActionKind,
  BulkEdit,
  BulkRequest,
  BulkRunOptions,
  BulkTarget,
} from './operator/bulk-input.js';
export type { AuditEntry, BulkAction, BulkSkip, BulkStatus } from './storage/bulk.js';
export type { JobCount, JobDetail, JobPage } from './operator/jobs.js';
export type { DependencyState, WorkflowEdge, WorkflowNode } from './storage/workflow-store.js';
export type { JobQuery, TimeRange } from './operator/query-input.js';
export type { TimelineEntry } from './operator/timeline.js';
export type { JobSortKey } from './storage/job-query.js';
export { ChokaQError, ERROR_CODES, type ErrorCode } from './errors.js';
export { FatalError, RateLimitedError, ThrottledError } from './job/errors.js';
export type { ConcurrencyKeyOption } from './job/concurrency.js';
export type { RateLimitOptions } from './job/rate-limit.js';
export type { RateBucket } from './storage/rate-limits.js';
export {
  defineJob,
  type BatchJobSpec,
  type JobDefinition,
  type JobHandler,
  type JobSpec,
  type JobSpecFields,
  type SingleJobSpec,
} from './job/define-job.js';
export type { EventResult, JobContext, StepOptions, WaitForEventOptions } from './job/context.js';
export type { SendEventResult } from './storage/step-store.js';
export type { DependencyPolicy, JobDependency } from './job/dependencies.js';
export type { Dependency } from './enqueue/dependencies.js';
export type { WorkflowBuilder, WorkflowJobOptions } from './enqueue/workflow-builder.js';
export type {
  BatchBuilder,
  BatchCallbackOptions,
  BatchJobOptions,
} from './enqueue/batch-builder.js';
export type { EnqueueBatchResult } from './enqueue/enqueuer.js';
export type { BatchCallback, BatchCallbackKind, BatchInfo, JobBatch } from './job/batch-info.js';
export type { BatchMembership } from './storage/batch-store.js';
export type { BatchesApi } from './operator/batches-api.js';
export type {
  BatchContext,
  BatchHandler,
  BatchJob,
  BatchOutcome,
  BatchResult,
} from './job/batch.js';
export type { RetryOptions } from './job/retry.js';
export type { FailureReason, HotState, JobState } from './job/state.js';
export type { Middleware } from './runtime/middleware.js';
export type { CircuitPolicy } from './job/circuit-policy.js';
export type { CircuitEvent, CircuitState, CircuitStats } from './runtime/circuit-breaker.js';
export { idempotency, type IdempotencyOptions } from './idempotency/middleware.js';
export type { IdempotencyOutcome } from './runtime/idempotency-outcome.js';
export type { PipeHandler } from './runtime/run-types.js';
export type { ChokaQEventMap, ChokaQEventName, ClusterActivity } from './runtime/events.js';
export type { EngineCounters } from './runtime/counters.js';
export {
  consoleLogger,
  fromPino,
  silentLogger,
  type Logger,
  type LogLevel,
} from './observability/logging/logger.js';
export { memory } from './storage/memory/index.js';
export type {
  ArchivedJob,
  CancelResult,
  DeadJob,
  EnqueueResult,
  ErrorGroup,
  FoundJob,
  HistoryAction,
  HistoryEntry,
  HistoryRun,
  HotJob,
  JobSummary,
  QueueInfo,
  KeyUsage,
  QueueStats,
  DueTypeCount,
  WorkerPresence,
} from './storage/model.js';
export type { ClaimBegin, IdempotencyClaims } from './storage/idempotency.js';
export type { Store } from './storage/store.js';
export type { Duration } from './util/duration.js';
export { FakeClock, systemClock, type Clock } from './util/clock.js';
export type { WorkerModule } from './worker-module.js';
