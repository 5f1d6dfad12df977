-- ChokaQ schema, version 2: reliability. Refunded ("lost") runs, persisted cancel requests,
-- archive notes, and the partial indexes behind the rescue scans.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.

-- Runs lost through no fault of the handler (shutdown abort, zombie retried); never counted
-- against maxAttempts. Carried into the archive and the DLQ when the job leaves the hot table.
ALTER TABLE :SCHEMA.jobs_hot
  ADD COLUMN IF NOT EXISTS lost_attempts integer NOT NULL DEFAULT 0,
  -- An operator's cancel request on a processing job; the owner sees it at its next heartbeat.
  ADD COLUMN IF NOT EXISTS cancel_requested_at timestamptz,
  ADD COLUMN IF NOT EXISTS cancel_requested_by varchar(100);

ALTER TABLE :SCHEMA.jobs_archive
  ADD COLUMN IF NOT EXISTS lost_attempts integer NOT NULL DEFAULT 0,
  -- Why the handler was skipped (for example an idempotency duplicate).
  ADD COLUMN IF NOT EXISTS note text;

ALTER TABLE :SCHEMA.jobs_dlq
  ADD COLUMN IF NOT EXISTS lost_attempts integer NOT NULL DEFAULT 0;

-- Rescue (a): fetched rows not touched for a while, oldest first.
CREATE INDEX IF NOT EXISTS jobs_hot_fetched_idx
  ON :SCHEMA.jobs_hot (updated_at) WHERE status = 1;
-- Rescue (b): processing rows by last sign of life. The expression is exactly the one
-- rescue_pick_zombies.sql compares (updated_at is NOT NULL, so the key is never NULL).
CREATE INDEX IF NOT EXISTS jobs_hot_alive_idx
  ON :SCHEMA.jobs_hot ((coalesce(heartbeat_at, started_at, updated_at))) WHERE status = 2;
-- Rescue (c): the few rows that carry a cancel request.
CREATE INDEX IF NOT EXISTS jobs_hot_cancel_idx
  ON :SCHEMA.jobs_hot (id) WHERE cancel_requested_at IS NOT NULL;
