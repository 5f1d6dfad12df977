-- Purpose: lock the hot job an event is sent to, so a run deciding to wait (step_hold.sql) and
--   the send take turns: the wait sees the event, or the send sees the wait.
-- Parameters:
--   $1 id: text — the job
-- Locking: the hot row (FOR UPDATE) until the transaction ends.
-- Returns: the job, or no row when it is not hot.
-- Row: queue text
SELECT queue FROM :SCHEMA.jobs_hot WHERE id = $1 FOR UPDATE
