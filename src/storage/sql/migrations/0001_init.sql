-- ChokaQ schema, version 1: hot table, archive, dead-letter queue, lifetime counters, per-second
-- metric buckets, queue controls and the migration ledger.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
-- Ids and queue names use the "C" collation so ordering is byte order on every server.

CREATE TABLE IF NOT EXISTS :SCHEMA.jobs_hot (
  id varchar(50) COLLATE "C" PRIMARY KEY,
  queue varchar(255) COLLATE "C" NOT NULL,
  type varchar(255) NOT NULL,
  payload text,
  tags varchar(1000),
  idempotency_key varchar(255),
  priority integer NOT NULL DEFAULT 10,
  -- 0 pending, 1 fetched, 2 processing
  status smallint NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),
  attempts integer NOT NULL DEFAULT 0,
  worker_id varchar(100),
  lease_token text,
  run_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  heartbeat_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  created_by varchar(100),
  last_modified_by varchar(100),
  last_error text
) WITH (fillfactor = 80);

-- Claim path: pending rows of a queue in claim order.
CREATE INDEX IF NOT EXISTS jobs_hot_fetch_idx
  ON :SCHEMA.jobs_hot (queue, priority DESC, run_at, id) WHERE status = 0;
-- Idempotency keys are unique among active (hot) jobs only.
CREATE UNIQUE INDEX IF NOT EXISTS jobs_hot_idempotency_idx
  ON :SCHEMA.jobs_hot (idempotency_key) WHERE idempotency_key IS NOT NULL;
-- Per-queue counts and the maxWorkers room check.
CREATE INDEX IF NOT EXISTS jobs_hot_queue_status_idx ON :SCHEMA.jobs_hot (queue, status);

CREATE TABLE IF NOT EXISTS :SCHEMA.jobs_archive (
  id varchar(50) COLLATE "C" PRIMARY KEY,
  queue varchar(255) COLLATE "C" NOT NULL,
  type varchar(255) NOT NULL,
  payload text,
  tags varchar(1000),
  attempts integer NOT NULL DEFAULT 1,
  worker_id varchar(100),
  created_by varchar(100),
  last_modified_by varchar(100),
  created_at timestamptz NOT NULL,
  started_at timestamptz,
  finished_at timestamptz NOT NULL,
  duration_ms double precision
);
CREATE INDEX IF NOT EXISTS jobs_archive_finished_idx ON :SCHEMA.jobs_archive (finished_at DESC);
CREATE INDEX IF NOT EXISTS jobs_archive_queue_idx
  ON :SCHEMA.jobs_archive (queue, finished_at DESC);

CREATE TABLE IF NOT EXISTS :SCHEMA.jobs_dlq (
  id varchar(50) COLLATE "C" PRIMARY KEY,
  queue varchar(255) COLLATE "C" NOT NULL,
  type varchar(255) NOT NULL,
  payload text,
  tags varchar(1000),
  -- FAILURE_REASON_CODE in src/job/state.ts (1 Cancelled, 2 Zombie, 5 Throttled, 6 Fatal,
  -- 7 Timeout, 8 Transient, 9 HeartbeatFailure, 10 RetryLifetimeExpired)
  failure_reason smallint NOT NULL,
  error_details text,
  attempts integer NOT NULL DEFAULT 0,
  worker_id varchar(100),
  created_by varchar(100),
  last_modified_by varchar(100),
  created_at timestamptz NOT NULL,
  failed_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_dlq_failed_idx ON :SCHEMA.jobs_dlq (failed_at DESC);
CREATE INDEX IF NOT EXISTS jobs_dlq_queue_idx ON :SCHEMA.jobs_dlq (queue, failed_at DESC);
CREATE INDEX IF NOT EXISTS jobs_dlq_reason_idx ON :SCHEMA.jobs_dlq (failure_reason, failed_at DESC);

-- Lifetime counters per queue: only ever incremented, by the transaction that moves the rows.
CREATE TABLE IF NOT EXISTS :SCHEMA.stats_summary (
  queue varchar(255) COLLATE "C" PRIMARY KEY,
  succeeded_total bigint NOT NULL DEFAULT 0,
  failed_total bigint NOT NULL DEFAULT 0,
  retried_total bigint NOT NULL DEFAULT 0,
  last_activity_at timestamptz
);

-- Outcomes aggregated per second and queue; outcome 0 succeeded (reason -1), 1 failed.
CREATE TABLE IF NOT EXISTS :SCHEMA.metric_buckets (
  bucket_start timestamptz NOT NULL,
  queue varchar(255) COLLATE "C" NOT NULL,
  outcome smallint NOT NULL CHECK (outcome IN (0, 1)),
  failure_reason smallint NOT NULL,
  completed_count bigint NOT NULL DEFAULT 0 CHECK (completed_count >= 0),
  duration_count bigint NOT NULL DEFAULT 0 CHECK (duration_count >= 0),
  total_duration_ms double precision NOT NULL DEFAULT 0,
  max_duration_ms double precision,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (bucket_start, queue, outcome, failure_reason)
);

-- Runtime controls; a row exists for every queue that ever received a job.
CREATE TABLE IF NOT EXISTS :SCHEMA.queues (
  name varchar(255) COLLATE "C" PRIMARY KEY,
  is_paused boolean NOT NULL DEFAULT false,
  is_active boolean NOT NULL DEFAULT true,
  max_workers integer CHECK (max_workers IS NULL OR max_workers >= 0),
  zombie_timeout_seconds integer CHECK (zombie_timeout_seconds IS NULL OR zombie_timeout_seconds > 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO :SCHEMA.queues (name) VALUES ('default') ON CONFLICT (name) DO NOTHING;

-- Also created by the migrator before the first migration runs (it needs the ledger to start).
CREATE TABLE IF NOT EXISTS :SCHEMA.schema_migrations (
  version integer PRIMARY KEY,
  name varchar(200) NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
