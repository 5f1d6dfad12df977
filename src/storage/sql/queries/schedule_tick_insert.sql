-- Purpose: record a fired tick under its unique (schedule, tick time) key.
-- Parameters:
--   $1 schedule: text — the schedule's name
--   $2 tickAt: timestamptz — the tick's time
--   $3 manual: boolean — whether it was fired by hand
--   $4 outcome: text — enqueued, skipped or failed
--   $5 jobId: text or NULL — the job enqueued
--   $6 error: text or NULL — why it failed or was skipped
--   $7 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the new row; a concurrent insert of the same key waits for this one, then conflicts.
-- Returns: one row when inserted, none when the tick was already fired.
INSERT INTO :SCHEMA.schedule_ticks (schedule, tick_at, fired_at, manual, outcome, job_id, error)
VALUES ($1::text, $2::timestamptz, :NOW, $3::boolean, $4::text, $5::text, $6::text)
ON CONFLICT (schedule, tick_at) DO NOTHING
RETURNING tick_at
