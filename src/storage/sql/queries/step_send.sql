-- Purpose: keep an event for a job (locked by step_send_hold.sql) and, when the job is
--   scheduled in a wait on the event's topic, make it due now.
-- Parameters:
--   $1 id: text — the job
--   $2 topic: text — the event's topic
--   $3 data: text — JSON text of the event
--   $4 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the new event row; the hot row (held already).
-- Returns: the job's queue when it was woken; no row otherwise.
-- Row: queue text
WITH sent AS (
  INSERT INTO :SCHEMA.job_events (job_id, topic, data, sent_at)
  VALUES ($1, $2, $3, :NOW)
)
UPDATE :SCHEMA.jobs_hot h
SET status = :PENDING, run_at = :NOW, updated_at = :NOW
WHERE h.id = $1
  AND h.status = :SCHEDULED
  AND EXISTS (
    SELECT 1 FROM :SCHEMA.job_steps s
    WHERE s.job_id = $1 AND s.kind = 2 AND NOT s.done AND s.topic = $2
  )
RETURNING h.queue
